package mcptools

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Session limits over HTTP. mcp-go keeps every initialized session (about
// 12 KiB of channels and maps each, bench/sessionbench) until a DELETE, and its default session
// id manager accepts any well-formed id, so sessions of clients that vanish
// without a DELETE pile up for the life of the process. cairn tracks its own
// sessions: each belongs to the token and the endpoint that made it, ends
// after an idle time, and a token holds at most a fixed number of them.
const (
	// DefaultSessionIdle ends a session after an hour without a request.
	// The per-token cap is what bounds memory; the idle time only reclaims
	// sessions their client abandoned, so it is long enough that a person's
	// lunch break does not cost their agent its session.
	DefaultSessionIdle = time.Hour
	// DefaultMaxSessions is how many live sessions one token may hold:
	// enough for an agent with a window per project and subagents.
	DefaultMaxSessions = 64
)

var (
	errNoSession  = errors.New("no such session")
	errStreamOpen = errors.New("stream already open")
)

// liveSession is one session cairn knows of.
type liveSession struct {
	id       string
	token    string    // the TokenID of the caller that made it ("" with --no-auth)
	endpoint *endpoint // the path that made it: its state lives in that endpoint's mcp-go transport
	seq      uint64    // creation order, to break ties between equal times
	last     time.Time // when its last request ended (or it was made)
	busy     int       // requests in flight, the initialize included: never idle meanwhile
	init     bool      // its initialize is still running: mcp-go registers it only at the end
	stream   context.CancelFunc
}

// sessionRegistry is the set of live sessions, per token. Whatever ends a
// session (DELETE, idle expiry, eviction by the cap) removes it here first,
// then releases mcp-go's state and closes its event stream outside the lock.
type sessionRegistry struct {
	idle    time.Duration
	max     int
	release func(*liveSession) // has mcp-go free its state for a removed session

	mu      sync.Mutex
	seq     uint64
	byID    map[string]*liveSession
	byToken map[string]map[string]*liveSession
}

func newSessionRegistry(idle time.Duration, max int, release func(*liveSession)) *sessionRegistry {
	return &sessionRegistry{idle: idle, max: max, release: release,
		byID: map[string]*liveSession{}, byToken: map[string]map[string]*liveSession{}}
}

// add records a new session made by an initialize that is still running.
// When the token is at its cap, the token's longest-idle session is evicted
// (its client gets 404 and initializes again, as the spec says). Eviction
// rather than refusal: clients often drop sessions without a DELETE (a
// crash, a restart; mcp-go's client sends its DELETE without the bearer
// header), and refusing would lock a restarted agent out of its own token
// until the idle time passes. Only the same token's sessions are ever
// evicted, so a token cannot push out anyone else's.
func (g *sessionRegistry) add(id, token string, ep *endpoint, now time.Time) {
	g.mu.Lock()
	mine := g.byToken[token]
	if mine == nil {
		mine = map[string]*liveSession{}
		g.byToken[token] = mine
	}
	var evicted []ending
	for len(mine) >= g.max {
		victim := longestIdle(mine)
		if victim == nil {
			break // all of them are still initializing: over the cap until one ends
		}
		evicted = append(evicted, g.removeLocked(victim))
	}
	g.seq++
	s := &liveSession{id: id, token: token, endpoint: ep, seq: g.seq, last: now, busy: 1, init: true}
	g.byID[id] = s
	mine[id] = s
	g.mu.Unlock()
	g.finish(evicted)
}

// longestIdle picks the session to evict: idle ones before busy ones, then
// the oldest last activity. A session whose initialize is running is never
// picked, since mcp-go registers it only after answering.
func longestIdle(sessions map[string]*liveSession) *liveSession {
	var best *liveSession
	for _, s := range sessions {
		if s.init {
			continue
		}
		if best == nil || idler(s, best) {
			best = s
		}
	}
	return best
}

// idler reports whether a is a better eviction victim than b.
func idler(a, b *liveSession) bool {
	if (a.busy > 0) != (b.busy > 0) {
		return a.busy == 0
	}
	if !a.last.Equal(b.last) {
		return a.last.Before(b.last)
	}
	return a.seq < b.seq
}

// ending is a session removed from the registry, with the cancel of its
// event stream taken under the lock.
type ending struct {
	s      *liveSession
	stream context.CancelFunc
}

func (g *sessionRegistry) removeLocked(s *liveSession) ending {
	delete(g.byID, s.id)
	if mine := g.byToken[s.token]; mine != nil {
		delete(mine, s.id)
		if len(mine) == 0 {
			delete(g.byToken, s.token)
		}
	}
	e := ending{s: s, stream: s.stream}
	s.stream = nil
	return e
}

// finish closes the event streams of removed sessions and has mcp-go free
// their state; called without the lock.
func (g *sessionRegistry) finish(ended []ending) {
	for _, e := range ended {
		if e.stream != nil {
			e.stream()
		}
		g.release(e.s)
	}
}

// expiredLocked reports whether s has been idle for the idle time.
func (g *sessionRegistry) expiredLocked(s *liveSession, now time.Time) bool {
	return s.busy == 0 && now.Sub(s.last) >= g.idle
}

// begin marks a request on a session: the session must exist, belong to
// this token and endpoint, and not have expired (an expired one is ended
// now, so expiry is exact whatever the sweep's pace). A GET is the
// session's event stream: one at a time, and stream cancels it when the
// session ends.
func (g *sessionRegistry) begin(id, token string, ep *endpoint, now time.Time, stream context.CancelFunc) (*liveSession, error) {
	g.mu.Lock()
	s := g.byID[id]
	if s == nil || s.token != token || s.endpoint != ep {
		g.mu.Unlock()
		return nil, errNoSession
	}
	if g.expiredLocked(s, now) {
		e := g.removeLocked(s)
		g.mu.Unlock()
		g.finish([]ending{e})
		return nil, errNoSession
	}
	if stream != nil {
		if s.stream != nil {
			g.mu.Unlock()
			return nil, errStreamOpen
		}
		s.stream = stream
	}
	s.busy++
	g.mu.Unlock()
	return s, nil
}

// end marks the end of a request begun with begin (or of the initialize
// that made the session): the idle clock starts again from now.
func (g *sessionRegistry) end(s *liveSession, stream bool, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s.busy--
	s.init = false
	if now.After(s.last) {
		s.last = now
	}
	if stream {
		s.stream = nil
	}
}

// endInit ends the initialize of the session id, if it is still known.
func (g *sessionRegistry) endInit(id string, now time.Time) {
	g.mu.Lock()
	s := g.byID[id]
	g.mu.Unlock()
	if s != nil {
		g.end(s, false, now)
	}
}

// valid reports whether id is a live session of this token and endpoint.
func (g *sessionRegistry) valid(id, token string, ep *endpoint) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.byID[id]
	return s != nil && s.token == token && s.endpoint == ep
}

