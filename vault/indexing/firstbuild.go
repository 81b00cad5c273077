package indexing

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/search"
)

// firstBuild is the progress of the first build of a vault's index (a
// fresh clone, a deleted cache: seconds per 10,000 notes). Searches asked
// meanwhile answer from the notes indexed so far instead of waiting for
// the last one, and say how many of the caller's notes are not in yet
// (SearchResult.IndexPending, and a notice).
type firstBuild struct {
	ix      *search.Index
	started func() // called once todo is known (searches wait for it)
	mu      sync.Mutex
	todo    []string     // the notes the build indexes, in order
	done    atomic.Int64 // how many of todo are indexed
	// early is every note, for the searches made before todo is known
	// (listing): a build from nothing makes it before it is known.
	early *firstBuild
	// texts are the unindexed notes' texts the searches read (shared
	// with early).
	texts *scanTexts
	// began is when the build was made; waited is how long it has waited
	// for searches since (letAnswersGo; the build's own goroutine's).
	began  time.Time
	waited time.Duration
}

// indexed is how many notes the build set out to index.
func (b *firstBuild) indexed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.todo)
}

func (b *firstBuild) start(todo []string) {
	b.mu.Lock()
	b.todo, b.early = todo, nil
	b.mu.Unlock()
	b.done.Store(0)
	if b.started != nil {
		b.started()
	}
}

// passed lets go of the texts kept for paths, which the build has
// indexed: a search reads only the notes it has not (scantexts.go), and
// the texts kept from the open for the notes the build reaches last would
// otherwise stay to its end, where its peak is, though no search asked
// for them.
func (b *firstBuild) passed(paths []string) {
	if b.texts == nil {
		return
	}
	for _, p := range paths {
		b.texts.forget(p)
	}
}

// pending is how many notes in scopes are not indexed yet.
func (b *firstBuild) pending(scopeOf ScopeFunc, scopes []string) int {
	b.mu.Lock()
	rest := b.todo[min(int(b.done.Load()), len(b.todo)):]
	b.mu.Unlock()
	ok := make(map[string]bool, len(scopes))
	for _, s := range scopes {
		ok[s] = true
	}
	n := 0
	for _, p := range rest {
		if s, _, _ := scopeOf(p); ok[s] {
			n++
		}
	}
	return n
}

// partialSearch runs q on the index the first build is filling, without
// waiting for it (Options.AnswerDuringBuild), and on the notes it has not
// reached yet, read from disk (scan.go): ok false when no first build
// runs, or one of a single step (the caller waits for it). The result's
// notice says how many notes are not indexed and what was read of them.
func (k *Keeper) partialSearch(ctx context.Context, q search.Query) (*search.Index, *search.Result, bool, error) {
	// The build waits for this search until its scan of the notes not
	// indexed (parallel) is done; the rest (the index's own search, the
	// answer) runs beside the build, which would leave a core idle.
	scanned := sync.OnceFunc(func() { k.answering.Add(-1) })
	k.answering.Add(1)
	defer scanned()
	if TestHooks.Answering != nil {
		TestHooks.Answering()
	}
	b, listed, err := k.answerFrom(ctx)
	if err != nil {
		return nil, nil, true, err
	}
	if b == nil || listed.indexed() <= Step {
		return nil, nil, false, nil // none, or one step: wait for it
	}
	// The notes not indexed yet are read before useMu is taken: a swap
	// never waits for that.
	sc, err := k.scanUnindexed(ctx, b.ix, listed, q)
	scanned()
	if err != nil {
		return nil, nil, true, err
	}
	q.Scanned = sc
	k.useMu.RLock()
	defer k.useMu.RUnlock()
	if k.ix.Load() != b.ix || k.build.Load() != b {
		return nil, nil, false, nil // it ended meanwhile: the index is ready
	}
	res, err := b.ix.Search(ctx, q)
	if err != nil {
		return nil, nil, true, err
	}
	scopeOf, _ := k.notes.Scopes()
	if n := listed.pending(scopeOf, q.Filter.Scopes); n > 0 {
		note := fmt.Sprintf("the search index is still being built: %d of your notes are not in it yet (indexPending)", n)
		if s := scanNotice(res.Scan); s != "" {
			note += "; " + s
		}
		note += "; search again in a few seconds for a complete answer"
		if res.Notice != "" {
			note = res.Notice + "; " + note
		}
		res.Notice = note
	}
	return b.ix, res, true, nil
}

