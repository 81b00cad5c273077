package mcptools

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves one client over stdin/stdout. mcp-go builds one context
// for the whole session, so who is asked for the caller at every tool
// listing and call: a token revoked while the session runs stops working at
// once (who then fails: no tool is listed or callable).
func ServeStdio(ctx context.Context, s *server.MCPServer, who func() (Caller, error), in io.Reader, out io.Writer) error {
	stdio := server.NewStdioServer(s)
	stdio.SetContextFunc(func(ctx context.Context) context.Context { return WithCallerSource(ctx, who) })
	err := stdio.Listen(ctx, in, out)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// HTTPOptions configure the Streamable HTTP handler. Zero values take the
// defaults.
type HTTPOptions struct {
	// NoAuth serves every request as this caller without a token (a
	// test mode; the command line allows it on loopback addresses only).
	NoAuth *Caller
	// ResourceMetadataURL, when set, is advertised in WWW-Authenticate.
	ResourceMetadataURL string
	// MaxBody bounds a request body, in bytes (DefaultMaxBody).
	MaxBody int64
	// SessionIdle ends a session after this long without a request
	// (DefaultSessionIdle).
	SessionIdle time.Duration
	// MaxSessions bounds the live sessions of one token
	// (DefaultMaxSessions).
	MaxSessions int
	// AllowOrigins are the browser origins allowed besides loopback and the
	// server's own host, normalized by ParseOrigin; they also get CORS.
	AllowOrigins []string
	// Addr is the address served (--http): its host is accepted as Origin.
	Addr string
	// PublicURL is --public-url, the address clients use: its host is
	// accepted as Origin, and as Host on a loopback connection (a reverse
	// proxy on this machine), where mcp-go would accept loopback names only.
	PublicURL string
	// OAuth, when set, also accepts the access tokens of its grants (each
	// for the endpoint it was issued for), and each 401 says where to get
	// one (package oauth).
	OAuth OAuthVerifier
}

// OAuthVerifier checks OAuth access tokens for the MCP endpoints.
type OAuthVerifier interface {
	// VerifyAccess returns the grant of an access token presented at the
	// endpoint whose URL is resource.
	VerifyAccess(token, resource string) (TokenRecord, error)
	// Challenge is the WWW-Authenticate of a 401 at the endpoint at path.
	Challenge(path string) string
	// Resource is the URL of the endpoint at path.
	Resource(path string) string
}

// HTTPHandler is NewHTTPService as a plain handler, for callers that never
// close it (tests and benchmarks): its idle sweep runs for the process's
// life.
func HTTPHandler(s *server.MCPServer, tokens *TokenStore, o HTTPOptions) http.Handler {
	return NewHTTPService(s, tokens, o)
}

// authenticate resolves the request's bearer token into a caller, or
// answers 401 with WWW-Authenticate and returns false. It never reads the
// body, so an unauthenticated request cannot make the server read one.
func (h *HTTPService) authenticate(w http.ResponseWriter, r *http.Request, path string) (Caller, bool) {
	if h.o.NoAuth != nil {
		return *h.o.NoAuth, true
	}
	challenge := `Bearer realm="cairn"`
	if h.o.OAuth != nil {
		challenge = h.o.OAuth.Challenge(path)
	} else if h.o.ResourceMetadataURL != "" {
		challenge += `, resource_metadata="` + h.o.ResourceMetadataURL + `"`
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		closeUnread(w, r)
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, "401 unauthorized: send Authorization: Bearer <token> (cairn token create makes one)", http.StatusUnauthorized)
		return Caller{}, false
	}
	var rec TokenRecord
	var err error
	if h.o.OAuth != nil && !strings.HasPrefix(token, tokenPrefix) {
		rec, err = h.o.OAuth.VerifyAccess(token, h.o.OAuth.Resource(path))
	} else {
		rec, err = h.tokens.Verify(token)
	}
	if err != nil {
		closeUnread(w, r)
		desc := "invalid, expired or revoked token"
		if !errors.Is(err, ErrBadToken) {
			desc = strings.ReplaceAll(err.Error(), `"`, "'")
		}
		w.Header().Set("WWW-Authenticate", challenge+`, error="invalid_token", error_description="`+desc+`"`)
		http.Error(w, "401 unauthorized: "+desc, http.StatusUnauthorized)
		return Caller{}, false
	}
	return CallerOf(rec), true
}
