package vault

// Opening the search index: on the first search or at a server's start,
// once per process (again after a Rebuild with no index to answer from).

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/search"
)

// SearchIndex opens the search index (on the first call), brings it up to
// date with the notes, and queues the vectors that are missing. `cairn
// serve` calls it at start, in the background. A Rebuild closes the index
// it replaces: use what this returns for a call, do not keep it.
func (v *Vault) SearchIndex() (*search.Index, error) {
	return v.searchIndexCtx(context.Background())
}

// searchIndexCtx is SearchIndex for a caller that stops waiting when ctx
// ends: a search asked while the index is being built (seconds per
// 10,000 notes), by the first open or by a Rebuild with no index to
// answer from, must not hold a shutdown up. The build goes on.
func (v *Vault) searchIndexCtx(ctx context.Context) (*search.Index, error) {
	s := &v.index
	for {
		if s.ready.Load() {
			if ix := s.ix.Load(); ix != nil {
				return ix, nil
			}
		}
		s.openMu.Lock()
		wait, _, err := v.startIndexLocked()
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
func (v *Vault) startIndexLocked() (wait, begun chan struct{}, err error) {
	s := &v.index
	wait, begun, err = s.opening, s.begun, s.err
	if wait == nil && err == nil && !s.ready.Load() {
		if s.stopping.Load() {
			return nil, nil, errIndexClosed
		}
		wait, begun = make(chan struct{}), make(chan struct{})
		s.opening, s.begun = wait, begun
		s.opens.Go(func() { v.openIndex(wait, begun) })
	}
	return wait, begun, err
}

// openIndex opens the index in its folder, brings it up to date with
// every note and queues the missing vectors; then it ends the wait of
// the searches (done). begun is closed once the build knows what it
// indexes (or the open ends).
func (v *Vault) openIndex(done, begun chan struct{}) {
	announce := sync.OnceFunc(func() { close(begun) })
	defer announce()
	if err := v.removeLeftovers(); err != nil {
		SearchLog("search index: %v", err)
	}
	emb, notice := v.searchEmbedder()
	// A build's collector setting lasts until what the build left is
	// returned below: the save that follows the build allocates, and with
	// the setting restored first (50 % for a big heap, 100 % for a small
	// one), the heap grew into the wider headroom there: the build's
	// highest point at 100,000 notes (issue 16: docs/benchmarks-history.md, "The
	// end of a build").
	restore := func() {}
	defer func() { restore() }()
	ix, err := search.Open(v.indexDir(), v.indexOptions(emb, 0))
	if err == nil {
		v.index.ix.Store(ix)
		err = v.awaitCatalog()
	}
	if err == nil {
		b := &firstBuild{ix: ix, started: announce}
		v.index.build.Store(b)
		if ix.Rebuilt() != "" { // built from nothing (leangc.go)
			restore = leanGC()
		}
		err = v.syncIndex(true)
		v.index.build.Store(nil)
		if err == nil {
			ix.QueueMissingVectors()
		}
	}
	if err == nil && (ix.Rebuilt() != "" || ix.Reconciled() > 0) {
		// Save the manifest of what was just built now rather than at the
		// next periodic save: a process killed before it would leave no
		// manifest, and the next one would build everything again instead
		// of bringing this index up to date (search/reconcile.go).
		if perr := ix.Persist(); perr != nil {
			SearchLog("search index: %v", perr)
		}
	}
	s := &v.index
	s.openMu.Lock()
	s.notice, s.err = notice, err
	s.ready.Store(err == nil)
	s.opening, s.begun = nil, nil
	close(done)
	s.openMu.Unlock()
	// What the open freed (a first build's note texts and Bleve batches,
	// a warm start's decoded vector file) would stay resident: the Go
	// runtime keeps freed heap up to its next GC goal, twice the live heap
	// (issue 16 measured 50 to 110 MiB of it at 10,000 notes). Once per
	// open, after the searches waiting were let go. Not when the vault is
	// closing: Close waits for the open's end, and that collection (75–80
	// ms of marking at 100,000 notes, then the pages given back) would
	// only delay a shutdown.
	if !s.stopping.Load() {
		debug.FreeOSMemory()
	}
	if openedHook != nil {
		openedHook()
	}
}

// openedHook, set by tests only, runs at the end of an index's open,
// before a build's collector setting is restored.
var openedHook func()

// openIndexEarly starts the index's open now, while Open loads the
// catalog (Options.OpenIndex); the open syncs the index with the notes
// once catalogLoaded says the catalog is there. The caller holds the
// host lock, so no search can have started an open before.
func (v *Vault) openIndexEarly() {
	s := &v.index
	s.catalog = make(chan struct{})
	s.openMu.Lock()
	v.startIndexLocked()
	s.openMu.Unlock()
}

// loadedHook, when set (tests), is called by Open once the catalog is
// loaded, before an index open begun beside it may sync.
var loadedHook func(v *Vault)

// catalogLoaded ends the wait of an index open started early: err is why
// the vault's open failed, and then that open is closed and its index
// lock let go before Open returns (a host retrying finds it free).
func (v *Vault) catalogLoaded(err error) {
	s := &v.index
	if s.catalog == nil {
		return
	}
	s.catalogErr = err
	close(s.catalog)
	if err != nil {
		v.closeIndex()
	}
}

// catalogPending says whether Open is still loading the catalog beside an
// early index open. Nothing syncs the index then (a rescan's indexSoon):
// the open's own full sync comes first, once the catalog is there, and
// reports its progress to searches (firstbuild.go).
func (v *Vault) catalogPending() bool {
	if c := v.index.catalog; c != nil {
		select {
		case <-c:
		default:
			return true
		}
	}
	return false
}

// awaitCatalog waits until Open has loaded the catalog, which the index's
// sync reads, and says whether it failed to.
func (v *Vault) awaitCatalog() error {
	s := &v.index
	if s.catalog == nil {
		return nil // opened after Open returned
	}
	<-s.catalog
	if s.catalogErr != nil {
		return fmt.Errorf("search index: the vault did not open: %w", s.catalogErr)
	}
	return nil
}

// searchEmbedder makes the embedder this machine's settings choose
// (ChooseEmbedder). A broken setting turns semantic search off with a
// notice (every search then gives it) rather than failing: lexical search
// goes on. A shared setting set aside is said on stderr, not in searches:
// it is for the people running the server, and vectors still work.
func (v *Vault) searchEmbedder() (search.Embedder, string) {
	ch, err := ChooseEmbedder(v.root)
	var emb search.Embedder
	if err == nil {
		if ch.Refused != "" {
			SearchLog("%s", ch.Refused)
		}
		emb, err = ch.Open()
	}
	if err != nil {
		notice := fmt.Sprintf("semantic search is off: %v", err)
		SearchLog("%s", notice)
		return nil, notice
	}
	return emb, ""
}

// indexOptions are the options the vault opens its indexes with
// (closeWait 0: search.DefaultCloseWait).
func (v *Vault) indexOptions(emb search.Embedder, closeWait time.Duration) search.Options {
	return search.Options{Embedder: emb, Load: v.searchDoc, Logf: SearchLog, CloseWait: closeWait}
}

// indexDir is the live index's folder.
func (v *Vault) indexDir() string { return filepath.Join(v.root, CacheDir, "search") }

// searchNotice is why semantic search is off although configured ("").
func (v *Vault) searchNotice() string {
	v.index.openMu.Lock()
	defer v.index.openMu.Unlock()
	return v.index.notice
}
