package indexing

// Opening the search index: on the first search or at a server's start,
// once per process (again after a Rebuild with no index to answer from).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/internal/notefile"
	"github.com/cairn-dev/cairn/search"
)

// Index opens the search index (on the first call), brings it up to date
// with the notes, queues the vectors that are missing, and returns it;
// a caller stops waiting when ctx ends: a search asked while the index is
// being built (seconds per 10,000 notes), by the first open or by a
// Rebuild with no index to answer from, must not hold a shutdown up (the
// build goes on). A Rebuild closes the index it replaces: use what this
// returns for a call, do not keep it.
func (k *Keeper) Index(ctx context.Context) (*search.Index, error) {
	s := k
	for {
		if s.ready.Load() {
			if ix := s.ix.Load(); ix != nil {
				return ix, nil
			}
		}
		s.openMu.Lock()
		wait, _, err := k.startIndexLocked()
		s.openMu.Unlock()
		if wait == nil {
			if err != nil {
				return nil, err
			}
			continue // ready meanwhile
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, fmt.Errorf("search index: still being built: %w", ctx.Err())
		}
	}
}

// startIndexLocked starts the first open of the index unless it runs,
// is done or failed, and returns the open's channels (opening, begun:
// nil when none runs) and why there is no index. The caller holds openMu.
func (k *Keeper) startIndexLocked() (wait, begun chan struct{}, err error) {
	s := k
	wait, begun, err = s.opening, s.begun, s.err
	if wait == nil && err == nil && !s.ready.Load() {
		if s.stopping.Load() {
			return nil, nil, errClosed
		}
		wait, begun, known := make(chan struct{}), make(chan struct{}), make(chan struct{})
		s.opening, s.begun, s.known = wait, begun, known
		s.opens.Go(func() { k.openIndex(wait, begun, known) })
	}
	return wait, begun, err
}

// openIndex opens the index in its folder, brings it up to date with
// every note and queues the missing vectors; then it ends the wait of
// the searches (done). known is closed once the build is made known
// (build), begun once it knows what it indexes (or the open ends).
func (k *Keeper) openIndex(done, begun, known chan struct{}) {
	announce := sync.OnceFunc(func() { close(begun) })
	defer announce()
	tell := sync.OnceFunc(func() { close(known) })
	defer tell()
	if err := k.removeLeftovers(); err != nil {
		k.cfg.Logf("search index: %v", err)
	}
	emb, notice := k.cfg.Embedder()
	// A build's collector setting lasts until what the build left is
	// returned below: the save that follows the build allocates, and with
	// the setting restored first (50 % for a big heap, 100 % for a small
	// one), the heap grew into the wider headroom there: the build's
	// highest point at 100,000 notes (issue 16: docs/benchmarks-history.md, "The
	// end of a build").
	restore := func() {}
	defer func() { restore() }()
	ix, err := search.Open(k.cfg.Dir, k.options(emb, 0))
	if err == nil {
		k.ix.Store(ix)
	}
	if cerr := k.awaitCatalog(); err == nil {
		err = cerr
	}
	// Taken whatever follows: the vault holds them until then.
	opened := k.notes.OpenTexts()
	if err == nil {
		restore, err = k.bringUpToDate(ix, opened, announce, tell)
	}
	k.endOpen(notice, err, done)
	if err == nil && (ix.Rebuilt() != "" || ix.Reconciled() > 0) {
		// Save the manifest of what was just built now rather than at the
		// next periodic save: a process killed before it would leave no
		// manifest, and the next one would build everything again instead
		// of bringing this index up to date (search/reconcile.go). Once
		// the searches waiting were let go: the manifest and vectors of
		// 100,000 notes took 1.2 s to write (0.1 s at 10,000), which the
		// search that met the build's end waited for. Close waits for it
		// (opens).
		if TestHooks.Persisting != nil {
			TestHooks.Persisting()
		}
		if perr := ix.Persist(); perr != nil {
			k.cfg.Logf("search index: %v", perr)
		}
	}
	// What the open freed (a first build's note texts and Bleve batches,
	// a warm start's decoded vector file) would stay resident: the Go
	// runtime keeps freed heap up to its next GC goal, twice the live heap
	// (issue 16 measured 50 to 110 MiB of it at 10,000 notes). Once per
	// open, after the searches waiting were let go. Not when the vault is
	// closing: Close waits for the open's end, and that collection (75–80
	// ms of marking at 100,000 notes, then the pages given back) would
	// only delay a shutdown.
	if !k.stopping.Load() {
		debug.FreeOSMemory()
	}
	if TestHooks.Opened != nil {
		TestHooks.Opened()
	}
}

