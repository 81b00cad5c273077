package indexing

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/search"
)

// A Rebuild builds a new index beside the live one (in search.rebuild),
// while the live one goes on answering searches and taking updates, then
// swaps them: the only moment searches wait is the swap (closing the old
// index, renaming two folders, opening the new one, indexing what was
// written meanwhile). The live folder is never written by the build, so
// a Rebuild that fails or is stopped leaves it as it was.
const (
	RebuildSuffix = ".rebuild" // the new index, while it is built
	OldSuffix     = ".old"     // the index it replaced, until deleted
)

// rebuildCloseWait bounds how long the new index's Close waits for
// Bleve's disk writes before the swap (no lock is held then). Run out, the
// index opens in its place with its last batches out of step with its
// manifest, and the swap indexes their notes again while searches wait;
// a stopping vault never waits for it (Discard).
const rebuildCloseWait = 10 * time.Second

// errClosing: the vault began to close during a Rebuild, which stopped.
var errClosing = errors.New("the vault is closing")

// rebuildJob is a Rebuild in progress. dirty are the paths the live
// index's updates took while it built (index.mu guards it): its new index
// holds them as they were when it read them, so the swap indexes them
// again, with their sequence neighbours, whose context holds their text.
type rebuildJob struct {
	dirty map[string]bool
}

// Rebuild rebuilds the search index (Bleve and vectors) from the notes, on a
// vault whose index may be open and in use. progress is told each stage ("index", then "embed") with its notes done of its total. Returns
// when the index and the vectors are complete.
//
// The new index is built in a folder of its own, and its vectors made;
// until it takes the live index's place, searches and recalls answer from
// the live one (up to date with every write, as always, semantic list
// included), and writes go on. The writes made meanwhile are indexed in
// it during the swap, the one moment searches wait. When no index serves
// (never opened, or it failed to open: a damaged folder), searches wait
// for the Rebuild instead, each until its context ends, and the vectors
// are made after the swap. Close stops a Rebuild at
// its next step and leaves the live index as it was. The caller guarantees
// one process holds the index (the host lock); a live folder another
// process has locked is never replaced (search.ErrIndexBusy).
func (k *Keeper) Rebuild(progress func(stage string, done, total int)) error {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	s := k
	s.rebuildMu.Lock()
	defer s.rebuildMu.Unlock()
	serving, claim, err := k.claimRebuild()
	if err == nil {
		err = k.rebuild(serving, progress)
	}
	if claim != nil {
		// The searches that waited use the new index now, or get the
		// error that stands (the one before, or the swap's).
		s.openMu.Lock()
		s.opening = nil
		close(claim)
		s.openMu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("rebuild search index: %w", err)
	}
	return nil
}

// claimRebuild waits for a first open in progress, then says whether an
// index answers searches while the Rebuild builds. When none does, claim
// is what searches wait for until the Rebuild ends (and no first open
// starts meanwhile).
func (k *Keeper) claimRebuild() (serving bool, claim chan struct{}, err error) {
	s := k
	for {
		s.openMu.Lock()
		wait := s.opening
		switch {
		case s.stopping.Load():
			s.openMu.Unlock()
			return false, nil, errClosing
		case wait != nil:
			s.openMu.Unlock()
			<-wait // it stops at its next step when the vault closes
			continue
		case s.ready.Load():
			s.openMu.Unlock()
			return true, nil, nil
		}
		claim = make(chan struct{})
		s.opening = claim
		s.openMu.Unlock()
		return false, claim, nil
	}
}

