package indexing

import (
	"errors"
	"sort"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/search"
)

// laneYield bounds how long the lane lets searches go first before each
// note: on a 2-core machine a note's analysis takes one core for up to a
// few hundred milliseconds, and a search running beside it loses half its
// parallel scan. Under a constant stream of searches the lane still
// indexes about one long note a second.
const laneYield = time.Second

// lane is the background lane of long notes. A path in it (queued or
// being indexed) goes on being updated through it only, so its updates
// keep their order.
type lane struct {
	queued  map[string]bool // path → index even at the same version (its neighbours' text changed)
	current string          // being indexed
	idle    chan struct{}   // closed when the worker stops; nil while none runs
	// paused: a Rebuild is swapping the index, so the worker stops after
	// its note and none starts; what is queued waits (pauseLane).
	paused atomic.Bool
}

// sameScopeNow is sameScope with the vault's scopes now.
func (k *Keeper) sameScopeNow(ix *search.Index, p string) bool {
	scopeOf, _ := k.notes.Scopes()
	return sameScope(ix, scopeOf, p)
}

// inLane says whether p is queued or being indexed in the lane.
func (k *Keeper) inLane(p string) bool {
	k.laneMu.Lock()
	defer k.laneMu.Unlock()
	l := &k.lane
	return l.queued[p] || l.current == p
}

// queueLarge hands paths to the lane and starts its worker if needed;
// force re-indexes them even when their version is indexed already.
func (k *Keeper) queueLarge(paths []string, force bool) {
	if len(paths) == 0 {
		return
	}
	s := k
	s.laneMu.Lock()
	defer s.laneMu.Unlock()
	if s.stopping.Load() {
		return // the next start's sync finds them
	}
	if s.lane.queued == nil {
		s.lane.queued = map[string]bool{}
	}
	for _, p := range paths {
		s.lane.queued[p] = s.lane.queued[p] || force
	}
	k.startLane()
}

// startLane starts the lane's worker unless one runs, the lane is paused
// or nothing is queued. The caller holds laneMu.
func (k *Keeper) startLane() {
	l := &k.lane
	if l.idle == nil && !l.paused.Load() && len(l.queued) > 0 {
		l.idle = make(chan struct{})
		go k.runLane(l.idle)
	}
}

// pauseLane stops the lane's worker after the note it is indexing, and
// starts none until resumeLane; what is queued stays queued. A Rebuild's
// swap closes the index the worker writes to.
func (k *Keeper) pauseLane() {
	k.laneMu.Lock()
	k.lane.paused.Store(true)
	k.laneMu.Unlock()
	k.WaitLane()
}

// resumeLane starts the lane again after pauseLane, on the index in place
// now (unless the vault is closing).
func (k *Keeper) resumeLane() {
	s := k
	s.laneMu.Lock()
	defer s.laneMu.Unlock()
	s.lane.paused.Store(false)
	if !s.stopping.Load() {
		k.startLane()
	}
}