// terminate ends a session at its client's DELETE (mcp-go frees its own
// state right after): the event stream, if open, is closed.
func (g *sessionRegistry) terminate(id, token string, internal bool) {
	g.mu.Lock()
	s := g.byID[id]
	if s == nil || !internal && s.token != token {
		g.mu.Unlock()
		return
	}
	e := g.removeLocked(s)
	g.mu.Unlock()
	if e.stream != nil {
		e.stream()
	}
}

// sweep ends every session idle for the idle time at now and returns how
// many it ended.
func (g *sessionRegistry) sweep(now time.Time) int {
	g.mu.Lock()
	var ended []ending
	for _, s := range g.byID {
		if g.expiredLocked(s, now) {
			ended = append(ended, g.removeLocked(s))
		}
	}
	g.mu.Unlock()
	g.finish(ended)
	return len(ended)
}

// all ends every session (the server is closing).
func (g *sessionRegistry) all() {
	g.mu.Lock()
	var ended []ending
	for _, s := range g.byID {
		ended = append(ended, g.removeLocked(s))
	}
	g.mu.Unlock()
	g.finish(ended)
}

func (g *sessionRegistry) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.byID)
}

// sweepInterval is how often idle sessions are looked for: a quarter of the
// idle time, between a second and a minute (a sweep is one pass over a map).
func sweepInterval(idle time.Duration) time.Duration {
	return min(max(idle/4, time.Second), time.Minute)
}

// newSessionID is 130 random bits in visible ASCII, as the spec asks.
func newSessionID() string { return "cairn-" + rand.Text() }

// sessionManager is mcp-go's SessionIdManager for one request: it knows the
// request's token and endpoint, so a session id only works for the token
// and at the path that made it (anything else is the spec's 404).
type sessionManager struct {
	reg      *sessionRegistry
	ep       *endpoint
	token    string
	internal bool         // cairn's own DELETE that frees an ended session
	made     *madeSession // where Generate leaves the new id for the request
}

// madeSession carries the id of the session an initialize made back to the
// request that made it, which ends the initialize once mcp-go is done.
type madeSession struct{ id string }

type madeSessionKey struct{}

type internalKey struct{}

func (m sessionManager) Generate() string {
	id := newSessionID()
	m.reg.add(id, m.token, m.ep, time.Now())
	if m.made != nil {
		m.made.id = id
	}
	return id
}

func (m sessionManager) Validate(id string) (bool, error) {
	if !m.reg.valid(id, m.token, m.ep) {
		return false, errNoSession
	}
	return false, nil
}

func (m sessionManager) Terminate(id string) (bool, error) {
	m.reg.terminate(id, m.token, m.internal)
	return false, nil
}

// sessionResolver gives mcp-go a sessionManager per request.
type sessionResolver struct {
	reg *sessionRegistry
	ep  *endpoint
}

func (r sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	m := sessionManager{reg: r.reg, ep: r.ep}
	if req == nil || req.Context().Value(internalKey{}) != nil {
		m.internal = true
		return m
	}
	ctx := req.Context()
	if id, ok := CallerFrom(ctx); ok {
		m.token = id.TokenID
	}
	m.made, _ = ctx.Value(madeSessionKey{}).(*madeSession)
	return m
}
