package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/mcp"
)

// Options configure a Node. When the node hosts the vault, its own
// options (Quiet, NoWatch) are the ones the watcher follows.
type Options struct {
	Root    string // the vault (checked by the caller)
	Version string // cairn's version, told at the greeting
	// Quiet is --commit-after (vault.Options.Quiet); NoWatch turns the
	// watcher off. Both apply while this node hosts.
	Quiet   time.Duration
	NoWatch bool
	// SyncEvery is the hosting process's --sync-every: how often the host
	// syncs the vault through its git remote (startSync). nil leaves it to
	// .cairn/config.yaml (sync.every, off when absent); 0 is off.
	SyncEvery *time.Duration
	// Report receives problems and news: recoveries, taking over, a socket
	// that could not be made. Default: dropped.
	Report func(error)
	// Wait bounds how long a call waits for another process to host the
	// vault (DefaultWait). A call waiting for this process's own open of
	// the vault waits as long as the open takes, bounded by its context.
	Wait time.Duration

	// holdOpen, set by tests, runs once this process holds the host lock,
	// before the rest of the open: the open takes as long as it does.
	holdOpen func()
}

// DefaultWait is how long a call waits for another process to host the
// vault (a command holding it, a host starting), well under clients'
// usual 60 s request timeout.
const DefaultWait = 30 * time.Second

// CallTimeout bounds a call sent to the host: a host that is alive but
// stuck answers nothing, and the client gets an error instead of a hang.
// A call takes milliseconds; the longest wait a call may make on purpose
// is a note being saved (--commit-after, then 2 s).
const CallTimeout = 2 * time.Minute

// Node is one serving process's link to the vault: attached to the host,
// or hosting it. It is the mcptools.Backend of the process's front end.
type Node struct {
	o    Options
	reg  *mcptools.Registry
	sock string

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the node has let go of the vault

	mu      sync.Mutex
	cur     any           // *Host, *remote, or nil while there is neither
	why     error         // why there is none, when it is not a wait
	opening bool          // there is none yet: this process holds the host lock and is opening the vault
	changed chan struct{} // closed and replaced when cur or opening changes

	// awaiting counts the calls waiting in await: a test knows from it
	// that a call has reached its wait (and that its client's cancel can
	// reach it: the MCP server hands tool calls to workers that may start
	// after the next line is read).
	awaiting atomic.Int32
}