// runLane indexes the queued paths one at a time, in order, until none
// is left or the vault closes.
func (k *Keeper) runLane(idle chan struct{}) {
	s := k
	for {
		s.laneMu.Lock()
		if s.stopping.Load() || s.lane.paused.Load() || len(s.lane.queued) == 0 {
			s.lane.current, s.lane.idle = "", nil
			close(idle)
			s.laneMu.Unlock()
			return
		}
		paths := make([]string, 0, len(s.lane.queued))
		for p := range s.lane.queued {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		p := paths[0]
		force := s.lane.queued[p]
		delete(s.lane.queued, p)
		s.lane.current = p
		s.laneMu.Unlock()
		k.yieldToSearches()
		if err := k.indexLarge(p, force); err != nil && !errors.Is(err, search.ErrClosed) {
			k.cfg.Logf("search index: %s: %v", p, err)
		}
	}
}

// yieldToSearches waits, at most laneYield, until no search is running
// (or the vault closes, or a Rebuild pauses the lane).
func (k *Keeper) yieldToSearches() {
	k.yieldWhile(func() bool { return k.searching.Load() > 0 && !k.lane.paused.Load() }, laneYield)
}

// yieldWhile waits while running says searches run, at most bound and
// not once the vault closes, and returns how long it waited.
func (k *Keeper) yieldWhile(running func() bool, bound time.Duration) time.Duration {
	t0 := time.Now()
	for running() && !k.stopping.Load() && time.Since(t0) < bound {
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(t0)
}

// SearchRuns counts a search (or recall) while it runs, for the lane to
// let it go first; call the returned function when it is done.
func (k *Keeper) SearchRuns() func() {
	k.searching.Add(1)
	return func() { k.searching.Add(-1) }
}

// indexLarge brings one path of the lane up to date, then the notes next
// to it in a sequence (their context holds its words).
func (k *Keeper) indexLarge(p string, force bool) error {
	// The lane is paused while a Rebuild swaps the index: ix stays open
	// until this note is done.
	ix := k.ix.Load()
	if ix == nil {
		return nil // a swap failed: no index until the next Rebuild
	}
	old, prev := ix.Sequence(p), ix.Version(p)
	version, exists := k.notes.Version(p)
	switch {
	case !exists:
		if prev == "" {
			return nil
		}
		if err := ix.Apply(nil, []string{p}); err != nil {
			return err
		}
		return k.reindexNeighbours(p, old)
	case !force && prev == version && k.sameScopeNow(ix, p):
		return nil
	}
	d, err := k.notes.Doc(p)
	if err != nil {
		// Unreadable: left as it was indexed, as ordinary updates leave
		// it; the catalog drops the note when it cannot read it either.
		return nil
	}
	if TestHooks.Lane != nil {
		TestHooks.Lane(p)
	}
	if err := ix.ApplyLarge(d); err != nil {
		return err
	}
	if d.Version == prev {
		return nil // only its context changed: its neighbours' did not
	}
	return k.reindexNeighbours(p, append(old, d.Sequence...))
}

// reindexNeighbours re-indexes the sequence neighbours of p, without
// going further (their own neighbours' context did not change): the
// short ones here, under the lock of ordinary updates, the long ones in
// the lane.
func (k *Keeper) reindexNeighbours(p string, qs []string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || k.stopping.Load() {
		return nil
	}
	var cands []string
	seen := map[string]bool{p: true}
	for _, q := range qs {
		if !seen[q] {
			seen[q] = true
			cands = append(cands, q)
		}
	}
	short, long := k.splitLong(k.notes.BySize(cands))
	k.queueLarge(long, true)
	ix := k.ix.Load()
	if ix == nil {
		return nil
	}
	return ix.Apply(k.docs(short), nil)
}

// WaitIndexed waits, at most timeout, until the long notes queued for the
// search index are indexed; it says whether they are. A short-lived
// command (`cairn search`) calls it: it would otherwise close the vault,
// and stop the lane, before they are.
func (k *Keeper) WaitIndexed(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() {
		k.WaitLane()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// WaitLane returns once no worker of the lane runs (for Rebuild, Close,
// and tests).
func (k *Keeper) WaitLane() {
	for {
		k.laneMu.Lock()
		idle := k.lane.idle
		k.laneMu.Unlock()
		if idle == nil {
			return
		}
		<-idle
	}
}

// Pending counts the notes not in the index yet (the rest of a first
// build, the lane's) in scopes: the caller's, who learns nothing of notes
// elsewhere.
func (k *Keeper) Pending(scopes []string) int {
	scopeOf, _ := k.notes.Scopes()
	first := 0
	if b := k.build.Load(); b != nil {
		if l := k.listing(b); l != nil {
			b = l // not listed yet: every note
		}
		first = b.pending(scopeOf, scopes)
	}
	paths := k.lanePaths()
	n := 0
	for _, p := range paths {
		s, _, _ := scopeOf(p)
		for _, ok := range scopes {
			if s == ok {
				n++
				break
			}
		}
	}
	return first + n
}