// answerFrom is the first build a search may answer from (b, nil when
// none runs) and its progress as the search sees it (listed): before a
// build from nothing has listed the notes it indexes, every note,
// unindexed (listing). It waits for the open to make its build known,
// and for a build that is not from nothing to list its notes.
func (k *Keeper) answerFrom(ctx context.Context) (b, listed *firstBuild, err error) {
	k.openMu.Lock()
	_, begun, _ := k.startIndexLocked()
	known := k.known
	k.openMu.Unlock()
	b = k.build.Load()
	if begun != nil {
		select {
		case <-begun:
			b = k.build.Load()
		default:
			if b == nil {
				// The open has not made its build known: it does once
				// the catalog is loaded (a search after the vault's open
				// finds it loaded), with every note listed (everyNote).
				if err := waitFor(ctx, known); err != nil {
					return nil, nil, err
				}
				b = k.build.Load()
			}
			// A build from nothing: until it has listed the notes to
			// index, every note is unindexed.
			if listed = k.listing(b); listed == nil {
				if err := waitFor(ctx, begun); err != nil {
					return nil, nil, err
				}
				b = k.build.Load()
			}
		}
	}
	if listed == nil {
		listed = b
	}
	return b, listed, nil
}

// waitFor waits until ch is closed, or ctx ends (an error saying so).
func waitFor(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("search index: still being opened: %w", ctx.Err())
	}
}

// listing is the progress of b, a first build from nothing that has not
// listed its notes yet (nil otherwise): every note, none indexed (early).
// A search then reads them instead of waiting for the build's own list.
func (k *Keeper) listing(b *firstBuild) *firstBuild {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.todo != nil {
		return nil
	}
	return b.early
}

// everyNote is the progress of b, a build from nothing, before it lists
// its notes: every note the vault holds, in the order the build will
// index them, none indexed. The build makes it before it is known
// (openIndex): its own list comes 0.3 s later at 100,000 notes (every
// version compared, the paths sorted, the neighbours gathered), and a
// search made meanwhile, listing the notes itself, waited 0.15 s of that
// for the catalog the build was reading.
func (k *Keeper) everyNote(b *firstBuild) *firstBuild {
	short, long := k.notes.AllBySize()
	todo := append(short, long...)
	slices.Sort(todo)
	return &firstBuild{ix: b.ix, todo: todo, texts: b.texts}
}

// BuildState is the first build's progress, while it runs.
type BuildState struct {
	Index *search.Index // the index it fills
	Todo  []string      // the notes it indexes, in order (nil until known)
	Done  int           // how many of Todo are indexed
	Kept  int           // bytes of the notes' texts kept for its searches (scantexts.go)
}

// Building is the first build's progress, nil when none runs.
func (k *Keeper) Building() *BuildState {
	b := k.build.Load()
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	st := &BuildState{Index: b.ix, Todo: b.todo, Done: int(b.done.Load())}
	if b.texts != nil {
		st.Kept = b.texts.size()
	}
	return st
}

// AnswerFirst bounds how long a first build waits, before each step, for
// the searches answering from its index meanwhile to scan the notes it
// has not indexed (partialSearch): on 2 cores a step's analysis took a
// core from the search's parallel scan, and the fresh clone's first
// answer came after the open and a scan shared with the build. Under a
// constant stream of searches it still indexes a step a second.
var AnswerFirst = laneYield

// answerShare bounds the waits of a build in all: at most AnswerFirst
// and a quarter of its time so far, so that a stream of searches leaves
// it at least three quarters of it. Through a fresh 100,000-note clone's
// build, servebench searches again as soon as an answer comes: waiting
// for every search, the build served a third more of them and took 3-12 %
// longer than its pair (docs/benchmarks.md, "The first search goes
// first").
const answerShare = 4

// letAnswersGo waits while a search answering from b scans the notes not
// indexed, or a call waits for what Config.Yield names, within
// AnswerFirst and b's share of waits.
func (k *Keeper) letAnswersGo(b *firstBuild) {
	if !k.callsWaiting() {
		return
	}
	room := min(AnswerFirst, AnswerFirst+time.Since(b.began)/answerShare-b.waited)
	if room <= 0 {
		return
	}
	if TestHooks.Yielding != nil {
		TestHooks.Yielding()
	}
	b.waited += k.yieldWhile(k.callsWaiting, room)
}

// callsWaiting says whether a search answering from a first build scans
// the notes not indexed, or a call waits for what Config.Yield names.
func (k *Keeper) callsWaiting() bool {
	return k.answering.Load() > 0 || k.cfg.Yield != nil && k.cfg.Yield()
}