// Start begins attaching or hosting in the background and returns at once
// (an MCP client's initialize is answered without waiting for the vault).
// The node lets go of the vault when ctx ends; Done says when it has.
func Start(ctx context.Context, reg *mcptools.Registry, o Options) *Node {
	if o.Report == nil {
		o.Report = func(error) {}
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	n := &Node{o: o, reg: reg, sock: SocketPath(o.Root), done: make(chan struct{}), changed: make(chan struct{})}
	n.ctx, n.cancel = context.WithCancel(ctx)
	go n.loop()
	return n
}

// Close lets go of the vault (handing it over when hosting) and waits
// until it is done.
func (n *Node) Close() {
	n.cancel()
	<-n.done
}

// Done is closed once the node has let go of the vault.
func (n *Node) Done() <-chan struct{} { return n.done }

// Hosting is the vault when this process hosts it, else nil.
func (n *Node) Hosting() *vault.Vault {
	n.mu.Lock()
	defer n.mu.Unlock()
	if h, ok := n.cur.(*Host); ok {
		return h.v
	}
	return nil
}

func (n *Node) set(cur any, why error) {
	n.mu.Lock()
	n.cur, n.why, n.opening = cur, why, false
	close(n.changed)
	n.changed = make(chan struct{})
	n.mu.Unlock()
}

// setOpening says this process now holds the host lock and is opening the
// vault: calls waiting for a host wait for this open instead of Wait.
func (n *Node) setOpening() {
	n.mu.Lock()
	n.opening = true
	close(n.changed)
	n.changed = make(chan struct{})
	n.mu.Unlock()
}

// open opens the vault exclusively (ErrVaultBusy at once when another
// process holds it). Once the host lock is held, the rest of the open
// (seconds in a large vault) is this process's alone: the host listens at
// once, so other processes attach and send their calls, which wait for
// the open at the host (awaitVault), as the calls of this process's own
// client do (await). When the open fails, the calls waiting are answered
// with its error and the host lets go.
func (n *Node) open() (*Host, *vault.Vault, error) {
	var h *Host
	v, err := vault.Open(n.o.Root, vault.Options{Exclusive: true, Quiet: n.o.Quiet, AnswerDuringBuild: true, OpenIndex: true, Locked: func() {
		h = n.listen()
		n.setOpening()
		if n.o.holdOpen != nil {
			n.o.holdOpen()
		}
	}})
	if err != nil && h != nil {
		h.openFailed(err)
		h.drain(DrainBudget)
	}
	return h, v, err
}

// listen makes this process's host and its socket, for the vault being
// opened.
func (n *Node) listen() *Host {
	h := newHost(n.o.Root, n.reg, n.o.Version)
	ln, err := listen(n.sock)
	if err != nil {
		n.o.Report(fmt.Errorf("%w: other cairn processes cannot attach to this one", err))
	} else {
		h.ln = ln
		go h.serve()
	}
	return h
}

// retry is how often a node without a host tries again to attach or host.
const retry = 10 * time.Millisecond

// loop attaches to the host, or hosts, until the node's context ends.
func (n *Node) loop() {
	defer close(n.done)
	defer n.set(nil, errors.New("this process is exiting"))
	said := ""
	tell := func(err error) {
		if err.Error() != said {
			said = err.Error()
			n.o.Report(err)
		}
	}
	for n.ctx.Err() == nil {
		r, err := dial(n.sock, n.o.Version)
		if err == nil {
			tell(fmt.Errorf("attached to %s, which hosts the vault", describePID(r.hostPID)))
			n.set(r, nil)
			select {
			case <-r.gone:
			case <-n.ctx.Done():
				r.shut()
			}
			n.set(nil, nil)
			continue
		}
		var perr errProtocol
		if errors.As(err, &perr) {
			tell(perr)
			n.set(nil, perr)
			n.sleep(time.Second)
			continue
		}
		h, v, err := n.open()
		if err == nil {
			if said != "" {
				n.o.Report(errors.New("took over: this process now hosts the vault"))
			}
			n.host(h, v)
			return
		}
		if errors.Is(err, vault.ErrVaultBusy) {
			n.sleep(retry) // a host starting (not listening yet), or a command holding the vault
			continue
		}
		tell(err)
		n.set(nil, err)
		n.sleep(time.Second)
	}
}

func (n *Node) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-n.ctx.Done():
	}
}

// host serves the vault, just opened, until the node's context ends,
// then hands over.
func (n *Node) host(h *Host, v *vault.Vault) {
	if h == nil { // Locked was not called: not an exclusive open
		h = n.listen()
	}
	// The watcher is counted in before any call runs, so a host stopped
	// right after its first call still commits the edits it found.
	bg, stop := context.WithCancel(context.Background())
	startBackground(bg, v, n.o)
	h.opened(v)
	// The background sync stops as soon as the node lets go (its git
	// commands killed), so it is over by the time the calls have drained.
	synced := startSync(n.ctx, h, n.o)
	n.set(h, nil)
	<-n.ctx.Done()
	h.drain(DrainBudget)
	stop()
	deadline := time.Now().Add(CloseBudget)
	select {
	case <-synced:
	case <-time.After(CloseBudget / 2):
		n.o.Report(errors.New("a background sync has not stopped yet; closing the vault anyway (a move it left half done is finished or dropped by the next process)"))
	}
	CloseWithin(v, time.Until(deadline), n.o.Report)
}

// CallTool runs a call where the vault is: in this process when it hosts,
// else in the host. A call the host did not run, or a read that was in
// progress when the host went away, is sent again to the next host; a
// write in progress then is answered mcptools.UnavailableError (it may
// have landed).
func (n *Node) CallTool(ctx context.Context, id mcptools.Caller, tool string, args json.RawMessage) *mcp.CallToolResult {
	readOnly := false
	if t := n.reg.Get(tool); t != nil {
		readOnly = t.ReadOnly
	}
	deadline := time.Now().Add(n.o.Wait)
	var last any
	for {
		cur, err := n.await(ctx, deadline, last)
		if err != nil {
			return n.reg.Fail(tool, err)
		}
		last = cur
		switch l := cur.(type) {
		case *Host:
			if res, ran := l.callLocal(ctx, id, tool, args); ran {
				return res
			}
		case *remote:
			callCtx, cancel := context.WithTimeout(ctx, CallTimeout)
			rep, err := l.do(callCtx, request{Op: opCall, Claim: id.Claim(), Tool: tool, Args: args}, nil)
			cancel()
			if err == nil {
				return n.result(tool, rep)
			}
			if err := remoteFailure(ctx, err, readOnly, l.hostPID); err != nil {
				return n.reg.Fail(tool, err)
			}
		}
	}
}

