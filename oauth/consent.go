package oauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// The sign-in and consent page: GET shows what the client asks, POST signs
// the person in and records what they approved, then hands back to the
// library's callback, which issues the code. The form is bound to the
// browser that opened it (a random cookie, and an HMAC of it and the
// request in the form: a page elsewhere cannot post it), the page cannot
// be framed, and password attempts are limited per address and per
// principal.

const csrfCookie = "cairn_consent"

// consentView is what the page shows.
type consentView struct {
	ID, CSRF     string
	Client       string
	RedirectHost string
	FromDocument string // the client_id URL, for a client described by its document
	AsksWrite    bool
	Principal    string
	Toolsets     []string
	Error        string
	Provider     string // the identity provider's host, when people sign in there
}

func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		s.showConsent(w, r, "", "", http.StatusOK)
	case http.MethodPost:
		s.answerConsent(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		page(w, http.StatusMethodNotAllowed, "Not here", "This page is opened by an app's sign-in link.")
	}
}

// secureHeaders are a page's headers; a form on it may go on to the
// targets (a browser applies form-action to the redirects that follow a
// form's post: the client's redirect, and the identity provider's origin
// when people sign in there, are named beside 'self').
func secureHeaders(w http.ResponseWriter, targets ...string) {
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	action := "form-action 'self'"
	for _, t := range targets {
		action += formTarget(t)
	}
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; "+action+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, principal, problem string, status int) {
	id := r.FormValue("id")
	a, err := storage{s}.request(id)
	if err != nil {
		page(w, http.StatusBadRequest, "This sign-in has expired", "Start again from the app that sent you here.")
		return
	}
	nonce := ""
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 32 {
		nonce = c.Value
	} else {
		nonce = randomID(20)[:32]
		http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: nonce, Path: pathConsent, HttpOnly: true,
			Secure: strings.HasPrefix(s.o.PublicURL, "https://"), SameSite: http.SameSiteStrictMode, MaxAge: int(requestTTL / time.Second)})
	}
	if s.party != nil {
		// The post goes on to the provider, then back to the client.
		secureHeaders(w, a.redirectURI, s.party.Issuer())
	} else {
		secureHeaders(w, a.redirectURI)
	}
	v := consentView{ID: id, CSRF: s.csrf(id, nonce), Client: a.clientName, RedirectHost: redirectHost(a.redirectURI),
		AsksWrite: slices.Contains(a.scopes, ScopeWrite), Principal: principal, Toolsets: mcptools.AllToolsets, Error: problem}
	if isDocumentID(a.clientID) {
		v.FromDocument = a.clientID
	}
	if s.party != nil {
		v.Provider = redirectHost(s.party.Issuer())
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	consentPage.Execute(w, v)
}

// csrf binds a form to its request and to the browser's cookie.
func (s *Server) csrf(id, nonce string) string {
	m := hmac.New(sha256.New, s.keys.crypto[:])
	fmt.Fprintf(m, "consent|%s|%s", id, nonce)
	return hex.EncodeToString(m.Sum(nil))
}

// formTarget is the CSP source of a redirect URI: its origin, or its
// scheme for an app's own scheme; "" when it has none usable.
func formTarget(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" || strings.ContainsAny(uri, " ;,'\"") {
		return ""
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return " " + u.Scheme + "://" + u.Host
	}
	return " " + u.Scheme + ":"
}

func redirectHost(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Host
}

func (s *Server) answerConsent(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		page(w, http.StatusBadRequest, "This form could not be read", err.Error())
		return
	}
	id := r.PostForm.Get("id")
	c, err := r.Cookie(csrfCookie)
	if err != nil || !hmac.Equal([]byte(s.csrf(id, c.Value)), []byte(r.PostForm.Get("csrf"))) {
		page(w, http.StatusForbidden, "This form was not sent from its page", "Open the sign-in link from the app again.")
		return
	}
	a, err := storage{s}.request(id)
	if err != nil {
		page(w, http.StatusBadRequest, "This sign-in has expired", "Start again from the app that sent you here.")
		return
	}
	if r.PostForm.Get("action") == "deny" {
		s.deny(w, r, a)
		return
	}
	if s.party != nil {
		// The provider signs the person in; what they approve goes with
		// them and is applied when they come back.
		if ok, wait := s.signIns.allow(s.clientAddr(r), time.Now()); !ok {
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			s.showConsent(w, r, "", "Too many attempts. Wait a minute, then try again.", http.StatusTooManyRequests)
			return
		}
		shape, problem := chosenGrant(r, a)
		if problem != "" {
			s.showConsent(w, r, "", problem, http.StatusBadRequest)
			return
		}
		s.sendToProvider(w, r, a, shape)
		return
	}
	principal := strings.TrimSpace(r.PostForm.Get("principal"))
	now := time.Now()
	okAddr, wait := s.signIns.allow(s.clientAddr(r), now)
	okWho, waitWho := s.signInsFor.allow(principal, now)
	if !okAddr || !okWho {
		w.Header().Set("Retry-After", fmt.Sprint(int(max(wait, waitWho).Seconds())+1))
		s.showConsent(w, r, principal, "Too many attempts. Wait a minute, then try again.", http.StatusTooManyRequests)
		return
	}
	if access.ValidPrincipal(principal) != nil || !s.pass.check(principal, r.PostForm.Get("password")) {
		s.showConsent(w, r, principal, "Wrong principal or password.", http.StatusUnauthorized)
		return
	}
	shape, problem := chosenGrant(r, a)
	if problem != "" {
		s.showConsent(w, r, principal, problem, http.StatusBadRequest)
		return
	}
	q := s.requests
	q.mu.Lock()
	a.done, a.subject, a.grant, a.authTime = true, principal, shape, now
	q.mu.Unlock()
	http.Redirect(w, r, s.o.PublicURL+pathCallback+"?id="+url.QueryEscape(id), http.StatusSeeOther)
}

