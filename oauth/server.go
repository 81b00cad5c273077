package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Scopes a client may ask for: the ceiling of the grant it gets.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// Options configure the authorization server.
type Options struct {
	// Root is the vault's folder: keys, clients and passwords live in its
	// .cairn/secrets/.
	Root string
	// PublicURL is the address clients use (https://host, no path): the
	// issuer, and the resource the MCP endpoints are under.
	PublicURL string
	// Resources are the paths of the protected MCP endpoints (/mcp and the
	// families'); each is a resource of its own, and PublicURL covers all.
	Resources []string
	// Tokens holds the grants, beside the personal tokens.
	Tokens *mcptools.TokenStore
	// AccessTTL is how long an access token lives (default 1 hour);
	// RefreshTTL how long a grant lives unless refreshed (default 30 days).
	AccessTTL, RefreshTTL time.Duration
	// AllowPrivateDocuments lets client_id URLs point at this machine or
	// a private network (tests; a deployment whose clients live there).
	AllowPrivateDocuments bool
	// DocumentTransport fetches Client ID Metadata Documents (nil: the
	// default one; tests give one that trusts their certificate).
	DocumentTransport *http.Transport
	// TrustProxy reads the client's address from X-Forwarded-For (behind
	// a reverse proxy only), for the rate limits.
	TrustProxy bool
	// OIDC, when set, signs people in through that OpenID Connect
	// provider instead of passwords (oidc.go).
	OIDC *OIDCOptions
}

// Server is the authorization server and the resource's verifier.
type Server struct {
	o        Options
	keys     *keys
	clients  *clientStore
	docs     *documents
	requests *requests
	tokens   *mcptools.TokenStore
	provider *op.Provider
	pass     *passwords

	registrations *limiter // DCR per address
	signIns       *limiter // password attempts per address
	signInsFor    *limiter // password attempts per principal

	party    rp.RelyingParty       // the team's provider (Options.OIDC), nil without
	viaState map[string]*signInVia // sign-ins sent to it, by state; under requests.mu
}

// New makes the authorization server of the vault at o.Root.
func New(o Options) (*Server, error) {
	u, err := url.Parse(o.PublicURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("--public-url: %q is not an origin such as https://notes.example.com", o.PublicURL)
	}
	if _, loop := op.HTTPLoopbackOrLocalhost(o.PublicURL); u.Scheme == "http" && !loop {
		return nil, fmt.Errorf("--public-url: %s: sign-in sends passwords and tokens, so it is https unless on this machine (serve TLS with a reverse proxy, docs/oauth.md)", o.PublicURL)
	}
	o.PublicURL = strings.TrimSuffix(o.PublicURL, "/")
	if o.AccessTTL <= 0 {
		o.AccessTTL = time.Hour
	}
	if o.RefreshTTL <= 0 {
		o.RefreshTTL = 30 * 24 * time.Hour
	}
	if o.Tokens == nil {
		return nil, errors.New("oauth: no token store")
	}
	s := &Server{o: o, tokens: o.Tokens, requests: newRequests(),
		docs:          newDocuments(o.AllowPrivateDocuments, o.DocumentTransport),
		registrations: newLimiter(20, time.Minute),
		signIns:       newLimiter(10, time.Minute),
		signInsFor:    newLimiter(10, time.Minute),
	}
	if s.keys, err = loadKeys(o.Root); err != nil {
		return nil, err
	}
	if s.clients, err = openClients(o.Root); err != nil {
		return nil, err
	}
	s.pass = openPasswords(o.Root)
	if o.OIDC != nil {
		if err := s.setupOIDC(o.OIDC); err != nil {
			return nil, err
		}
	}
	opts := []op.Option{
		op.WithCustomRevocationEndpoint(op.NewEndpoint(pathRevoke)),
		op.WithCustomKeysEndpoint(op.NewEndpoint(pathKeys)),
	}
	if u.Scheme == "http" {
		opts = append(opts, op.WithAllowInsecure())
	}
	s.provider, err = op.NewProvider(&op.Config{
		CryptoKey:             s.keys.crypto,
		CryptoKeyId:           s.keys.id,
		CodeMethodS256:        true,
		AuthMethodPost:        true,
		GrantTypeRefreshToken: true,
		SupportedScopes:       []string{ScopeRead, ScopeWrite},
	}, storage{s}, op.StaticIssuer(o.PublicURL), opts...)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return s, nil
}

