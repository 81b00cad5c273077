package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// remote is a front end's connection to the host.
type remote struct {
	c       net.Conn
	hostPID int

	// mu guards the fields below and the writes: a request is registered
	// and written under it, so a request is on the wire before the
	// opDrained that follows it, and the host answers every request it
	// read before that.
	mu       sync.Mutex
	enc      *json.Encoder
	pending  map[uint64]*pendingCall
	nextID   uint64
	draining bool
	closed   bool
	gone     chan struct{} // closed when the connection ended
}

type pendingCall struct {
	done     chan reply
	progress func(reply)
}

var (
	// errNotRun: the host did not run the call; send it to the next host.
	errNotRun = errors.New("not run")
	// errGone: the host went away during the call, which may have run.
	errGone = errors.New("the process hosting the vault exited during the call")
)

// errProtocol: the host speaks another protocol (another cairn binary).
type errProtocol struct{ host greeting }

func (e errProtocol) Error() string {
	return fmt.Sprintf("the vault is hosted by %s, a cairn %s speaking protocol %d; this cairn speaks %d: restart the older one's clients",
		describePID(e.host.PID), e.host.Version, e.host.Protocol, protocol)
}

// dial connects to the host listening at path and greets it.
func dial(path, version string) (*remote, error) {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return nil, err
	}
	enc := newEncoder(c)
	dec := json.NewDecoder(bufio.NewReader(c))
	c.SetDeadline(time.Now().Add(greetTimeout))
	var g greeting
	if err := enc.Encode(greeting{Protocol: protocol, PID: os.Getpid(), Version: version}); err != nil {
		c.Close()
		return nil, err
	}
	if err := dec.Decode(&g); err != nil {
		c.Close()
		return nil, fmt.Errorf("greeting from the host: %w", err)
	}
	c.SetDeadline(time.Time{})
	if g.Protocol != protocol {
		c.Close()
		return nil, errProtocol{g}
	}
	r := &remote{c: c, hostPID: g.PID, enc: enc, pending: map[uint64]*pendingCall{}, gone: make(chan struct{})}
	go r.readLoop(dec)
	return r, nil
}

func (r *remote) readLoop(dec *json.Decoder) {
	defer r.shut()
	for {
		var rep reply
		if err := dec.Decode(&rep); err != nil {
			return
		}
		switch rep.Op {
		case opDrain:
			r.mu.Lock()
			r.draining = true
			r.enc.Encode(request{Op: opDrained})
			r.mu.Unlock()
			continue
		case opProgress:
			r.mu.Lock()
			pc := r.pending[rep.ID]
			r.mu.Unlock()
			if pc != nil && pc.progress != nil {
				pc.progress(rep)
			}
			continue
		}
		r.mu.Lock()
		pc := r.pending[rep.ID]
		delete(r.pending, rep.ID)
		r.mu.Unlock()
		if pc != nil {
			pc.done <- rep
		}
	}
}

// shut ends the connection: the calls still waiting learn the host is gone.
func (r *remote) shut() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	r.mu.Unlock()
	r.c.Close()
	close(r.gone)
}

// do sends a request and waits for its answer. errNotRun: it was not run
// (send it again elsewhere); errGone: the host went away meanwhile.
func (r *remote) do(ctx context.Context, req request, progress func(reply)) (reply, error) {
	pc := &pendingCall{done: make(chan reply, 1), progress: progress}
	r.mu.Lock()
	if r.draining || r.closed {
		r.mu.Unlock()
		return reply{}, errNotRun
	}
	r.nextID++
	req.ID = r.nextID
	r.pending[req.ID] = pc
	err := r.enc.Encode(req) // a request always encodes: what fails is the write
	r.mu.Unlock()
	if err != nil {
		// Nothing whole reached the host, which runs only whole requests.
		r.forget(req.ID)
		r.shut()
		return reply{}, errNotRun
	}
	select {
	case rep := <-pc.done:
		return answered(rep)
	case <-r.gone:
		select {
		case rep := <-pc.done:
			return answered(rep)
		default:
			return reply{}, errGone
		}
	case <-ctx.Done():
		return r.cancel(ctx, req.ID, pc)
	}
}

// cancelGrace bounds the wait for the host's answer to a cancel.
const cancelGrace = 2 * time.Second

// cancel tells the host that request id's client gave up. The host answers
// it: not run when it was still waiting for the vault to open, else with
// its result. That answer is the call's, so a client is never told a call
// did not run when it did; a host that does not answer within cancelGrace
// (stuck, or an older one that ran the call) leaves ctx's error.
func (r *remote) cancel(ctx context.Context, id uint64, pc *pendingCall) (reply, error) {
	r.mu.Lock()
	sent := false
	if !r.closed {
		r.nextID++ // the cancel's own id: an older host answers it "unknown operation", dropped
		sent = r.enc.Encode(request{ID: r.nextID, Op: opCancel, Cancels: id}) == nil
	}
	r.mu.Unlock()
	if sent {
		t := time.NewTimer(cancelGrace)
		defer t.Stop()
		select {
		case rep := <-pc.done:
			return answered(rep)
		case <-r.gone:
		case <-t.C:
		}
	}
	r.forget(id)
	select {
	case rep := <-pc.done:
		return answered(rep)
	default:
		return reply{}, ctx.Err()
	}
}

func answered(rep reply) (reply, error) {
	if rep.NotRun {
		return rep, errNotRun
	}
	return rep, nil
}

func (r *remote) forget(id uint64) {
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
}
