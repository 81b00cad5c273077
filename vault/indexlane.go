package vault

import (
	"errors"
	"sort"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/search"
)

// largeNoteBytes: a note whose file is longer is indexed in the
// background, one at a time (search.ApplyLarge), instead of by the update
// a search or a write waits for. Indexing costs about 0.2 s per MiB of
// text per language, so a note of this size costs a waiting search a few
// milliseconds at most; a 1 MiB one would cost it half a second, and
// several of them seconds. Until such a note is indexed, searches run
// without it (SearchResult.IndexPending counts them).
const largeNoteBytes = 64 << 10

// indexLane is the background lane of long notes. A path in it (queued or
// being indexed) goes on being updated through it only, so its updates
// keep their order.
// laneYield bounds how long the lane lets searches go first before each
// note: on a 2-core machine a note's analysis takes one core for up to a
// few hundred milliseconds, and a search running beside it loses half its
// parallel scan. Under a constant stream of searches the lane still
// indexes about one long note a second.
const laneYield = time.Second

type indexLane struct {
	queued  map[string]bool // path → index even at the same version (its neighbours' text changed)
	current string          // being indexed
	idle    chan struct{}   // closed when the worker stops; nil while none runs
	// paused: a Rebuild is swapping the index, so the worker stops after
	// its note and none starts; what is queued waits (pauseLane).
	paused atomic.Bool
}

// laneHook, set by tests only, runs when the lane has read a note and
// before Bleve analyses it: a test holds the lane there to show what does
// not wait for it, and that a newer version is not overtaken.
var laneHook func(path string)

// isLarge says whether a catalog entry is indexed in the lane.
func isLarge(e *catEntry) bool { return e != nil && e.Size > largeNoteBytes }

// inLane says whether p is queued or being indexed in the lane.
func (v *Vault) inLane(p string) bool {
	v.index.laneMu.Lock()
	defer v.index.laneMu.Unlock()
	l := &v.index.lane
	return l.queued[p] || l.current == p
}

// queueLarge hands paths to the lane and starts its worker if needed;
// force re-indexes them even when their version is indexed already.
func (v *Vault) queueLarge(paths []string, force bool) {
	if len(paths) == 0 {
		return
	}
	s := &v.index
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
	v.startLane()
}

// startLane starts the lane's worker unless one runs, the lane is paused
// or nothing is queued. The caller holds laneMu.
func (v *Vault) startLane() {
	l := &v.index.lane
	if l.idle == nil && !l.paused.Load() && len(l.queued) > 0 {
		l.idle = make(chan struct{})
		go v.runLane(l.idle)
	}
}

// pauseLane stops the lane's worker after the note it is indexing, and
// starts none until resumeLane; what is queued stays queued. A Rebuild's
// swap closes the index the worker writes to.
func (v *Vault) pauseLane() {
	v.index.laneMu.Lock()
	v.index.lane.paused.Store(true)
	v.index.laneMu.Unlock()
	v.waitLane()
}

// resumeLane starts the lane again after pauseLane, on the index in place
// now (unless the vault is closing).
func (v *Vault) resumeLane() {
	s := &v.index
	s.laneMu.Lock()
	defer s.laneMu.Unlock()
	s.lane.paused.Store(false)
	if !s.stopping.Load() {
		v.startLane()
	}
}

// runLane indexes the queued paths one at a time, in order, until none
// is left or the vault closes.
func (v *Vault) runLane(idle chan struct{}) {
	s := &v.index
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
		v.yieldToSearches()
		if err := v.indexLarge(p, force); err != nil && !errors.Is(err, search.ErrClosed) {
			SearchLog("search index: %s: %v", p, err)
		}
	}
}

// yieldToSearches waits, at most laneYield, until no search is running
// (or the vault closes, or a Rebuild pauses the lane).
func (v *Vault) yieldToSearches() {
	deadline := time.Now().Add(laneYield)
	for v.index.searching.Load() > 0 && !v.index.stopping.Load() && !v.index.lane.paused.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// searchRuns counts a search (or recall) while it runs, for the lane to
// let it go first; call the returned function when it is done.
func (v *Vault) searchRuns() func() {
	v.index.searching.Add(1)
	return func() { v.index.searching.Add(-1) }
}

// indexLarge brings one path of the lane up to date, then the notes next
// to it in a sequence (their context holds its words).
func (v *Vault) indexLarge(p string, force bool) error {
	// The lane is paused while a Rebuild swaps the index: ix stays open
	// until this note is done.
	ix := v.index.ix.Load()
	if ix == nil {
		return nil // a swap failed: no index until the next Rebuild
	}
	old, prev := ix.Sequence(p), ix.Version(p)
	e := v.entry(p, false)
	switch {
	case e == nil:
		if prev == "" {
			return nil
		}
		if err := ix.Apply(nil, []string{p}); err != nil {
			return err
		}
		return v.reindexNeighbours(p, old)
	case !force && prev == stampVersion(e) && v.sameScope(ix, p):
		return nil
	}
	d, err := v.searchDoc(p)
	if err != nil {
		// Unreadable: left as it was indexed, as ordinary updates leave
		// it; the catalog drops the note when it cannot read it either.
		return nil
	}
	if laneHook != nil {
		laneHook(p)
	}
	if err := ix.ApplyLarge(d); err != nil {
		return err
	}
	if d.Version == prev {
		return nil // only its context changed: its neighbours' did not
	}
	return v.reindexNeighbours(p, append(old, d.Sequence...))
}

// reindexNeighbours re-indexes the sequence neighbours of p, without
// going further (their own neighbours' context did not change): the
// short ones here, under the lock of ordinary updates, the long ones in
// the lane.
func (v *Vault) reindexNeighbours(p string, qs []string) error {
	v.index.mu.Lock()
	defer v.index.mu.Unlock()
	if v.index.closed || v.index.stopping.Load() {
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
	short, long := v.splitLong(v.catalog.bySize(cands))
	v.queueLarge(long, true)
	ix := v.index.ix.Load()
	if ix == nil {
		return nil
	}
	return ix.Apply(v.searchDocs(short), nil)
}

// WaitIndexed waits, at most timeout, until the long notes queued for the
// search index are indexed; it says whether they are. A short-lived
// command (`cairn search`) calls it: it would otherwise close the vault,
// and stop the lane, before they are.
func (v *Vault) WaitIndexed(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() {
		v.waitLane()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// waitLane returns once no worker of the lane runs (for Rebuild, Close,
// and tests).
func (v *Vault) waitLane() {
	for {
		v.index.laneMu.Lock()
		idle := v.index.lane.idle
		v.index.laneMu.Unlock()
		if idle == nil {
			return
		}
		<-idle
	}
}

// indexPending counts the notes in the lane in scopes (the caller's: it
// learns nothing of notes elsewhere).
func (v *Vault) indexPending(scopes []string) int {
	first := 0
	if b := v.index.build.Load(); b != nil {
		first = b.pending(v, scopes)
	}
	paths := v.lanePaths()
	n := 0
	for _, p := range paths {
		s, _, _ := v.scopeOf(p)
		for _, ok := range scopes {
			if s == ok {
				n++
				break
			}
		}
	}
	return first + n
}
