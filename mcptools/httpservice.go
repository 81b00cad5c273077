package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultMaxBody bounds a request body: twice the largest legitimate call,
// create_notes' batch of 8 × vault.MaxNoteBytes (8 MiB) of note bodies, for
// JSON's escaping of newlines, quotes and <>& and the notes' other fields.
// mcp-go reads a body whole and decodes it several times (a 300 MB call
// grew the process by 1.5 GB; one at 16 MiB raises peak RSS by ~115 MiB),
// so this also bounds what one request can cost.
const DefaultMaxBody = 16 * vault.MaxNoteBytes

// BodyReadTimeout bounds how long reading one request body may take (16 MiB
// at about 1 Mbit/s), so a client trickling a body cannot hold a connection
// and its buffer forever. It is set per body, not as the http.Server's
// ReadTimeout, which would also cancel event streams and long tool calls.
const BodyReadTimeout = 2 * time.Minute

// HTTPService serves MCP over Streamable HTTP at /mcp, and each tool family
// at its own path. Before mcp-go sees a request it checks, in this order:
// the Origin (403), the bearer token (401), the body's declared size (413),
// the session (404 unknown or expired, 409 a second event stream), then
// reads the body up to the limit (413). None of the refusals reads the
// body. mcp-go's DNS-rebinding protection (a loopback connection must carry
// a loopback Host) stays on.
type HTTPService struct {
	o        HTTPOptions
	tokens   *TokenStore
	origins  originPolicy
	sessions *sessionRegistry
	mux      *http.ServeMux

	stop      chan struct{}
	closeOnce sync.Once
}

// endpoint is one path and its mcp-go transport, which holds the state of
// the sessions made there.
type endpoint struct {
	path       string
	streamable *server.StreamableHTTPServer
}

// NewHTTPService makes the handler and starts its idle-session sweep; Close
// stops it and ends every session.
func NewHTTPService(s *server.MCPServer, tokens *TokenStore, o HTTPOptions) *HTTPService {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = DefaultSessionIdle
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	h := &HTTPService{o: o, tokens: tokens, mux: http.NewServeMux(), stop: make(chan struct{}),
		origins: originPolicy{allow: o.AllowOrigins, serverHost: serverHostOf(o.Addr), publicHost: publicHostOf(o.PublicURL)}}
	h.sessions = newSessionRegistry(o.SessionIdle, o.MaxSessions, h.release)
	h.mount(s, "/mcp", "")
	// Each family also at its own path, for clients written for a server
	// of that family alone: the token's toolsets narrowed to that one.
	for _, family := range []string{ToolsetTreaisure, ToolsetHindsight} {
		h.mount(s, "/"+family+"/mcp", family)
	}
	go h.sweepEvery(sweepInterval(o.SessionIdle))
	return h
}

func (h *HTTPService) mount(s *server.MCPServer, path, family string) {
	ep := &endpoint{path: path}
	ep.streamable = server.NewStreamableHTTPServer(s,
		server.WithEndpointPath(path),
		// With a public name, cairn makes the DNS-rebinding check itself
		// (originPolicy.hostAllowed), accepting that name too.
		server.WithDisableLocalhostProtection(h.o.PublicURL != ""),
		server.WithSessionIdManagerResolver(sessionResolver{reg: h.sessions, ep: ep}),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if id, ok := CallerFrom(r.Context()); ok {
				if family != "" {
					id.Toolsets = slices.DeleteFunc(slices.Clone(id.Toolsets), func(t string) bool { return t != family })
				}
				return WithCaller(ctx, id)
			}
			return ctx
		}),
	)
	h.mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.serve(ep, w, r) }))
}

func (h *HTTPService) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Mux is the service's router, for other endpoints served beside MCP's
// (the OAuth authorization server's).
func (h *HTTPService) Mux() *http.ServeMux { return h.mux }

// Paths are the MCP endpoints served: /mcp and each family's.
func Paths() []string {
	return []string{"/mcp", "/" + ToolsetTreaisure + "/mcp", "/" + ToolsetHindsight + "/mcp"}
}

// Sessions is the number of live sessions.
func (h *HTTPService) Sessions() int { return h.sessions.count() }

// Close stops the idle sweep and ends every session, closing their event
// streams (so a graceful shutdown does not wait on them).
func (h *HTTPService) Close() {
	h.closeOnce.Do(func() {
		close(h.stop)
		h.sessions.all()
	})
}

func (h *HTTPService) sweepEvery(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case now := <-t.C:
			h.sessions.sweep(now)
		}
	}
}

