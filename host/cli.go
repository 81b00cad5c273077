package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
)

// Client is a command's connection to the process hosting the vault.
type Client struct {
	r *remote
}

// HostPID is the pid of the process hosting the vault.
func (c *Client) HostPID() int { return c.r.hostPID }

// Close ends the connection.
func (c *Client) Close() { c.r.shut() }

// Acquire gives a command the vault: a Client when a process hosts it,
// else the vault itself, opened exclusively (the host lock held until it
// is closed, so no server starts hosting meanwhile: it waits). It tries
// for wait, then names the process holding the vault.
func Acquire(ctx context.Context, root, version string, opts vault.Options, wait time.Duration) (*Client, *vault.Vault, error) {
	sock := SocketPath(root)
	deadline := time.Now().Add(wait)
	opts.Exclusive = true
	for {
		r, err := dial(sock, version)
		if err == nil {
			return &Client{r: r}, nil, nil
		}
		var perr errProtocol
		if errors.As(err, &perr) {
			return nil, nil, perr
		}
		v, err := vault.Open(root, opts)
		if err == nil {
			return nil, v, nil
		}
		if !errors.Is(err, vault.ErrVaultBusy) {
			return nil, nil, err
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("%s holds the vault and does not serve it (tried for %s); run this again when it is done", describePID(HolderPID(root)), wait)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(retry):
		}
	}
}

// errHandover says the host handed over or exited during a command's
// request; the command acquires the vault again and repeats it.
var errHandover = errors.New("the process hosting the vault exited during the request; run the command again")

// request sends one operation with args (nil: none) and decodes the
// host's result into out. A host's error comes back with whatever result
// it sent beside it (a sync's report of what it did before failing).
func (c *Client) request(ctx context.Context, op string, args any, out any, progress func(reply)) error {
	var raw []byte
	if args != nil {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			return err
		}
	}
	rep, err := c.r.do(ctx, request{Op: op, Args: raw}, progress)
	if err != nil {
		return wireErr(err)
	}
	if len(rep.Result) > 0 {
		if err := json.Unmarshal(rep.Result, out); err != nil {
			return fmt.Errorf("the host's answer: %w", err)
		}
	}
	if rep.Error != "" {
		return errors.New(rep.Error)
	}
	return nil
}

// Search runs the command line's search in the host, as the owner.
func (c *Client) Search(ctx context.Context, a vault.SearchArgs) (*vault.SearchResult, error) {
	res := &vault.SearchResult{}
	if err := c.request(ctx, opSearch, a, res, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// Sync runs a sync with a git remote in the host (teamsync.Sync). The
// report comes back even when the sync failed part way.
func (c *Client) Sync(ctx context.Context, o teamsync.Options) (*teamsync.Report, error) {
	res := &teamsync.Report{}
	err := c.request(ctx, opSync, o, res, nil)
	if errors.Is(err, errHandover) {
		return nil, err // no report: the host went away before sending one
	}
	return res, err
}

// Reindex rebuilds the host's search index, telling progress its steps
// (as vault.Reindex does); it returns the number of notes.
func (c *Client) Reindex(ctx context.Context, progress func(stage string, done, total int)) (int, error) {
	tell := func(rep reply) {
		if progress != nil {
			progress(rep.Stage, rep.Done, rep.Total)
		}
	}
	var n int
	if err := c.request(ctx, opReindex, nil, &n, tell); err != nil {
		return 0, err
	}
	return n, nil
}

func wireErr(err error) error {
	if errors.Is(err, errNotRun) || errors.Is(err, errGone) {
		return errHandover
	}
	return err
}

// IsHandover reports whether a Client's request failed because the host
// went away: the request can be made again after a new Acquire.
func IsHandover(err error) bool { return errors.Is(err, errHandover) }

// Probe says which process hosts the vault at root, by greeting it: its
// pid, or 0 when no process serves it.
func Probe(root, version string) int {
	r, err := dial(SocketPath(root), version)
	if err != nil {
		return 0
	}
	defer r.shut()
	return r.hostPID
}
