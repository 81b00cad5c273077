package indexing

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/search"
)

// Step is how many notes a build indexes at a time: a step takes a
// fraction of a second, so Close waits for one at most, progress shows,
// and a search during a first build waits for one step at most. The
// step's analysis is most of the build's peak: 250 notes rather than 500
// lowered it from 195–206 to 165–177 MiB at 10,000 notes and from
// 775–785 to 747–777 MiB at 100,000, for a build 0.4–0.9 s longer at
// 10,000 (docs/benchmarks-history.md, "Steps of 250 notes"). A variable
// for tests only.
var Step = 250

// TestHooks are set by tests only, to hold the keeper's work at a known
// point and show what does or does not wait for it.
var TestHooks struct {
	// Build runs before each step of the first build (done notes indexed
	// out of total).
	Build func(done, total int)
	// Lane runs when the lane has read a note and before Bleve analyses
	// it: a test holds the lane there.
	Lane func(path string)
	// Rebuild runs after each step of a Rebuild's build.
	Rebuild func(done, total int)
	// Rebuilt runs at the end of a Rebuild that succeeded, before the
	// build's collector setting is restored.
	Rebuilt func()
	// Opened runs at the end of an index's open, before a build's
	// collector setting is restored.
	Opened func()
	// Publishing runs in an index's open before it makes its build
	// known (a sync asked for meanwhile does nothing).
	Publishing func()
	// Listing runs in an index's open before its first sync lists the
	// notes to index (a first build's searches meanwhile: firstbuild.go).
	Listing func()
	// Persisting runs once an index's open has let the searches waiting
	// go, before it saves what its build made.
	Persisting func()
	// Answering runs when a search begins to answer from a first build's
	// index (partialSearch): a test holds it there.
	Answering func()
	// Yielding runs when a first build waits for such a search (before
	// its list or a step: letAnswersGo).
	Yielding func()
}