// rebuild builds the new index, makes its vectors when an index serves
// meanwhile, swaps it in, then waits for the long notes and vectors that
// the swap's catch-up queued.
func (k *Keeper) rebuild(serving bool, progress func(string, int, int)) error {
	s := k
	// The build's collector setting (leangc.go) holds through the save,
	// the swap and the vectors after it: restored when the build ended,
	// the heap grew into a big heap's 50 % there, the highest point of a
	// 100,000-note rebuild (docs/benchmarks-history.md, "The end of a build").
	defer LeanGC()()
	live := k.cfg.Dir
	side := live + RebuildSuffix
	if s.ix.Load() == nil {
		// No index of this process holds the live folder: hold its lock,
		// so the folder of another process's index is never replaced.
		release, err := lockIndexDir(live)
		if err != nil {
			return err
		}
		defer release()
	}
	if err := k.removeLeftovers(); err != nil {
		return err
	}
	emb, notice := k.cfg.Embedder()
	nix, err := search.Open(side, k.options(emb, rebuildCloseWait))
	if err != nil {
		return err
	}
	job := &rebuildJob{dirty: map[string]bool{}}
	s.mu.Lock()
	s.job = job
	s.mu.Unlock()
	err = k.buildInto(nix, serving, progress)
	if err == nil && serving {
		err = k.waitEmbedded(nix, progress)
	}
	if err == nil && s.stopping.Load() {
		err = errClosing
	}
	if err != nil {
		k.dropRebuild(nix, side)
		return err
	}
	// Saved and closed before the swap, which holds the searches.
	if err := nix.Close(); err != nil {
		k.cfg.Logf("search index: %v", err) // opened again, it is checked
	}
	if err := k.swapIndex(side, emb, notice, job); err != nil {
		return err
	}
	if err := os.RemoveAll(live + OldSuffix); err != nil {
		k.cfg.Logf("search index: remove the replaced index: %v", err)
	}
	k.WaitLane()
	ix := s.ix.Load()
	if err := k.waitEmbedded(ix, progress); err != nil {
		return err
	}
	if s.stopping.Load() {
		return errClosing // the lane stopped before its queue was done
	}
	err = ix.Persist()
	if TestHooks.Rebuilt != nil {
		TestHooks.Rebuilt()
	}
	return err
}

// dropRebuild gives a Rebuild's new index up: its folder is deleted, and
// the live index's updates stop telling it what they change.
func (k *Keeper) dropRebuild(nix *search.Index, side string) {
	k.mu.Lock()
	k.job = nil
	k.mu.Unlock()
	if err := nix.Discard(); err != nil {
		k.cfg.Logf("search index: %v", err)
	}
	if err := os.RemoveAll(side); err != nil {
		k.cfg.Logf("search index: remove the unfinished rebuild: %v", err)
	}
}

// buildInto indexes every note into nix, a new index no search uses
// yet: the notes up to LargeNoteBytes in steps of Step, then the
// long ones one at a time (here, not in the lane: the Rebuild returns
// with them indexed), telling progress ("index"). It holds no lock of
// the live index. When an index serves searches meanwhile, each step lets
// the running ones go first (at most laneYield), as the lane does. Close
// stops it at its next step.
func (k *Keeper) buildInto(nix *search.Index, serving bool, progress func(string, int, int)) error {
	short, long := k.notes.AllBySize()
	total, done := len(short)+len(long), 0
	next := func(n int) error {
		if n > 0 {
			done += n
			progress("index", done, total)
			if TestHooks.Rebuild != nil {
				TestHooks.Rebuild(done, total)
			}
		}
		if k.stopping.Load() {
			return errClosing
		}
		if serving {
			k.yieldToSearches()
		}
		return nil
	}
	if err := next(0); err != nil {
		return err
	}
	st := k.stepsOf(nix, short)
	defer st.stop()
	for i := 0; i < len(short); i += Step {
		FollowBuild(i, len(short))
		_, step, err := st.step(i)
		if err != nil {
			return err
		}
		if err := nix.ApplyPrepared(step); err != nil {
			return err
		}
		if err := next(min(Step, len(short)-i)); err != nil {
			return err
		}
	}
	for _, p := range long {
		// Unreadable: left out, as an ordinary update leaves it out.
		if d, err := k.notes.Doc(p); err == nil {
			if err := nix.ApplyLarge(d); err != nil {
				return err
			}
		}
		if err := next(1); err != nil {
			return err
		}
	}
	return nil
}