// serve is the checks in front of mcp-go, in the order HTTPService says.
func (h *HTTPService) serve(ep *endpoint, w http.ResponseWriter, r *http.Request) {
	ok, listed := h.origins.check(r)
	if !ok {
		writeRPCError(w, r, http.StatusForbidden, h.origins.refusal(r))
		return
	}
	if listed && h.origins.cors(w, r) {
		return
	}
	if h.o.PublicURL != "" && !h.origins.hostAllowed(r) {
		writeRPCError(w, r, http.StatusForbidden, fmt.Sprintf("Host %q is not this server's name (DNS-rebinding protection): a connection over loopback must name a loopback address or the host of --public-url", r.Host))
		return
	}
	id, ok := h.authenticate(w, r, ep.path)
	if !ok {
		return
	}
	r = r.WithContext(WithCaller(r.Context(), id))
	if r.Method == http.MethodPost && r.ContentLength > h.o.MaxBody {
		h.tooLarge(w, r)
		return
	}
	// Protocol 2026-07-28 has no sessions: mcp-go serves each of its
	// requests alone, and holds nothing after it.
	if !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		var done func()
		if r, done = h.session(ep, id, w, r); done == nil {
			return
		}
		defer done()
	}
	if r.Method == http.MethodPost {
		body, err := readBody(w, r, h.o.MaxBody)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.tooLarge(w, r)
			return
		}
		if err != nil {
			writeRPCError(w, r, http.StatusBadRequest, fmt.Sprintf("reading the request body: %v", err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	ep.streamable.ServeHTTP(w, r)
}

// session checks the request's Mcp-Session-Id and marks the session busy
// until done is called; done is nil when the request was refused. A
// request without one may only be a POST (an initialize, or mcp-go's own
// 404): the session an initialize makes is recorded by the session manager,
// which leaves its id in the context, and done ends that initialize. A
// GET's context is cancelled when its session ends, closing the stream.
func (h *HTTPService) session(ep *endpoint, id Caller, w http.ResponseWriter, r *http.Request) (_ *http.Request, done func()) {
	sid := r.Header.Get(server.HeaderKeySessionID)
	if sid == "" {
		if r.Method == http.MethodGet || r.Method == http.MethodDelete {
			writeRPCError(w, r, http.StatusBadRequest, "Mcp-Session-Id header required: "+r.Method+" applies to a session; send initialize first")
			return r, nil
		}
		made := &madeSession{}
		return r.WithContext(context.WithValue(r.Context(), madeSessionKey{}, made)), func() {
			if made.id != "" {
				h.sessions.endInit(made.id, time.Now())
			}
		}
	}
	var cancel context.CancelFunc
	if r.Method == http.MethodGet {
		var ctx context.Context
		ctx, cancel = context.WithCancel(r.Context())
		r = r.WithContext(ctx)
	}
	s, err := h.sessions.begin(sid, id.TokenID, ep, time.Now(), cancel)
	if err != nil {
		if cancel != nil {
			cancel()
		}
		if errors.Is(err, errStreamOpen) {
			writeRPCError(w, r, http.StatusConflict, "this session's event stream is already open (one GET stream per session)")
		} else {
			writeRPCError(w, r, http.StatusNotFound, fmt.Sprintf("session not found: it was closed, replaced by newer sessions of this token, or idle for %s; send initialize without Mcp-Session-Id to start a new one", h.o.SessionIdle))
		}
		return r, nil
	}
	return r, func() {
		h.sessions.end(s, cancel != nil, time.Now())
		if cancel != nil {
			cancel()
		}
	}
}

// readBody reads a POST body whole, at most max bytes, within
// BodyReadTimeout. A declared length (already checked against max) is read
// into a buffer of exactly that size; a chunked body grows one up to max.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(BodyReadTimeout)); err == nil {
		defer rc.SetReadDeadline(time.Time{})
	}
	if r.ContentLength >= 0 {
		buf := make([]byte, r.ContentLength)
		_, err := io.ReadFull(r.Body, buf)
		return buf, err
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, max))
}

// tooLarge is the 413, saying the limit and the flag that sets it.
func (h *HTTPService) tooLarge(w http.ResponseWriter, r *http.Request) {
	writeRPCError(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: the limit is %d bytes (%s); cairn serve --max-body sets it", h.o.MaxBody, humanBytes(h.o.MaxBody)))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// writeRPCError answers with an HTTP status and a JSON-RPC error without
// an id (the body was not read), which MCP clients show as the reason.
func writeRPCError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	closeUnread(w, r)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": mcp.INVALID_REQUEST, "message": msg},
	})
}

// closeUnread makes a refusal close the connection when the request has a
// body: net/http would otherwise read up to 256 KiB of it, with no deadline,
// before answering, so a client trickling a body could hold the answer.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}

// release has mcp-go free what it holds for a session cairn ended (expired
// or evicted; its event stream is already closed): the registered session,
// its channels and per-session stores. mcp-go's DELETE path is its only
// way in from outside, so release sends it one, in process.
func (h *HTTPService) release(s *liveSession) {
	req, err := http.NewRequestWithContext(context.WithValue(context.Background(), internalKey{}, true), http.MethodDelete, s.endpoint.path, nil)
	if err != nil {
		return // a constant path and method: cannot fail
	}
	req.Header.Set(server.HeaderKeySessionID, s.id)
	s.endpoint.streamable.ServeHTTP(discard{header: http.Header{}}, req)
}

// discard is the ResponseWriter of release's DELETE.
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}