// chosenGrant is what the person approved, within what the client asked.
func chosenGrant(r *http.Request, a *authRequest) (grantShape, string) {
	g := grantShape{Scope: r.PostForm.Get("access")}
	switch g.Scope {
	case ScopeRead:
	case ScopeWrite:
		if !slices.Contains(a.scopes, ScopeWrite) {
			return g, "This app asked to read only."
		}
	default:
		return g, "Choose read, or read and write."
	}
	for _, t := range r.PostForm["toolset"] {
		if !slices.Contains(mcptools.AllToolsets, t) {
			return g, fmt.Sprintf("No toolset %q.", t)
		}
		g.Toolsets = append(g.Toolsets, t)
	}
	if len(g.Toolsets) == 0 {
		return g, "Choose at least one set of tools."
	}
	for _, p := range strings.FieldsFunc(r.PostForm.Get("projects"), func(r rune) bool { return r == ',' || r == ' ' }) {
		if err := vault.ValidHandle(p); err != nil {
			return g, fmt.Sprintf("Project %q: %v", p, err)
		}
		g.Projects = append(g.Projects, p)
	}
	return g, ""
}

// deny sends the person back to the client with access_denied.
func (s *Server) deny(w http.ResponseWriter, r *http.Request, a *authRequest) {
	storage{s}.DeleteAuthRequest(r.Context(), a.id)
	u, err := url.Parse(a.redirectURI)
	if err != nil {
		page(w, http.StatusOK, "Refused", "You refused; you can close this page.")
		return
	}
	q := u.Query()
	q.Set("error", "access_denied")
	q.Set("error_description", "the person refused")
	if a.state != "" {
		q.Set("state", a.state)
	}
	q.Set("iss", s.o.PublicURL)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// page answers a plain page with a title and a line.
func page(w http.ResponseWriter, status int, title, line string) {
	secureHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	plainPage.Execute(w, struct{ Title, Line string }{title, line})
}

const pageHead = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Title}} · cairn</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}h1{font-size:1.4rem}fieldset{border:1px solid #bbb;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}label{display:block;margin:.4rem 0}input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}button{font-size:1rem;padding:.6rem 1.2rem;margin:.3rem .5rem .3rem 0}.error{color:#a00;font-weight:600}.small{color:#555;font-size:.9rem}</style></head><body>`

var plainPage = template.Must(template.New("page").Parse(pageHead + `<main><h1>{{.Title}}</h1><p>{{.Line}}</p></main></body></html>`))

var consentPage = template.Must(template.New("consent").Parse(strings.Replace(pageHead, "{{.Title}}", "Allow access", 1) + `<main>
<h1>Allow <strong>{{.Client}}</strong> to use your notes?</h1>
<p>It will send you back to <strong>{{.RedirectHost}}</strong>.{{if .FromDocument}} It describes itself at <span class="small">{{.FromDocument}}</span>.{{end}}
It asks to {{if .AsksWrite}}read and write{{else}}read{{end}} your notes.</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="consent">
<input type="hidden" name="id" value="{{.ID}}"><input type="hidden" name="csrf" value="{{.CSRF}}">
{{if .Provider}}<p>You will sign in at <strong>{{.Provider}}</strong> after you allow.</p>{{else}}<fieldset><legend>Sign in</legend>
<label for="principal">Principal</label><input type="text" id="principal" name="principal" value="{{.Principal}}" autocomplete="username" autocapitalize="none" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
</fieldset>{{end}}
<fieldset><legend>Access</legend>
{{if .AsksWrite}}<label><input type="radio" name="access" value="write" checked> Read and write</label>{{end}}
<label><input type="radio" name="access" value="read"{{if not .AsksWrite}} checked{{end}}> Read only</label>
</fieldset>
<fieldset><legend>Tools</legend>
{{range .Toolsets}}<label><input type="checkbox" name="toolset" value="{{.}}"{{if eq . "gateway"}} checked{{end}}> {{.}}</label>{{end}}
</fieldset>
<fieldset><legend>Projects</legend>
<label for="projects">Only these projects (handles, comma-separated); empty for all of yours</label><input type="text" id="projects" name="projects" autocapitalize="none">
</fieldset>
<button type="submit" name="action" value="allow">Allow</button><button type="submit" name="action" value="deny">Refuse</button>
</form>
<p class="small">The app gets a token you can list with <code>cairn token list</code> and end with <code>cairn token revoke</code>.</p>
</main></body></html>`))
