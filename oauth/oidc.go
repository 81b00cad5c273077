package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// Sign-in through a team's OpenID Connect provider (cairn serve
// --oidc-issuer): the consent page asks no password; the person approves
// what the client may do, is sent to the provider, and comes back to
// pathOIDCCallback, where cairn (a relying party, zitadel/oidc's rp
// package) exchanges the code with PKCE, checks the ID token (signature,
// issuer, audience, expiry, the nonce it sent), reads the claim the
// access file's signin: map names (email unless it says otherwise) and
// takes the principal it maps that value to. No password is kept.

// OIDCOptions configure the delegation.
type OIDCOptions struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// HTTPClient reaches the provider (nil: the default; tests give one).
	HTTPClient *http.Client
}

const pathOIDCCallback = "/oauth/oidc/callback"

// signInVia is a sign-in sent to the provider: the request it completes,
// what the person approved, and the PKCE verifier and nonce sent.
type signInVia struct {
	reqID    string
	shape    grantShape
	verifier string
	nonce    string
	browser  string // hash of the cookie the browser that approved got
	at       time.Time
}

// signInCookie binds a sign-in sent to the provider to the browser that
// approved it: without it, someone could approve their own client, then
// have a person open the provider link and sign in there (often in one
// click, or none), and the person's identity would complete the other's
// grant. SameSite=Lax: the provider's redirect back is a top-level
// navigation from another site.
const signInCookie = "cairn_signin"

type nonceKey struct{}

func (s *Server) setupOIDC(o *OIDCOptions) error {
	if o.Issuer == "" || o.ClientID == "" {
		return fmt.Errorf("--oidc-issuer and --oidc-client-id go together")
	}
	opts := []rp.Option{rp.WithVerifierOpts(rp.WithNonce(func(ctx context.Context) string {
		n, _ := ctx.Value(nonceKey{}).(string)
		return n
	}))}
	if o.HTTPClient != nil {
		opts = append(opts, rp.WithHTTPClient(o.HTTPClient))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	party, err := rp.NewRelyingPartyOIDC(ctx, o.Issuer, o.ClientID, o.ClientSecret, s.o.PublicURL+pathOIDCCallback,
		[]string{oidc.ScopeOpenID, oidc.ScopeEmail, oidc.ScopeProfile}, opts...)
	if err != nil {
		return fmt.Errorf("--oidc-issuer %s: %w", o.Issuer, err)
	}
	s.party, s.viaState = party, map[string]*signInVia{}
	return nil
}

// sendToProvider records what the person approved and sends them to the
// provider to sign in.
func (s *Server) sendToProvider(w http.ResponseWriter, r *http.Request, a *authRequest, shape grantShape) {
	verifier := randomID(32)
	sum := sha256.Sum256([]byte(verifier))
	bind := randomID(20)
	via := &signInVia{reqID: a.id, shape: shape, verifier: verifier, nonce: randomID(16), browser: hashOf(bind), at: time.Now()}
	state := randomID(16)
	s.requests.mu.Lock()
	for k, v := range s.viaState {
		if time.Since(v.at) > requestTTL {
			delete(s.viaState, k)
		}
	}
	if len(s.viaState) >= maxRequests {
		s.requests.mu.Unlock()
		page(w, http.StatusServiceUnavailable, "Too many sign-ins in progress", "Try again in a few minutes.")
		return
	}
	s.viaState[state] = via
	s.requests.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: bind, Path: pathOIDCCallback, HttpOnly: true,
		Secure: strings.HasPrefix(s.o.PublicURL, "https://"), SameSite: http.SameSiteLaxMode, MaxAge: int(requestTTL / time.Second)})
	target := rp.AuthURL(state, s.party, rp.WithCodeChallenge(base64.RawURLEncoding.EncodeToString(sum[:])),
		rp.AuthURLOpt(rp.WithURLParam("nonce", via.nonce)))
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// oidcCallback is where the provider sends the person back.
func (s *Server) oidcCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.requests.mu.Lock()
	via := s.viaState[q.Get("state")]
	delete(s.viaState, q.Get("state")) // one use
	s.requests.mu.Unlock()
	if via == nil || time.Since(via.at) > requestTTL {
		page(w, http.StatusBadRequest, "This sign-in has expired", "Start again from the app that sent you here.")
		return
	}
	if c, err := r.Cookie(signInCookie); err != nil || !sameHash(hashOf(c.Value), via.browser) {
		page(w, http.StatusForbidden, "This sign-in was started in another browser", "Open the app's sign-in link again in this browser, and approve it here.")
		return
	}
	if e := q.Get("error"); e != "" {
		page(w, http.StatusForbidden, "The sign-in was refused", "The identity provider said: "+cleanText(e+" "+q.Get("error_description")))
		return
	}
	a, err := storage{s}.request(via.reqID)
	if err != nil {
		page(w, http.StatusBadRequest, "This sign-in has expired", "Start again from the app that sent you here.")
		return
	}
	ctx := context.WithValue(r.Context(), nonceKey{}, via.nonce)
	tokens, err := rp.CodeExchange[*oidc.IDTokenClaims](ctx, q.Get("code"), s.party, rp.WithCodeVerifier(via.verifier))
	if err != nil {
		page(w, http.StatusForbidden, "The sign-in could not be checked", err.Error())
		return
	}
	principal, err := s.principalOf(ctx, tokens)
	if err != nil {
		page(w, http.StatusForbidden, "Signed in, but not to this vault", err.Error())
		return
	}
	s.requests.mu.Lock()
	a.done, a.subject, a.grant, a.authTime = true, principal, via.shape, time.Now()
	s.requests.mu.Unlock()
	http.Redirect(w, r, s.o.PublicURL+pathCallback+"?id="+url.QueryEscape(a.id), http.StatusSeeOther)
}

// principalOf reads the mapped claim (from the ID token, else the
// provider's userinfo) and the principal the access file maps it to.
func (s *Server) principalOf(ctx context.Context, tokens *oidc.Tokens[*oidc.IDTokenClaims]) (string, error) {
	access, err := vault.ReadAccess(s.o.Root)
	if err != nil {
		return "", err
	}
	claim := access.SignInClaim()
	value := claimOf(tokens.IDTokenClaims.Claims, tokens.IDTokenClaims.Subject, tokens.IDTokenClaims.Email, claim)
	if value == "" && tokens.AccessToken != "" {
		info, err := rp.Userinfo[*oidc.UserInfo](ctx, tokens.AccessToken, tokens.TokenType, tokens.IDTokenClaims.Subject, s.party)
		if err == nil {
			value = claimOf(info.Claims, info.Subject, info.Email, claim)
		}
	}
	if value == "" {
		return "", fmt.Errorf("the identity provider did not say your %s, which this vault maps to its principals", claim)
	}
	principal := access.PrincipalFor(value)
	if principal == "" {
		return "", fmt.Errorf("you signed in as %s, which no principal of this vault is mapped to: its owner adds it under signin: principals: in %s", value, vault.AccessFile)
	}
	return principal, nil
}

// claimOf is one claim's value as text.
func claimOf(claims map[string]any, subject, email, name string) string {
	switch name {
	case "sub":
		return subject
	case "email":
		if email != "" {
			return strings.ToLower(email)
		}
	}
	if v, ok := claims[name].(string); ok {
		if name == "email" {
			return strings.ToLower(v)
		}
		return v
	}
	return ""
}
