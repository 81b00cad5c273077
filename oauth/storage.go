package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// storage is op.Storage over the server's clients, authorizations in
// progress and grants (mcptools.TokenStore records of kind oauth).
type storage struct{ s *Server }

var _ op.Storage = storage{}

const (
	refreshPrefix = "cairn_rt_"
	// maxUsedRefresh bounds the hashes of exchanged refresh tokens a grant
	// remembers, to tell a replay.
	maxUsedRefresh = 20
)

// resourceKey carries an /authorize request's resource (checked by
// Server.authorize) to CreateAuthRequest.
type resourceKey struct{}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func sameHash(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

func (st storage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if req.CodeChallenge == "" {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge is required: this server takes PKCE with S256 only")
	}
	if req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge_method must be S256")
	}
	resource, _ := ctx.Value(resourceKey{}).(string)
	if resource == "" {
		resource = st.s.o.PublicURL
	}
	name := req.ClientID
	if c, err := st.s.client(ctx, req.ClientID); err == nil {
		name = c.label()
	}
	a := &authRequest{
		id: randomID(16), created: time.Now(), clientID: req.ClientID, clientName: name,
		redirectURI: req.RedirectURI, state: req.State, nonce: req.Nonce,
		scopes: slices.Clone(req.Scopes), respMode: req.ResponseMode, resource: resource,
		challenge: &oidc.CodeChallenge{Challenge: req.CodeChallenge, Method: req.CodeChallengeMethod},
	}
	q := st.s.requests
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sweepLocked(a.created)
	if len(q.byID) >= maxRequests {
		return nil, oidc.ErrServerError().WithDescription("too many sign-ins in progress; try again in a few minutes")
	}
	q.byID[a.id] = a
	return a, nil
}

// request is an authorization in progress by id, unexpired.
func (st storage) request(id string) (*authRequest, error) {
	q := st.s.requests
	q.mu.Lock()
	defer q.mu.Unlock()
	a, ok := q.byID[id]
	if !ok || time.Since(a.created) > requestTTL {
		return nil, oidc.ErrInvalidRequest().WithDescription("this sign-in has expired or is unknown; start again from the app")
	}
	return a, nil
}

func (st storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	return st.request(id)
}

func (st storage) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	q := st.s.requests
	q.mu.Lock()
	if u, ok := q.used[code]; ok {
		q.mu.Unlock()
		// A code presented a second time: whoever holds it is not the
		// client it was issued to, or the client is replaying; the grant
		// it made ends.
		if u.grantID != "" {
			st.s.tokens.Revoke(u.grantID)
		}
		return nil, oidc.ErrInvalidGrant().WithDescription("this code was already used; the tokens it gave are revoked")
	}
	id, ok := q.byCode[code]
	q.mu.Unlock()
	if !ok {
		return nil, oidc.ErrInvalidGrant().WithDescription("unknown or expired code")
	}
	a, err := st.request(id)
	if err != nil {
		return nil, oidc.ErrInvalidGrant().WithDescription("expired code")
	}
	return a, nil
}

func (st storage) SaveAuthCode(_ context.Context, id, code string) error {
	q := st.s.requests
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.byID[id]; !ok {
		return oidc.ErrInvalidRequest().WithDescription("this sign-in has expired")
	}
	q.byCode[code] = id
	return nil
}

func (st storage) DeleteAuthRequest(_ context.Context, id string) error {
	q := st.s.requests
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.byID[id]
	delete(q.byID, id)
	for code, rid := range q.byCode {
		if rid == id {
			delete(q.byCode, code)
			g := ""
			if a != nil {
				g = a.grantID
			}
			q.used[code] = usedCode{grantID: g, at: time.Now()}
		}
	}
	return nil
}

func (st storage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	id, _, exp, err := st.CreateAccessAndRefreshTokens(ctx, req, "")
	return id, exp, err
}

// CreateAccessAndRefreshTokens makes a grant at a code's exchange, or
// rotates a grant's tokens at a refresh: the refresh token presented
// stops working, and so does the access token before it.
func (st storage) CreateAccessAndRefreshTokens(_ context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	now := time.Now().UTC()
	accessExp := now.Add(st.s.o.AccessTTL)
	switch r := req.(type) {
	case *authRequest:
		rec := mcptools.TokenRecord{
			ID: randomID(5), Kind: mcptools.KindOAuth, Principal: r.subject, Scope: r.grant.Scope,
			Toolsets: r.grant.Toolsets, Projects: r.grant.Projects, Client: r.clientID, ClientName: r.clientName,
			Resource: r.resource, Created: now.Truncate(time.Second), Expires: now.Add(st.s.o.RefreshTTL),
		}
		access, refresh := newPair(rec.ID)
		rec.AccessHash, rec.AccessExpires, rec.RefreshHash = hashOf(access), accessExp, hashOf(refresh)
		if err := st.s.tokens.Put(rec); err != nil {
			return "", "", time.Time{}, err
		}
		st.s.requests.mu.Lock()
		r.grantID = rec.ID
		st.s.requests.mu.Unlock()
		return access, refresh, accessExp, nil
	case *refreshRequest:
		access, refresh := newPair(r.rec.ID)
		_, err := st.s.tokens.Update(r.rec.ID, func(rec *mcptools.TokenRecord) error {
			if !sameHash(rec.RefreshHash, hashOf(current)) {
				return op.ErrInvalidRefreshToken
			}
			rec.UsedRefresh = append(rec.UsedRefresh, rec.RefreshHash)
			if len(rec.UsedRefresh) > maxUsedRefresh {
				rec.UsedRefresh = rec.UsedRefresh[len(rec.UsedRefresh)-maxUsedRefresh:]
			}
			rec.AccessHash, rec.AccessExpires, rec.RefreshHash = hashOf(access), accessExp, hashOf(refresh)
			rec.Expires = now.Add(st.s.o.RefreshTTL)
			return nil
		})
		if err != nil {
			return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("this refresh token is no longer valid")
		}
		return access, refresh, accessExp, nil
	}
	return "", "", time.Time{}, errors.New("oauth: a token request of an unknown kind")
}

