package host

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
)

// openWait bounds how long a request waits at the host for the vault to
// open: it is answered (unavailable, not run) before its front end gives
// up on the host (CallTimeout) and would have to say it may have run.
const openWait = CallTimeout - 15*time.Second

// opened gives the host its vault: the requests waiting for it run.
func (h *Host) opened(v *vault.Vault) {
	h.v, h.local.Vault = v, v
	close(h.ready)
}

// openFailed answers the requests waiting for the vault with err, as
// every later one until the host is drained.
func (h *Host) openFailed(err error) {
	h.openErr = err
	close(h.ready)
}

// awaitVault waits until the vault is open, at once when it is. A request
// that comes while it is being opened waits at most openWait; ok false:
// rep is its answer, and it did not run. One its front end cancels
// meanwhile (opCancel), or whose connection or host ends, is answered
// NotRun. cancelled is the channel startWait gave the request: it is
// closed even when the cancel was read before this goroutine started.
func (h *Host) awaitVault(ctx context.Context, req request, hc *hostConn, cancelled <-chan struct{}) (rep reply, ok bool) {
	ready := false
	select {
	case <-h.ready:
		ready = true
	default:
		t := time.NewTimer(openWait)
		select {
		case <-h.ready:
			ready = true
		case <-cancelled:
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	if !hc.settle(req.ID) || ctx.Err() != nil {
		return reply{ID: req.ID, NotRun: true}, false
	}
	switch {
	case !ready:
		return h.unserved(req, &mcptools.UnavailableError{RetryAfter: 5 * time.Second,
			Reason: fmt.Sprintf("the vault is still being opened after %s: the call did not run", openWait)}), false
	case h.openErr != nil:
		return h.unserved(req, &mcptools.UnavailableError{RetryAfter: time.Second, Reason: "the vault cannot be served: " + h.openErr.Error()}), false
	}
	return reply{}, true
}

// unserved is the answer to a request the host could not run: a tool
// call's result in its family's error format, else an error.
func (h *Host) unserved(req request, err error) reply {
	if req.Op != opCall {
		return reply{ID: req.ID, Error: err.Error()}
	}
	b, merr := json.Marshal(h.local.Reg.Fail(req.Tool, err))
	if merr != nil {
		return reply{ID: req.ID, Error: err.Error()}
	}
	return reply{ID: req.ID, Result: b}
}

// startWait registers request id as read and not started; the channel
// returned is closed when its front end cancels it. It is handed to the
// request's goroutine rather than looked up there: a cancel read before
// that goroutine runs removes the entry, and a lookup would then find
// none and wait for the open regardless.
func (hc *hostConn) startWait(id uint64) <-chan struct{} {
	c := make(chan struct{})
	hc.waitMu.Lock()
	hc.waiting[id] = c
	hc.waitMu.Unlock()
	return c
}

// cancelWait cancels request id if it has not started; a cancel that
// comes later is ignored (the request runs and is answered).
func (hc *hostConn) cancelWait(id uint64) {
	hc.waitMu.Lock()
	if c, ok := hc.waiting[id]; ok {
		delete(hc.waiting, id)
		close(c)
	}
	hc.waitMu.Unlock()
}

// settle starts request id: false when it was cancelled first.
func (hc *hostConn) settle(id uint64) bool {
	hc.waitMu.Lock()
	defer hc.waitMu.Unlock()
	if _, ok := hc.waiting[id]; !ok {
		return false
	}
	delete(hc.waiting, id)
	return true
}
