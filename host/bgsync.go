package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
)

// SyncAfterWrite is how long HEAD must stay still after a write before the
// host syncs ahead of its period: a write goes out within seconds when the
// vault is quiet, and a burst of writes goes out in one push. Under a
// steady stream of writes the period still applies.
const SyncAfterWrite = 2 * time.Second

// repeatFailure is how often the same failure is said again: a remote
// that stays unreachable is not a line on stderr at every tick, and not
// silence either.
const repeatFailure = 5 * time.Minute

// syncPlan decides the background sync of the host, when it starts
// hosting: the period from flag (the hosting process's --sync-every) when
// given, else from .cairn/config.yaml's sync.every (off when absent);
// remote and branch from the file (teamsync's defaults, origin and the
// checked-out branch, when absent). A bad sync section turns background
// sync off: the error says why.
func syncPlan(root string, flag *time.Duration) (time.Duration, teamsync.Options, error) {
	if flag != nil && *flag == 0 {
		return 0, teamsync.Options{}, nil
	}
	cfg, err := vault.LoadConfig(root)
	if err != nil {
		return 0, teamsync.Options{}, fmt.Errorf("background sync is off: %w", err)
	}
	s, err := cfg.Sync.Settings()
	if err != nil {
		return 0, teamsync.Options{}, fmt.Errorf("background sync is off: %w", err)
	}
	every := s.Every
	if flag != nil {
		every = *flag
	}
	return every, teamsync.Options{Remote: s.Remote, Branch: s.Branch}, nil
}

// startSync starts the host's background sync when its plan says so. It
// stops when ctx ends (the node letting go of the vault: a git command in
// progress is killed, which leaves the vault and the remote as a killed
// sync does, sound); the channel is closed once it has.
func startSync(ctx context.Context, h *Host, o Options) <-chan struct{} {
	done := make(chan struct{})
	every, so, err := syncPlan(h.v.Root(), o.SyncEvery)
	if err != nil {
		o.Report(err)
	}
	if every <= 0 {
		close(done)
		return done
	}
	s := &syncer{v: h.v, o: so, turn: h.syncTurn, report: o.Report,
		clock: syncClock{every: every, afterWrite: min(SyncAfterWrite, every)}}
	o.Report(fmt.Errorf("background sync with %s every %s, and %s after a write",
		describeRemote(h.v.Root(), so), every, s.clock.afterWrite))
	go func() {
		defer close(done)
		s.run(ctx)
	}()
	return done
}

func describeRemote(root string, o teamsync.Options) string {
	r, b := o.Remote, o.Branch
	if r == "" {
		r = "origin"
	}
	if b == "" {
		b = teamsync.CurrentBranch(context.Background(), root)
	}
	return r + " " + b
}

// syncer is the host's background sync.
type syncer struct {
	v      *vault.Vault
	o      teamsync.Options
	turn   turn // one sync at a time in the host: this one or `cairn sync`'s
	report func(error)
	clock  syncClock

	said     map[string]bool // files kept here already said (sayReport)
	failed   string          // the last failure said, "" after a success
	failedAt time.Time       // when it was said
}

