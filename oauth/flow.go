package oauth

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// authorize checks what the library leaves to its caller before it sees
// an /authorize request: the resource indicator (RFC 8707: one, and one
// of this server's), and a scope when the client sent none (the consent
// page asks the person anyway). The resource rides on the request's
// context to CreateAuthRequest. A bad resource is refused here, on a page,
// not by a redirect: the redirect_uri is not checked yet.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			page(w, http.StatusBadRequest, "This sign-in link is malformed", err.Error())
			return
		}
		res := r.Form["resource"]
		if len(res) > 1 {
			page(w, http.StatusBadRequest, "This sign-in asks for several resources", "invalid_target: ask for one resource at a time.")
			return
		}
		resource := ""
		if len(res) == 1 {
			resource = strings.TrimSuffix(res[0], "/")
			if !slices.Contains(s.resources(), resource) {
				page(w, http.StatusBadRequest, "This sign-in is for another server",
					"invalid_target: the resource "+res[0]+" is not served here; this server's are "+strings.Join(s.resources(), ", ")+".")
				return
			}
		}
		if strings.TrimSpace(r.Form.Get("scope")) == "" {
			r.Form.Set("scope", ScopeRead+" "+ScopeWrite)
			q := r.URL.Query()
			q.Set("scope", ScopeRead+" "+ScopeWrite)
			r.URL.RawQuery = q.Encode()
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), resourceKey{}, resource)))
	})
}

// checkTokenRequest refuses a token request whose resource is not the one
// the grant was made for (RFC 8707 §2.2): a code or refresh token cannot
// be turned into a token for another resource.
func (s *Server) checkTokenRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
			return
		}
		res := r.PostForm["resource"]
		if len(res) > 1 {
			oauthError(w, http.StatusBadRequest, "invalid_target", "one resource at a time")
			return
		}
		if len(res) == 1 {
			want := strings.TrimSuffix(res[0], "/")
			granted := ""
			switch r.PostForm.Get("grant_type") {
			case "authorization_code":
				if a, err := (storage{s}).AuthRequestByCode(r.Context(), r.PostForm.Get("code")); err == nil {
					granted = a.(*authRequest).resource
				}
			case "refresh_token":
				if rec, err := (storage{s}).grantByRefresh(r.PostForm.Get("refresh_token")); err == nil {
					granted = rec.Resource
				}
			}
			// An unknown code or token is the library's to refuse.
			if granted != "" && want != granted {
				oauthError(w, http.StatusBadRequest, "invalid_target", "this grant is for "+granted+", not "+res[0])
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// withIssuer adds iss to every redirect back to a client (RFC 9207), the
// errors' too, so a client can tell which server answered.
func withIssuer(next http.Handler, issuer string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&issWriter{ResponseWriter: w, issuer: issuer}, r)
	})
}

type issWriter struct {
	http.ResponseWriter
	issuer string
	wrote  bool
}

func (w *issWriter) WriteHeader(status int) {
	if !w.wrote && status >= 300 && status < 400 {
		if loc := w.Header().Get("Location"); loc != "" && !strings.HasPrefix(loc, w.issuer+"/") {
			if u, err := url.Parse(loc); err == nil {
				q := u.Query()
				if q.Get("iss") == "" && (q.Has("code") || q.Has("error")) {
					q.Set("iss", w.issuer)
					u.RawQuery = q.Encode()
					w.Header().Set("Location", u.String())
				}
			}
		}
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *issWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}
