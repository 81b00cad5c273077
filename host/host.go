package host

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/mark3labs/mcp-go/mcp"
)

// Host is the process holding the vault: it runs the calls of its own
// front end and of every attached one. It listens as soon as it holds the
// host lock, before the vault is open: front ends attach at once, and
// their calls wait here for the open (opening.go).
type Host struct {
	v       *vault.Vault // set when ready is closed, with no openErr
	local   mcptools.Local
	tokens  *mcptools.TokenStore
	version string
	ln      *net.UnixListener // nil when the socket could not be made

	// ctx is given to the calls; it ends when a handover gives up waiting
	// for them.
	ctx    context.Context
	cancel context.CancelFunc

	// syncTurn makes syncs take turns: `cairn sync` run here and the
	// background sync (startSync).
	syncTurn turn

	// ready is closed once the vault is open (v set) or its open failed
	// (openErr set).
	ready   chan struct{}
	openErr error

	mu       sync.Mutex
	conns    map[*hostConn]bool
	draining bool
	inflight sync.WaitGroup
}

// hostConn is one attached front end.
type hostConn struct {
	c       *net.UnixConn
	wmu     sync.Mutex
	enc     *json.Encoder
	drained chan struct{} // closed when the front end answered opDrained
	once    sync.Once

	// waiting holds the requests read and not yet started, each with a
	// channel closed when the front end cancels it (opCancel).
	waitMu  sync.Mutex
	waiting map[uint64]chan struct{}
}

func (hc *hostConn) send(r reply) error {
	hc.wmu.Lock()
	defer hc.wmu.Unlock()
	return hc.enc.Encode(r)
}

// newHost makes the host of the vault at root, which this process is
// opening; opened or openFailed ends the calls' wait for it.
func newHost(root string, reg *mcptools.Registry, version string) *Host {
	ctx, cancel := context.WithCancel(context.Background())
	return &Host{syncTurn: make(turn, 1), local: mcptools.Local{Reg: reg}, tokens: mcptools.NewTokenStore(root),
		version: version, ctx: ctx, cancel: cancel, conns: map[*hostConn]bool{}, ready: make(chan struct{})}
}

// serve accepts front ends until the listener is closed.
func (h *Host) serve() {
	for {
		c, err := h.ln.AcceptUnix()
		if err != nil {
			return
		}
		go h.serveConn(c)
	}
}

// turn is a lock that can be waited for with a context: syncs take turns,
// and one waiting gives up when its caller does.
type turn chan struct{}

func (t turn) take(ctx context.Context) error {
	select {
	case t <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t turn) give() { <-t }

// greetTimeout bounds the greeting: a process that connects and says
// nothing does not hold a goroutine for long.
const greetTimeout = 5 * time.Second

func (h *Host) serveConn(c *net.UnixConn) {
	defer c.Close()
	// The connection's work ends with it: a `cairn sync` that was
	// interrupted (its connection closed) stops its git commands.
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	if checkPeer(c) != nil {
		return
	}
	dec := json.NewDecoder(bufio.NewReader(c))
	hc := &hostConn{c: c, enc: newEncoder(c), drained: make(chan struct{}), waiting: map[uint64]chan struct{}{}}
	c.SetReadDeadline(time.Now().Add(greetTimeout))
	var g greeting
	if dec.Decode(&g) != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	if err := hc.enc.Encode(greeting{Protocol: protocol, PID: os.Getpid(), Version: h.version}); err != nil || g.Protocol != protocol {
		return
	}
	h.mu.Lock()
	if h.draining {
		h.mu.Unlock()
		return
	}
	h.conns[hc] = true
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.conns, hc)
		h.mu.Unlock()
	}()
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			return
		}
		if req.Op == opDrained {
			hc.once.Do(func() { close(hc.drained) })
			continue
		}
		if req.Op == opCancel {
			hc.cancelWait(req.Cancels)
			continue
		}
		if !h.enter() {
			hc.send(reply{ID: req.ID, NotRun: true})
			continue
		}
		cancelled := hc.startWait(req.ID) // before the next request is read: its cancel may follow at once
		go func() {
			defer h.inflight.Done()
			if rep, ok := h.awaitVault(ctx, req, hc, cancelled); !ok {
				hc.send(rep)
				return
			}
			hc.send(h.run(ctx, req, hc))
		}()
	}
}