// run syncs at once (what came while this process did not host, what was
// written meanwhile), then whenever the clock says so, looking at HEAD
// every second (two small file reads) to notice writes.
func (s *syncer) run(ctx context.Context) {
	t := time.NewTicker(min(time.Second, s.clock.every))
	defer t.Stop()
	for {
		if head, err := s.v.Store().Head(); err == nil {
			s.clock.observe(head, time.Now())
		}
		if s.clock.due(time.Now()) {
			s.syncOnce(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// syncOnce runs one sync and says what needs saying: a failure (it is
// tried again at the next period), the end of failures, and every
// conflict resolved (cairn sync prints those; here stderr is the place).
func (s *syncer) syncOnce(ctx context.Context) {
	if s.turn.take(ctx) != nil {
		return // letting go of the vault
	}
	rep, err := teamsync.Sync(ctx, s.v, s.o)
	s.turn.give()
	if ctx.Err() != nil {
		return // letting go of the vault: the next host syncs
	}
	head, herr := s.v.Store().Head()
	if err == nil && herr != nil {
		err = herr
	}
	now := time.Now()
	s.clock.done(now, head, err == nil)
	for _, c := range landedConflicts(s.v.Root(), rep, err == nil) {
		msg := fmt.Sprintf("sync conflict: %s: %s", c.Path, c.Why)
		if c.Copy != "" {
			msg += "; the other version is kept in " + c.Copy
		}
		s.report(errors.New(msg))
	}
	s.sayReport(rep)
	switch {
	case err != nil:
		if msg := err.Error(); msg != s.failed || now.Sub(s.failedAt) >= repeatFailure {
			s.failed, s.failedAt = msg, now
			s.report(fmt.Errorf("background sync failed, trying again in %s: %w", s.clock.every, err))
		}
	case s.failed != "":
		s.failed = ""
		s.report(errors.New("background sync works again"))
	}
}

// sayReport says on stderr what cairn sync would print besides conflicts:
// access and settings changes that came in and were applied, ids given to
// copied notes, and files kept here and never shared (each of those once
// per process: it is said again by every sync until someone acts).
func (s *syncer) sayReport(rep *teamsync.Report) {
	if rep == nil {
		return
	}
	for _, c := range rep.Settings {
		s.report(fmt.Errorf("settings changed by the sync (applied): %s", c))
	}
	for _, c := range rep.IDs {
		if c.Repaired {
			s.report(fmt.Errorf("sync: %s repeated the id %s of %s; it has its own now, %s", c.Path, c.ID, c.Kept, c.NewID))
		}
	}
	for _, p := range rep.Refused {
		s.report(fmt.Errorf("sync: refused %s from the remote: it belongs to the machine that committed it; left out, and out of the shared branch", p))
	}
	for _, p := range rep.Skipped {
		if s.said == nil {
			s.said = map[string]bool{}
		}
		if !s.said[p] {
			s.said[p] = true
			s.report(fmt.Errorf("sync: kept here, not shared: %s", p))
		}
	}
}

// syncClock says when the next background sync is due: a period after the
// last one, or sooner, afterWrite after HEAD last moved when it moved
// since the last successful sync (a write to push). After a failure only
// the period applies, so a remote that is down is not asked every few
// seconds. It is driven by the times it is given, so its rules are tested
// without waiting.
type syncClock struct {
	every, afterWrite time.Duration

	last   time.Time // when the last sync ended (zero: none yet, due at once)
	ok     bool      // whether it succeeded
	synced string    // HEAD as the last successful sync left it
	seen   string    // HEAD when last looked at
	moved  time.Time // when HEAD was seen to change
}

// observe records HEAD as seen at now.
func (c *syncClock) observe(head string, now time.Time) {
	if head != c.seen {
		c.seen, c.moved = head, now
	}
}

// due says whether a sync is due at now.
func (c *syncClock) due(now time.Time) bool {
	if c.last.IsZero() {
		return true
	}
	next := c.last.Add(c.every)
	if c.ok && c.seen != c.synced {
		from := c.moved
		if from.Before(c.last) {
			from = c.last
		}
		if soon := from.Add(c.afterWrite); soon.Before(next) {
			next = soon
		}
	}
	return !now.Before(next)
}

// done records a sync that ended at now, leaving HEAD at head.
func (c *syncClock) done(now time.Time, head string, ok bool) {
	c.last, c.ok = now, ok
	if ok {
		c.synced = head
		c.observe(head, now)
	}
}

// landedConflicts are the conflicts of rep that are in the vault, each
// path once: a merge made again (a write landed meanwhile) lists its
// conflicts again, the last time being the one that landed; a sync that
// failed may have landed its merge (the push failed) or not (the copy is
// not there).
func landedConflicts(root string, rep *teamsync.Report, ok bool) []teamsync.Conflict {
	if rep == nil {
		return nil
	}
	last := map[string]int{}
	var order []string
	for i, c := range rep.Conflicts {
		if _, seen := last[c.Path]; !seen {
			order = append(order, c.Path)
		}
		last[c.Path] = i
	}
	var out []teamsync.Conflict
	for _, p := range order {
		c := rep.Conflicts[last[p]]
		if c.Copy == "" && !ok {
			continue
		}
		if c.Copy != "" {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(c.Copy))); err != nil {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}