// newPair is a new access token id (which the library encrypts into the
// bearer token) and refresh token, both naming the grant.
func newPair(grantID string) (access, refresh string) {
	return grantID + "." + randomID(16), refreshPrefix + grantID + "_" + randomID(20)
}

// grantOf is the grant id a refresh token or an access token id names.
func grantOf(token string) string {
	if rest, ok := strings.CutPrefix(token, refreshPrefix); ok {
		id, _, _ := strings.Cut(rest, "_")
		return id
	}
	id, _, _ := strings.Cut(token, ".")
	return id
}

// refreshRequest is a grant being refreshed, as op.RefreshTokenRequest.
type refreshRequest struct {
	rec    mcptools.TokenRecord
	scopes []string
}

func (r *refreshRequest) GetAMR() []string            { return []string{"pwd"} }
func (r *refreshRequest) GetAudience() []string       { return []string{r.rec.Client} }
func (r *refreshRequest) GetAuthTime() time.Time      { return r.rec.Created }
func (r *refreshRequest) GetClientID() string         { return r.rec.Client }
func (r *refreshRequest) GetScopes() []string         { return r.scopes }
func (r *refreshRequest) GetSubject() string          { return r.rec.Principal }
func (r *refreshRequest) SetCurrentScopes(s []string) { r.scopes = s }

func (st storage) TokenRequestByRefreshToken(_ context.Context, token string) (op.RefreshTokenRequest, error) {
	rec, err := st.grantByRefresh(token)
	if err != nil {
		return nil, err
	}
	return &refreshRequest{rec: rec, scopes: []string{rec.Scope, oidc.ScopeOfflineAccess}}, nil
}

// grantByRefresh is the grant whose current refresh token is token. A
// refresh token already exchanged, presented again, ends the grant.
func (st storage) grantByRefresh(token string) (mcptools.TokenRecord, error) {
	if !strings.HasPrefix(token, refreshPrefix) {
		return mcptools.TokenRecord{}, op.ErrInvalidRefreshToken
	}
	rec, err := st.s.tokens.Lookup(grantOf(token))
	if err != nil || rec.Kind != mcptools.KindOAuth {
		return mcptools.TokenRecord{}, op.ErrInvalidRefreshToken
	}
	h := hashOf(token)
	if sameHash(rec.RefreshHash, h) {
		return rec, nil
	}
	if slices.ContainsFunc(rec.UsedRefresh, func(u string) bool { return sameHash(u, h) }) {
		st.s.tokens.Revoke(rec.ID)
	}
	return mcptools.TokenRecord{}, op.ErrInvalidRefreshToken
}

func (st storage) TerminateSession(context.Context, string, string) error { return nil }

// RevokeToken ends the grant an access or refresh token belongs to, both
// its tokens at once, when it was issued to the client asking (RFC 7009:
// an unknown token is no error).
func (st storage) RevokeToken(_ context.Context, token, _ string, clientID string) *oidc.Error {
	rec, err := st.s.tokens.Lookup(grantOf(token))
	if err != nil || rec.Kind != mcptools.KindOAuth {
		return nil
	}
	if rec.Client != clientID {
		return oidc.ErrInvalidClient().WithDescription("this token was not issued to this client")
	}
	if err := st.s.tokens.Revoke(rec.ID); err != nil && !errors.Is(err, mcptools.ErrBadToken) {
		return oidc.ErrServerError().WithParent(err)
	}
	return nil
}

func (st storage) GetRefreshTokenInfo(_ context.Context, clientID, token string) (string, string, error) {
	rec, err := st.grantByRefresh(token)
	if err != nil || rec.Client != clientID {
		return "", "", op.ErrInvalidRefreshToken
	}
	return rec.Principal, token, nil
}

func (st storage) SigningKey(context.Context) (op.SigningKey, error) {
	return signingKey{st.s.keys}, nil
}

func (st storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.ES256}, nil
}

func (st storage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{st.s.keys}}, nil
}

func (st storage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := st.s.client(ctx, id)
	if err != nil {
		return nil, oidc.ErrInvalidClient().WithDescription("%s", err.Error())
	}
	return c, nil
}

func (st storage) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	c, err := st.s.client(ctx, id)
	if err != nil || !c.checkSecret(secret) {
		return oidc.ErrInvalidClient().WithDescription("client authentication failed")
	}
	return nil
}

// Userinfo, introspection and JWT profiles are not served: a grant is
// used at the MCP endpoints only.
func (st storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}
func (st storage) SetUserinfoFromToken(context.Context, *oidc.UserInfo, string, string, string) error {
	return nil
}
func (st storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("oauth: introspection is not served")
}
func (st storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}
func (st storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("oauth: JWT client authentication is not supported")
}
func (st storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("oauth: the JWT profile grant is not supported")
}
func (st storage) Health(context.Context) error { return nil }