// remoteFailure is what a call the host did not answer (err from
// remote.do) tells its client; nil when the call is to be sent to the
// next host: it did not run, or it was a read the host left mid-way.
func remoteFailure(ctx context.Context, err error, readOnly bool, hostPID int) error {
	switch {
	case errors.Is(err, errNotRun):
		return nil
	case errors.Is(err, errGone) && readOnly:
		return nil
	case errors.Is(err, errGone):
		return &mcptools.UnavailableError{MayHaveRun: true, RetryAfter: time.Second,
			Reason: "the process hosting the vault exited during this call; another takes over within seconds. The write may have landed: read the note again before retrying."}
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return &mcptools.UnavailableError{MayHaveRun: !readOnly, RetryAfter: 5 * time.Second,
			Reason: fmt.Sprintf("the process hosting the vault (%s) did not answer within %s", describePID(hostPID), CallTimeout)}
	case ctx.Err() != nil:
		// The host did not answer the cancel within cancelGrace (stuck, or
		// an older host that has no cancel): the call may have run.
		return &mcptools.UnavailableError{MayHaveRun: !readOnly, RetryAfter: time.Second,
			Reason: fmt.Sprintf("the call was cancelled (%v); the process hosting the vault (%s) did not say within %s whether it had run it", ctx.Err(), describePID(hostPID), cancelGrace)}
	}
	return err
}

func (n *Node) result(tool string, rep reply) *mcp.CallToolResult {
	if rep.Error != "" {
		return n.reg.Fail(tool, errors.New(rep.Error))
	}
	res, err := mcp.ParseCallToolResult(&rep.Result)
	if err != nil {
		return n.reg.Fail(tool, fmt.Errorf("the host's answer: %w", err))
	}
	return res
}

// await returns the current link once there is one other than not (the
// one that just failed). It waits for this process's own open of the
// vault as long as that takes, and for another process until deadline;
// either wait ends with ctx, and the call has then not run.
func (n *Node) await(ctx context.Context, deadline time.Time, not any) (any, error) {
	n.awaiting.Add(1)
	defer n.awaiting.Add(-1)
	for {
		n.mu.Lock()
		cur, why, opening, changed := n.cur, n.why, n.opening, n.changed
		n.mu.Unlock()
		if ctx.Err() != nil { // a call its host did not run, cancelled meanwhile, is not sent elsewhere
			return nil, cancelledWaiting(ctx, opening)
		}
		if cur != nil && cur != not {
			return cur, nil
		}
		if cur == nil && why != nil {
			return nil, &mcptools.UnavailableError{RetryAfter: time.Second, Reason: "the vault cannot be served: " + why.Error()}
		}
		wait := time.Until(deadline)
		if opening {
			wait = -1 // no deadline
		} else if wait <= 0 {
			return nil, &mcptools.UnavailableError{RetryAfter: 5 * time.Second,
				Reason: fmt.Sprintf("no process could host the vault within %s: %s holds it", n.o.Wait, describePID(HolderPID(n.o.Root)))}
		}
		if err := sleepUntil(ctx, changed, wait); err != nil {
			return nil, cancelledWaiting(ctx, opening)
		}
	}
}

// sleepUntil waits until changed is closed or wait has passed (never when
// negative); it fails when ctx ends first.
func sleepUntil(ctx context.Context, changed <-chan struct{}, wait time.Duration) error {
	var expired <-chan time.Time
	if wait >= 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-changed:
	case <-expired:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// cancelledWaiting is the answer to a call cancelled (by its client, or as
// the process stops) before the vault was there to run it: nothing ran.
func cancelledWaiting(ctx context.Context, opening bool) error {
	what := "for a process to host the vault"
	if opening {
		what = "for the vault to open"
	}
	return &mcptools.UnavailableError{RetryAfter: time.Second,
		Reason: fmt.Sprintf("the call was cancelled (%v) while it waited %s: it did not run, nothing was changed", ctx.Err(), what)}
}