// waitEmbedded waits until ix has every vector it is waiting for,
// telling progress ("embed"); Close ends the wait. An embedder that does
// not answer makes it wait until it does (it is retried) or Close.
func (k *Keeper) waitEmbedded(ix *search.Index, progress func(string, int, int)) error {
	total := ix.VectorsPending()
	for n := total; n > 0; n = ix.VectorsPending() {
		if k.stopping.Load() {
			return errClosing
		}
		total = max(total, n)
		progress("embed", total-n, total)
		time.Sleep(50 * time.Millisecond)
	}
	if total > 0 {
		progress("embed", total, total)
	}
	return nil
}

// swapIndex puts the index built in side in the live index's place. With
// the lane paused, no search running (useMu) and no update (mu): the live
// index is dropped, the folders swapped, the new index opened in its
// place and brought up to date: the notes written while it was built
// (job), their sequence neighbours, and every note whose version or scope
// it does not hold. It fails only if the folders cannot be swapped or the
// index opened; then no index serves until the next Rebuild or restart.
func (k *Keeper) swapIndex(side string, emb search.Embedder, notice string, job *rebuildJob) error {
	s := k
	live := k.cfg.Dir
	k.pauseLane()
	defer k.resumeLane()
	s.useMu.Lock()
	defer s.useMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.job = nil
	if s.closed || s.stopping.Load() {
		if err := os.RemoveAll(side); err != nil {
			k.cfg.Logf("search index: remove the unfinished rebuild: %v", err)
		}
		return errClosing
	}
	if old := s.ix.Load(); old != nil {
		if err := old.Discard(); err != nil {
			k.cfg.Logf("search index: %v", err)
		}
	}
	ix, err := swapFolders(live, side, k.options(emb, 0))
	if err != nil {
		s.ix.Store(nil)
		s.openMu.Lock()
		s.ready.Store(false)
		s.err = fmt.Errorf("search index: %w (`cairn reindex` or a restart builds it again)", err)
		s.openMu.Unlock()
		return err
	}
	s.ix.Store(ix)
	force := map[string]bool{}
	for p := range job.dirty {
		force[p] = true
		for _, q := range ix.Sequence(p) {
			force[q] = true
		}
	}
	err = k.syncLocked(ix, true, force)
	ix.QueueMissingVectors()
	s.openMu.Lock()
	s.notice, s.err = notice, err
	s.ready.Store(err == nil)
	s.openMu.Unlock()
	return err
}

// swapFolders moves the live index's folder aside (to live.old, deleted
// later) and the new one, closed, in its place, and opens it there.
func swapFolders(live, side string, opts search.Options) (*search.Index, error) {
	if err := os.Rename(live, live+OldSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("move the replaced index aside: %w", err)
	}
	if err := os.Rename(side, live); err != nil {
		return nil, fmt.Errorf("move the new index in place: %w", err)
	}
	return search.Open(live, opts)
}

// removeLeftovers deletes the folders a Rebuild stopped by a crash left
// (its unfinished index, the index it replaced), unless a process holds
// them (search.ErrIndexBusy).
func (k *Keeper) removeLeftovers() error {
	for _, dir := range []string{k.cfg.Dir + RebuildSuffix, k.cfg.Dir + OldSuffix} {
		release, err := lockIndexDir(dir)
		if err != nil {
			return err
		}
		err = os.RemoveAll(dir)
		release()
		if err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
	}
	return nil
}

// lockIndexDir takes the lock of the index in dir (search.LockFile), for
// a Rebuild when no index of this process holds it: another process that
// holds it makes the Rebuild fail with search.ErrIndexBusy. Without an
// index there, there is nothing to take. release gives it back.
func lockIndexDir(dir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, search.LockFile), os.O_RDWR, 0)
	if err != nil {
		return func() {}, nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s (stop the other cairn process first)", search.ErrIndexBusy, dir)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// RebuildsDone returns once no Rebuild runs (one that starts later is
// not waited for).
func (k *Keeper) RebuildsDone() {
	k.rebuildMu.Lock()
	defer k.rebuildMu.Unlock()
}