// Sync brings the live index up to date: with full, by comparing every
// note's version and scope with the index's; else with the paths the
// vault re-read since the last update. Nothing happens before the index
// is open, while it closes or while the vault still loads its catalog.
func (k *Keeper) Sync(full bool) error {
	if !full && k.openingBuild() {
		// The index's open makes its build known, then syncs in full:
		// that sync does this one's work, after the searches waiting
		// go first. Run now, this one listed every note of a fresh
		// clone beside the open and its first search (0.3 s of CPU at
		// 100,000 notes), and its build was nobody's to report.
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	// Loaded under mu: a Rebuild's swap replaces the index under it.
	ix := k.ix.Load()
	if ix == nil || k.closed || k.stopping.Load() || k.catalogPending() {
		return nil
	}
	return k.syncLocked(ix, full, nil)
}

// openingBuild says the index's open runs and has not made its build
// known yet (firstBuild: the open's own full sync follows).
func (k *Keeper) openingBuild() bool {
	k.openMu.Lock()
	known := k.known
	k.openMu.Unlock()
	if known == nil {
		return false
	}
	select {
	case <-known:
		return false
	default:
		return true
	}
}

// Soon schedules an index update in the background (after a write), so
// the next search finds little left to do.
func (k *Keeper) Soon() {
	if k.ix.Load() == nil || !k.updateScheduled.CompareAndSwap(false, true) {
		return
	}
	go func() {
		time.Sleep(5 * time.Millisecond) // gather a burst of writes
		k.updateScheduled.Store(false)
		if err := k.Sync(false); err != nil {
			k.cfg.Logf("search index: %v", err)
		}
	}()
}

// syncLocked brings ix up to date; the caller holds mu. force (a
// Rebuild's catch-up) are paths indexed again whatever their version,
// with the vault's re-read paths too even when full: notes written while
// the Rebuild built, and their neighbours, whose context in the new index
// may be older than their version.
func (k *Keeper) syncLocked(ix *search.Index, full bool, force map[string]bool) error {
	scopeOf, key := k.notes.Scopes()
	if !k.scopesKnown || key != k.scopesKey {
		// Projects were added, moved or renamed: scopes may have changed.
		full = true
		k.scopesKey, k.scopesKnown = key, true
	}
	paths, stamps := k.pathsToSync(ix, scopeOf, full, force)
	if job := k.job; job != nil {
		for p := range paths {
			job.dirty[p] = true // a Rebuild's new index holds what it read before
		}
	}
	// Long notes, and paths the lane holds, go to the lane.
	var todo, gone, long []string
	for p, exists := range paths {
		switch {
		case !exists:
			gone = append(gone, p)
		case stamps[p].Large:
			long = append(long, p)
		default:
			todo = append(todo, p)
		}
	}
	todo, long = k.splitLong(todo, long)
	gone, long = k.splitLong(gone, long)
	k.queueLarge(long, false)
	if len(todo) == 0 && len(gone) == 0 {
		return nil
	}
	sort.Strings(todo)
	sort.Strings(gone)
	if err := k.apply(ix, todo, gone); err != nil {
		// Not indexed: try these paths again at the next update.
		k.notes.GiveBack(append(todo, gone...))
		return err
	}
	return nil
}

// pathsToSync are the paths syncLocked updates, each with whether the
// vault holds it (else it leaves the index), and the stamps of those it
// holds. The paths changed since the last update are taken from the
// vault: the caller gives them back if it cannot index them.
func (k *Keeper) pathsToSync(ix *search.Index, scopeOf ScopeFunc, full bool, force map[string]bool) (map[string]bool, map[string]Stamp) {
	changed, stamps := k.notes.TakeChanged(force, full)
	out := map[string]bool{}
	if full {
		indexed := ix.Versions()
		for p, st := range stamps {
			ver, ok := indexed[p]
			if !ok || ver != st.Version || !sameScope(ix, scopeOf, p) {
				out[p] = true
			}
		}
		for p := range indexed {
			if _, ok := stamps[p]; !ok {
				out[p] = false
			}
		}
	}
	if !full || force != nil {
		for p := range changed {
			_, out[p] = stamps[p]
		}
	}
	for p := range force {
		_, out[p] = stamps[p]
	}
	return out, stamps
}

// apply indexes todo and removes gone, then re-indexes the sequence
// neighbours of both, before and after the change (their context holds the
// changed notes' words), in steps, so a large first build stops soon
// when the vault closes and never holds every body in memory at once.
func (k *Keeper) apply(ix *search.Index, todo, gone []string) error {
	done := map[string]bool{}
	neighbours := map[string]bool{}
	for _, p := range append(append([]string{}, todo...), gone...) {
		done[p] = true
		for _, q := range ix.Sequence(p) {
			neighbours[q] = true
		}
	}
	if err := ix.Apply(nil, gone); err != nil {
		return err
	}
	b := k.build.Load()
	if b != nil && b.ix == ix {
		b.start(todo)
	}
	st := k.stepsOf(ix, todo)
	defer st.stop()
	for i := 0; i < len(todo); i += Step {
		if k.stopping.Load() {
			return nil // the next start's sync does the rest
		}
		if b != nil && b.ix == ix {
			b.done.Store(int64(i))
			b.passed(todo[max(i-Step, 0):i])
			if TestHooks.Build != nil {
				TestHooks.Build(i, len(todo))
			}
			k.letAnswersGo(b)
		}
		FollowBuild(i, len(todo))
		docs, step, err := st.step(i)
		if err != nil {
			return err
		}
		for _, d := range docs {
			for _, q := range d.Sequence {
				neighbours[q] = true
			}
		}
		if err := ix.ApplyPrepared(step); err != nil {
			return err
		}
	}
	var cands []string
	for q := range neighbours {
		if !done[q] {
			cands = append(cands, q)
		}
	}
	extra, long := k.splitLong(k.notes.BySize(cands))
	k.queueLarge(long, true) // their context changed, not their version
	if len(extra) == 0 {
		return nil
	}
	return ix.Apply(k.docs(extra), nil)
}

// splitLong moves the paths the lane holds from paths to long (which
// holds the large notes already).
func (k *Keeper) splitLong(paths, long []string) ([]string, []string) {
	keep := paths[:0]
	for _, p := range paths {
		if k.inLane(p) {
			long = append(long, p)
		} else {
			keep = append(keep, p)
		}
	}
	return keep, long
}

// sameScope says whether ix holds p with the scope scopeOf gives it now.
func sameScope(ix *search.Index, scopeOf ScopeFunc, p string) bool {
	scope, project, _ := scopeOf(p)
	s, pr, ok := ix.Scope(p)
	return ok && s == scope && pr == project
}

// docs reads and parses paths (in parallel) into index documents; a file
// that cannot be read is left out (the vault's catalog drops it next).
func (k *Keeper) docs(paths []string) []*search.Doc {
	docs := make([]*search.Doc, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.NumCPU(), 8, len(paths)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return
				}
				docs[i], _ = k.notes.Doc(paths[i])
			}
		}()
	}
	wg.Wait()
	out := docs[:0]
	for _, d := range docs {
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}