// enter admits a call unless the host is handing over.
func (h *Host) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.draining {
		return false
	}
	h.inflight.Add(1)
	return true
}

// run answers one request of an attached front end.
func (h *Host) run(ctx context.Context, req request, hc *hostConn) reply {
	switch req.Op {
	case opCall:
		res := h.call(req.Claim, req.Tool, req.Args)
		b, err := json.Marshal(res)
		if err != nil {
			return reply{ID: req.ID, Error: fmt.Sprintf("encode the result of %s: %v", req.Tool, err)}
		}
		return reply{ID: req.ID, Result: b}
	case opSearch:
		return h.search(req)
	case opSync:
		return h.sync(ctx, req)
	case opReindex:
		progress := func(stage string, done, total int) {
			hc.send(reply{ID: req.ID, Op: opProgress, Stage: stage, Done: done, Total: total})
		}
		if err := h.v.Rebuild(progress); err != nil {
			return reply{ID: req.ID, Error: err.Error()}
		}
		b, _ := json.Marshal(h.v.NoteCount())
		return reply{ID: req.ID, Result: b}
	}
	return reply{ID: req.ID, Error: fmt.Sprintf("unknown operation %q", req.Op)}
}

// call runs a tool call for the caller the claim stands for, as this
// host reads the token file now.
func (h *Host) call(claim mcptools.Claim, tool string, args json.RawMessage) *mcp.CallToolResult {
	id, err := mcptools.ResolveClaim(h.tokens, h.v.Owner(), claim)
	if err != nil {
		return h.local.Reg.Fail(tool, fmt.Errorf("%w: %v", vault.ErrForbidden, err))
	}
	return h.local.CallTool(h.ctx, id, tool, args)
}

// callLocal runs a call of this process's own front end; ran is false
// when the host is handing over and did not run it.
func (h *Host) callLocal(ctx context.Context, id mcptools.Caller, tool string, args json.RawMessage) (res *mcp.CallToolResult, ran bool) {
	if !h.enter() {
		return nil, false
	}
	defer h.inflight.Done()
	return h.local.CallTool(ctx, id, tool, args), true
}

// sync runs `cairn sync` here, where the vault is: its writes and the
// server's are one writer's (gitstore's write lock).
func (h *Host) sync(ctx context.Context, req request) reply {
	var o teamsync.Options
	if err := json.Unmarshal(req.Args, &o); err != nil {
		return reply{ID: req.ID, Error: fmt.Sprintf("sync arguments: %v", err)}
	}
	if err := h.syncTurn.take(ctx); err != nil {
		return reply{ID: req.ID, Error: fmt.Sprintf("sync: waiting for the sync in progress: %v", err)}
	}
	rep, err := teamsync.Sync(ctx, h.v, o)
	h.syncTurn.give()
	b, _ := json.Marshal(rep)
	r := reply{ID: req.ID, Result: b}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

func (h *Host) search(req request) reply {
	var a vault.SearchArgs
	if err := json.Unmarshal(req.Args, &a); err != nil {
		return reply{ID: req.ID, Error: fmt.Sprintf("search arguments: %v", err)}
	}
	caller := access.Caller{Principal: h.v.Owner(), Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn search"}
	res, err := h.v.Search(h.ctx, caller, a)
	if err != nil {
		return reply{ID: req.ID, Error: err.Error()}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return reply{ID: req.ID, Error: err.Error()}
	}
	return reply{ID: req.ID, Result: b}
}

// drain hands over: no new connection or call is taken (calls not started
// are answered "not run"), the calls in progress finish (within wait; then
// their context ends), each front end is told, and the connections close
// once they answered (or wait is over). The caller then closes the vault,
// which releases the host lock.
func (h *Host) drain(wait time.Duration) {
	deadline := time.Now().Add(wait)
	h.mu.Lock()
	h.draining = true
	conns := make([]*hostConn, 0, len(h.conns))
	for hc := range h.conns {
		conns = append(conns, hc)
	}
	h.mu.Unlock()
	if h.ln != nil {
		h.ln.Close() // removes the socket: front ends now wait for the next host
	}
	for _, hc := range conns {
		hc.send(reply{Op: opDrain})
	}
	done := make(chan struct{})
	go func() {
		h.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
		h.cancel()
	}
	for _, hc := range conns {
		select {
		case <-hc.drained:
		case <-time.After(time.Until(deadline)):
		}
		hc.c.Close()
	}
	h.cancel()
}