// The paths the server answers.
const (
	pathAuthorize = "/authorize"
	pathCallback  = "/authorize/callback"
	pathToken     = "/oauth/token"
	pathRevoke    = "/oauth/revoke"
	pathKeys      = "/oauth/keys"
	pathRegister  = "/oauth/register"
	pathConsent   = "/oauth/consent"
	wellKnownAS   = "/.well-known/oauth-authorization-server"
	wellKnownOIDC = "/.well-known/openid-configuration"
	wellKnownPRM  = "/.well-known/oauth-protected-resource"
)

// Register mounts the server's endpoints on mux, beside the MCP ones.
func (s *Server) Register(mux *http.ServeMux) {
	lib := s.provider // the library's router: authorize, callback, token, revocation, keys
	mux.Handle(pathAuthorize, s.limitBody(s.authorize(withIssuer(lib, s.o.PublicURL))))
	mux.Handle(pathCallback, withIssuer(lib, s.o.PublicURL))
	mux.Handle(pathToken, s.limitBody(s.checkTokenRequest(lib)))
	mux.Handle(pathRevoke, s.limitBody(lib))
	mux.Handle(pathKeys, lib)
	mux.Handle(pathRegister, s.limitBody(http.HandlerFunc(s.register)))
	mux.Handle(pathConsent, s.limitBody(http.HandlerFunc(s.consent)))
	if s.party != nil {
		mux.HandleFunc(pathOIDCCallback, s.oidcCallback)
	}
	mux.HandleFunc(wellKnownAS, s.serverMetadata)
	mux.HandleFunc(wellKnownAS+"/", s.serverMetadata)
	mux.HandleFunc(wellKnownOIDC, s.serverMetadata)
	mux.HandleFunc(wellKnownPRM, s.resourceMetadata)
	mux.HandleFunc(wellKnownPRM+"/", s.resourceMetadata)
}

// limitBody bounds a request's body (maxRequestBody).
func (s *Server) limitBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxRequestBody {
			oauthError(w, http.StatusRequestEntityTooLarge, "invalid_request", fmt.Sprintf("the body is over %d bytes", maxRequestBody))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
		h.ServeHTTP(w, r)
	})
}

// client is a client by id: registered, or described by its document.
func (s *Server) client(ctx context.Context, id string) (*client, error) {
	var c *client
	if isDocumentID(id) {
		var err error
		if c, err = s.docs.get(ctx, id); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if c, ok = s.clients.get(id); !ok {
			return nil, fmt.Errorf("no client %q is registered here", id)
		}
	}
	c.loginURL = func(reqID string) string { return s.o.PublicURL + pathConsent + "?id=" + url.QueryEscape(reqID) }
	return c, nil
}

// clientAddr is the address a request comes from, for rate limits.
func (s *Server) clientAddr(r *http.Request) string {
	if s.o.TrustProxy {
		if f := r.Header.Get("X-Forwarded-For"); f != "" {
			first, _, _ := strings.Cut(f, ",")
			return strings.TrimSpace(first)
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// resources are the resource URLs a token may be issued for.
func (s *Server) resources() []string {
	out := []string{s.o.PublicURL}
	for _, p := range s.o.Resources {
		out = append(out, s.o.PublicURL+p)
	}
	return out
}

// ErrWrongResource is an access token issued for another resource.
var ErrWrongResource = errors.New("this token was issued for another resource")

// VerifyAccess checks an OAuth access token presented at the MCP
// endpoint whose URL is resource, and returns its grant: unexpired, not
// revoked, its current access token, and issued for that resource (or for
// the whole server).
func (s *Server) VerifyAccess(token, resource string) (mcptools.TokenRecord, error) {
	plain, err := s.provider.Crypto().Decrypt(token)
	if err != nil {
		return mcptools.TokenRecord{}, mcptools.ErrBadToken
	}
	accessID, _, _ := strings.Cut(plain, ":")
	rec, err := s.tokens.Lookup(grantOf(accessID))
	if err != nil || rec.Kind != mcptools.KindOAuth || !sameHash(rec.AccessHash, hashOf(accessID)) {
		return mcptools.TokenRecord{}, mcptools.ErrBadToken
	}
	now := time.Now()
	if now.After(rec.AccessExpires) {
		return mcptools.TokenRecord{}, mcptools.ErrBadToken
	}
	if rec.Resource != s.o.PublicURL && rec.Resource != resource {
		return mcptools.TokenRecord{}, ErrWrongResource
	}
	if now.Sub(rec.LastUsed) > time.Minute {
		s.tokens.Update(rec.ID, func(r *mcptools.TokenRecord) error { r.LastUsed = now.UTC().Truncate(time.Second); return nil })
	}
	return rec, nil
}
