package oauth

import (
	"sync"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// authRequest is one authorization in progress, from /authorize to the
// code's exchange: kept in memory only (a restart asks the person again),
// for at most requestTTL.
type authRequest struct {
	id          string
	created     time.Time
	clientID    string
	clientName  string
	redirectURI string
	state       string
	nonce       string
	scopes      []string // as asked: read and/or write
	respMode    oidc.ResponseMode
	challenge   *oidc.CodeChallenge
	resource    string

	// Set by the consent page when the person approves.
	done     bool
	subject  string // the principal
	grant    grantShape
	authTime time.Time
	grantID  string // the grant its code made, once exchanged
}

// grantShape is what the person approved: the ceiling and toolsets (and
// projects, nil for all) the grant's tokens carry.
type grantShape struct {
	Scope    string // read or write
	Toolsets []string
	Projects []string
}

const requestTTL = 10 * time.Minute

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAMR() []string                      { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string                 { return []string{a.clientID} }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.challenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return oidc.ResponseTypeCode }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.respMode }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

// GetScopes are the approved scope, and offline_access: every grant has a
// refresh token (the library issues one only for that scope).
func (a *authRequest) GetScopes() []string {
	if !a.done {
		return a.scopes
	}
	return []string{a.grant.Scope, oidc.ScopeOfflineAccess}
}

// requests holds the authorizations in progress and their codes; a code
// exchanged (or its request deleted) is remembered for requestTTL with
// the grant it made, so that a code presented twice ends that grant
// (RFC 6749 §4.1.2).
type requests struct {
	mu     sync.Mutex
	byID   map[string]*authRequest
	byCode map[string]string   // code → request id
	used   map[string]usedCode // code → what it made, once exchanged
}

type usedCode struct {
	grantID string
	at      time.Time
}

// maxRequests bounds the authorizations in progress (each is a few
// hundred bytes): past it, /authorize answers that the server is busy.
const maxRequests = 10000

func newRequests() *requests {
	return &requests{byID: map[string]*authRequest{}, byCode: map[string]string{}, used: map[string]usedCode{}}
}

func (q *requests) sweepLocked(now time.Time) {
	for id, a := range q.byID {
		if now.Sub(a.created) > requestTTL {
			delete(q.byID, id)
		}
	}
	for code, id := range q.byCode {
		if _, ok := q.byID[id]; !ok {
			delete(q.byCode, code)
		}
	}
	for code, u := range q.used {
		if now.Sub(u.at) > requestTTL {
			delete(q.used, code)
		}
	}
}