// bringUpToDate is the open's build: it publishes the build (announce once
// it knows what it indexes, tell once it is known), syncs the index ix
// with every note (opened: the texts the vault read as it opened), and
// queues the missing vectors. restore ends a build from nothing's
// collector setting, for the caller to call once what the build left is
// returned.
func (k *Keeper) bringUpToDate(ix *search.Index, opened map[string]OpenText, announce, tell func()) (restore func(), err error) {
	restore = func() {}
	b := &firstBuild{ix: ix, started: announce, texts: newScanTexts(opened, k.statNote), began: time.Now()}
	if ix.Rebuilt() != "" { // built from nothing (leangc.go)
		restore = LeanGC()
		b.early = k.everyNote(b)
	}
	if TestHooks.Publishing != nil {
		TestHooks.Publishing()
	}
	// Published: from here a sync the vault asks for (Soon) may start
	// the build and clear b.early, under b.mu (listing); before, it
	// does nothing (Sync: the full one below does its work).
	k.build.Store(b)
	tell()
	if TestHooks.Listing != nil {
		TestHooks.Listing()
	}
	if k.listing(b) != nil {
		// Listing the notes to index takes a build from nothing
		// 0.3 s at 100,000 notes: the search made at once goes first.
		k.letAnswersGo(b)
	}
	err = k.Sync(true)
	k.build.Store(nil)
	// A build from nothing let Bleve's persister nap between its
	// writes (search/buildnap.go); a write's batch now goes to the
	// disk at once.
	ix.BuildDone()
	if err == nil {
		ix.QueueMissingVectors()
	}
	return restore, err
}

// endOpen records the open's outcome and lets the searches waiting for
// it go (done).
func (k *Keeper) endOpen(notice string, err error, done chan struct{}) {
	k.openMu.Lock()
	defer k.openMu.Unlock()
	k.notice, k.err = notice, err
	k.ready.Store(err == nil)
	k.opening, k.begun, k.known = nil, nil, nil
	close(done)
}

// OpenEarly starts the index's open now, while the vault loads its
// catalog (vault.Options.OpenIndex); the open syncs the index with the
// notes once CatalogLoaded says the catalog is there. The caller holds
// the vault's host lock, so no search can have started an open before.
func (k *Keeper) OpenEarly() {
	s := k
	s.catalog = make(chan struct{})
	s.openMu.Lock()
	k.startIndexLocked()
	s.openMu.Unlock()
}

// CatalogLoaded ends the wait of an index open started early: err is why
// the vault's open failed, and then that open is closed and its index
// lock let go before the vault's Open returns (a host retrying finds it
// free).
func (k *Keeper) CatalogLoaded(err error) {
	s := k
	if s.catalog == nil {
		return
	}
	s.catalogErr = err
	close(s.catalog)
	if err != nil {
		k.Close()
	}
}

// catalogPending says whether the vault is still loading its catalog
// beside an early index open. Nothing syncs the index then (a rescan's
// Soon):
// the open's own full sync comes first, once the catalog is there, and
// reports its progress to searches (firstbuild.go).
func (k *Keeper) catalogPending() bool {
	if c := k.catalog; c != nil {
		select {
		case <-c:
		default:
			return true
		}
	}
	return false
}

// awaitCatalog waits until the vault has loaded its catalog, which the index's
// sync reads, and says whether it failed to.
func (k *Keeper) awaitCatalog() error {
	s := k
	if s.catalog == nil {
		return nil // opened after Open returned
	}
	<-s.catalog
	if s.catalogErr != nil {
		return fmt.Errorf("search index: the vault did not open: %w", s.catalogErr)
	}
	return nil
}

// options are the options the keeper opens its indexes with
// (closeWait 0: search.DefaultCloseWait).
func (k *Keeper) options(emb search.Embedder, closeWait time.Duration) search.Options {
	return search.Options{Embedder: emb, Load: k.notes.Doc, Logf: k.cfg.Logf, CloseWait: closeWait}
}

// Notice is why semantic search is off although configured ("").
func (k *Keeper) Notice() string {
	k.openMu.Lock()
	defer k.openMu.Unlock()
	return k.notice
}

// statNote is the size and mtime of the note file at p, and whether it
// is one (a regular file).
func (k *Keeper) statNote(p string) (notefile.Stamp, bool) {
	fi, err := os.Lstat(filepath.Join(k.cfg.Root, filepath.FromSlash(p)))
	if err != nil || !fi.Mode().IsRegular() {
		return notefile.Stamp{}, false
	}
	return notefile.Stamp{Size: fi.Size(), Mtime: fi.ModTime()}, true
}
