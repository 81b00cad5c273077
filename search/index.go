package search

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	zapx "github.com/blevesearch/zapx/v17"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/cairn-dev/cairn/internal/intern"
)

// ErrIndexBusy says another process (a running server) holds the index.
var ErrIndexBusy = errors.New("the search index is in use by another process")

// LockFile is the file in an index's folder that the process holding the
// index keeps flocked: whoever replaces the folder takes it first.
const LockFile = "index.lock"

// Options for Open.
type Options struct {
	// Embedder makes the vectors; nil turns semantic search off.
	Embedder Embedder
	// Load reads a document again when its vectors must be made and the
	// index no longer holds its text (after a restart, or a large
	// rebuild). Nil: such documents wait for their next Apply.
	Load func(path string) (*Doc, error)
	// Logf reports rebuilds and embedding failures (nil: silent).
	Logf func(format string, args ...any)
	// CloseWait bounds how long Close waits for Bleve to write the last
	// batches to disk (0: DefaultCloseWait), past what may be left of
	// the persister's nap (napLeft: at most buildNap, during a build from
	// nothing).
	CloseWait time.Duration
}

// DefaultCloseWait: `cairn serve` must stop within 2 s of SIGTERM, and
// Bleve usually has every batch on disk within milliseconds of the last
// (35 ms at most, measured when stopped mid-build of 10,000 notes).
const DefaultCloseWait = 500 * time.Millisecond

// Index is the search index of one vault: the Bleve index, the manifest of
// what it holds, and the chunk vectors.
type Index struct {
	dir   string
	opts  Options
	bleve bleve.Index
	// fields names every field the mapping has, for bm25Stats.
	fields []string

	mu       sync.RWMutex // guards meta, who, refresh and seq (seq also needs batchMu to change)
	meta     map[string]*docMeta
	lens     lenTotals              // the lengths of meta's documents, summed (fieldlens.go)
	who      map[string]map[int]int // name → scope number → documents by that person there
	scopeIDs map[string]int         // scope → its number (see docMeta.scope)
	refresh  map[string]bool        // documents whose context waits to be indexed again (markNeighbours)
	seq      uint64
	metaSeen uint64 // seq of the last manifest saved
	rebuilt  string // why the index started empty, if it did
	// reconciled counts the documents an open found out of step with
	// Bleve (reconcile.go), left for the caller's sync to index again.
	reconciled int
	// ops hands out update tokens (docMeta.At, fOp): one per batch, never
	// one that Bleve or the manifest already holds.
	ops atomic.Uint64

	closed atomic.Bool
	// gate admits updates (read) until Close takes it (write); batchMu
	// runs Bleve batches carrying the change counter one at a time.
	gate      sync.RWMutex
	batchMu   sync.Mutex
	persistMu sync.Mutex
	lock      *os.File // flock'd while open
	nap       napState // the persister's nap during a build from nothing (buildnap.go)

	vec       *vectors // nil without an embedder
	offReason string   // why vec is nil although an embedder was given
	queue     *embedQueue
}

// docMeta is what the index remembers of each document besides Bleve:
// its version, the update that indexed it, and the fields semantic search
// filters on.
type docMeta struct {
	Version string `json:"v"`
	// At is the update token of the batch that indexed the document, which
	// its Bleve document holds too (fOp): equal, the two describe the same
	// indexing. 0 and Version "" mark a document an open found out of step
	// (reconcile.go), which the caller's sync indexes again.
	At      uint64   `json:"a,omitempty"`
	Scope   string   `json:"s"`
	Project string   `json:"p,omitempty"`
	Tags    []string `json:"t,omitempty"`
	Type    string   `json:"y,omitempty"`
	Date    int64    `json:"d,omitempty"` // unix seconds, 0 when none
	Who     []string `json:"w,omitempty"` // lower case
	Seq     []string `json:"q,omitempty"` // sequence neighbours
	// Sum is a hash of the note's body: hits that score alike
	// are ordered by it, so their order is the same whatever the notes
	// are named (fuse).
	Sum uint64 `json:"h,omitempty"`
	// Lens are the document's analysed field lengths (fieldlens.go).
	Lens  fieldLens `json:"l"`
	scope int       // Scope's number in Index.scopeIDs, for a fast filter
}

// share makes the values that many documents repeat (scope, project,
// type, tags, people) one string each across the manifest
// (internal/intern). m's lists are its own (made by record, or decoded):
// they are interned in place, not copied.
func (m *docMeta) share() {
	m.Scope = intern.String(m.Scope)
	m.Project = intern.String(m.Project)
	m.Type = intern.String(m.Type)
	for _, list := range [][]string{m.Tags, m.Who} {
		for i, v := range list {
			list[i] = intern.String(v)
		}
	}
}

// manifestFormat changes with the mapping, the analysis or docMeta: an
// index made by another format is rebuilt, never mixed with the new
// analysis. 4: words cut to maxTokenRunes before stemming. 5: update
// tokens (docMeta.At, the fOp field) and the refresh list. 6: accents
// folded in every word and both languages, French stop words with and
// without accents, no "-ique" rule in the French stemmer, path words
// folded (analysis.go). 8: docMeta.Sum. 9: docMeta.Lens. Not with how the same analysis
// is computed: the mapping's cairn_words analysers (wordanalysis.go) give
// what format 8's custom chains gave, so an index naming either is kept.
const manifestFormat = 9

const seqKey = "cairn.seq"

// Open opens the index under dir, creating it when missing. An index whose
// manifest does not match it (a crash between the two) is reconciled with
// it: the documents out of step are marked so that the caller's full sync
// (comparing every document's version and scope with Versions and Scope)
// indexes them again (Reconciled counts them). An index that cannot be
// opened, or whose manifest is missing, damaged or of another format,
// starts empty: Rebuilt says why, and the caller re-applies every
// document.
func Open(dir string, opts Options) (*Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	ix := &Index{dir: dir, opts: opts, meta: map[string]*docMeta{}, who: map[string]map[int]int{}, scopeIDs: map[string]int{}, refresh: map[string]bool{}}
	// One process at a time, taken before anything is read: a second one
	// must never find the manifest missing and rebuild under the first.
	lock, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("%w: %s (stop the running `cairn serve`, or use its search tool)", ErrIndexBusy, dir)
	}
	ix.lock = lock
	if err := ix.openLexical(); err != nil {
		ix.unlock()
		return nil, err
	}
	ix.fields = mappingFields(ix.bleve.Mapping())
	if e := opts.Embedder; e != nil {
		if d := e.Dims(); d <= 0 {
			// An HTTP embedder asked for its dimensions and did not answer.
			ix.offReason = fmt.Sprintf("the embedder %s did not say its dimensions (is it running? embedder.dimensions in .cairn/config.yaml skips the question)", e.ID())
			ix.logf("search vectors: %s; semantic search is off until a restart", ix.offReason)
		} else {
			ix.openVectors(e)
			ix.queue = newEmbedQueue(ix)
		}
	}
	return ix, nil
}

func (ix *Index) logf(format string, args ...any) {
	if ix.opts.Logf != nil {
		ix.opts.Logf(format, args...)
	}
}

func (ix *Index) bleveDir() string     { return filepath.Join(ix.dir, "bleve") }
func (ix *Index) manifestFile() string { return filepath.Join(ix.dir, "manifest.json") }
func (ix *Index) vectorFile() string   { return filepath.Join(ix.dir, "vectors.bin") }

func (ix *Index) openLexical() error {
	reason := ""
	m, err := readManifest(ix.manifestFile())
	if err != nil {
		reason = err.Error()
	}
	if reason == "" {
		b, err := bleve.OpenUsing(ix.bleveDir(), scorchConfig())
		switch {
		case errors.Is(err, bolterrors.ErrTimeout):
			// Another process has it open: never rebuild under it.
			return fmt.Errorf("%w: %s (stop the running `cairn serve`, or use its search tool)", ErrIndexBusy, ix.bleveDir())
		case err != nil:
			reason = "index: " + err.Error()
		default:
			if err := ix.reconcile(b, m); err != nil {
				reason = err.Error()
				b.Close()
			} else {
				return nil
			}
		}
	}
	if _, err := os.Stat(ix.bleveDir()); err == nil || !errors.Is(err, os.ErrNotExist) {
		ix.logf("search index: rebuilding (%s)", reason)
	} else {
		reason = "new index"
	}
	if err := os.RemoveAll(ix.bleveDir()); err != nil {
		return fmt.Errorf("open search index: %w", err)
	}
	os.Remove(ix.manifestFile())
	im, err := indexMapping()
	if err != nil {
		return err
	}
	b, err := bleve.NewUsing(ix.bleveDir(), im, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, napConfig())
	if err != nil {
		return fmt.Errorf("create search index: %w", err)
	}
	ix.nap.on.Store(true)
	ix.bleve, ix.rebuilt = b, reason
	ix.metaSeen = ^uint64(0) // unsaved
	return nil
}

// scorchConfig: a second process fails after a second instead of
// blocking; and a batch returns once it is searchable, not once it is on
// disk (unsafe_batch), so a write's index update costs no fsync. The
// index is derived state: a crash that loses batches leaves Bleve behind
// its manifest, and the next open reconciles the two (reconcile.go).
// The persister does not nap (buildnap.go): said at every open, since
// Bleve keeps the options an index was created with and an open's own
// override them.
func scorchConfig() map[string]any {
	return map[string]any{"bolt_timeout": "1s", "unsafe_batch": true, "scorchPersisterOptions": napOptions(0)}
}

// A new segment's buffer is sized by zapx for the batch's documents plus
// NewSegmentBufferNumResultsBump (100) more, at the last batch's bytes per
// document, and the in-memory segment keeps that buffer until it is
// persisted and merged: a write's batch of one note held about 4 MiB at
// 10,000 notes (issue 16: 3.9 MiB of garbage per batch, 2.3 GiB over 600
// writes). Sized for the batch alone, a large batch (a first build) still
// grows its buffer as it needs.
func init() { zapx.NewSegmentBufferNumResultsBump = 0 }

func (ix *Index) openVectors(e Embedder) {
	vs, err := loadVectors(ix.vectorFile(), e.ID(), e.Dims())
	switch {
	case err == nil:
		for _, n := range vs.notes {
			vs.setSpanMeta(n, ix.meta[n.path])
		}
		vs.dirty = false
		ix.vec = vs
		return
	case errors.Is(err, os.ErrNotExist):
	default:
		ix.logf("search vectors: rebuilding (%v)", err)
	}
	ix.vec = newVectors(e.ID(), e.Dims())
	ix.vec.dirty = true
}

// Semantic reports whether vectors are made (an embedder is configured).
func (ix *Index) Semantic() bool { return ix.vec != nil }

// Rebuilt says why the index started empty ("" when it did not).
func (ix *Index) Rebuilt() string { return ix.rebuilt }

// Reconciled is how many documents the open found out of step with Bleve
// after an interrupted run, or whose context waited to be indexed again:
// each reads as version "" (Versions) until the caller's sync indexes it
// again, or removes it.
func (ix *Index) Reconciled() int { return ix.reconciled }

// Versions is the version of every document the index holds.
func (ix *Index) Versions() map[string]string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make(map[string]string, len(ix.meta))
	for p, m := range ix.meta {
		out[p] = m.Version
	}
	return out
}

// Version is the version of the document indexed at path ("" if none).
func (ix *Index) Version(path string) string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if m := ix.meta[path]; m != nil {
		return m.Version
	}
	return ""
}

// Scope is the scope and project a document was indexed with.
func (ix *Index) Scope(path string) (scope, project string, ok bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	m := ix.meta[path]
	if m == nil {
		return "", "", false
	}
	return m.Scope, m.Project, true
}

// Sequence is the sequence neighbours a document was indexed with.
func (ix *Index) Sequence(path string) []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if m := ix.meta[path]; m != nil {
		return m.Seq
	}
	return nil
}

// Len is the number of documents indexed.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.meta)
}

// QueueMissingVectors queues every document whose vectors are missing or
// stale (after a restart, or a new embedder). The queue loads their text
// through Options.Load.
func (ix *Index) QueueMissingVectors() int {
	if ix.vec == nil {
		return 0
	}
	ix.mu.RLock()
	var todo []string
	for p, m := range ix.meta {
		if v, ok := ix.vec.version(p); !ok || v != m.Version {
			todo = append(todo, p)
		}
	}
	ix.mu.RUnlock()
	for _, p := range todo {
		ix.queue.add(p, nil)
	}
	// Vectors of documents the index no longer holds.
	ix.mu.RLock()
	ix.vec.mu.RLock()
	var gone []string
	for p := range ix.vec.notes {
		if _, ok := ix.meta[p]; !ok {
			gone = append(gone, p)
		}
	}
	ix.vec.mu.RUnlock()
	ix.mu.RUnlock()
	for _, p := range gone {
		ix.vec.remove(p)
	}
	return len(todo)
}

// VectorsPending is how many documents wait for their vectors.
func (ix *Index) VectorsPending() int {
	if ix.queue == nil {
		return 0
	}
	return ix.queue.len()
}

// pendingIn counts the documents waiting for vectors in the scopes ok
// accepts: a caller learns nothing of writes elsewhere. The caller holds
// ix.mu (read).
func (ix *Index) pendingIn(ok []bool) int {
	if ix.queue == nil {
		return 0
	}
	n := 0
	for _, p := range ix.queue.paths() {
		if m := ix.meta[p]; m != nil && m.scope < len(ok) && ok[m.scope] {
			n++
		}
	}
	return n
}

// WaitVectors blocks until no document waits for vectors, or timeout.
func (ix *Index) WaitVectors(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for ix.VectorsPending() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// Persist saves the manifest and the vectors, so a restart reuses them.
// One save at a time (the periodic one and Close's may meet). After Close
// or Discard it saves nothing: Close saved what there was, and the folder
// of a discarded index may already hold another index (a vault's Rebuild
// puts the new one in its place), whose files this one must not replace.
func (ix *Index) Persist() error {
	ix.persistMu.Lock()
	defer ix.persistMu.Unlock()
	if ix.closed.Load() {
		return nil
	}
	return ix.persist()
}

// persist is Persist; the caller holds persistMu. The records are taken
// under the read lock and encoded without it: a record is never changed
// once in ix.meta (an Apply puts a new one), and every write's Apply
// waits for the lock, while the encoding grows with the vault.
func (ix *Index) persist() error {
	ix.mu.RLock()
	saved := ix.seq == ix.metaSeen
	seq := ix.seq
	var m manifest
	if !saved {
		m = manifest{Format: manifestFormat, Seq: ix.seq, Docs: maps.Clone(ix.meta), Refresh: make([]string, 0, len(ix.refresh))}
		for p := range ix.refresh {
			m.Refresh = append(m.Refresh, p)
		}
	}
	ix.mu.RUnlock()
	if !saved {
		sort.Strings(m.Refresh)
		if err := writeFileWith(ix.manifestFile(), m.write); err != nil {
			return fmt.Errorf("save search manifest: %w", err)
		}
		ix.mu.Lock()
		ix.metaSeen = seq
		ix.mu.Unlock()
	}
	if ix.vec != nil {
		return ix.vec.save(ix.vectorFile())
	}
	return nil
}

// Close stops the embedding worker, waits for the updates in flight
// (each bounded by the per-document bounds; later ones are refused),
// saves what there is to save and closes Bleve. It waits at most
// Options.CloseWait (and napLeft) for Bleve to put the last batches on disk: a shutdown
// must not hang on it, and an index closed before they are is behind its
// manifest, which the next open reconciles (the documents of the lost
// batches are indexed again).
func (ix *Index) Close() error {
	if !ix.closed.CompareAndSwap(false, true) {
		return nil
	}
	if ix.queue != nil {
		ix.queue.stop()
	}
	ix.gate.Lock()
	defer ix.gate.Unlock()
	ix.persistMu.Lock()
	err := ix.persist()
	ix.persistMu.Unlock()
	ix.BuildDone()
	wait := ix.opts.CloseWait
	if wait <= 0 {
		wait = DefaultCloseWait
	}
	wait += ix.napLeft()
	if perr := ix.waitPersisted(wait); err == nil {
		err = perr
	}
	if cerr := ix.bleve.Close(); err == nil {
		err = cerr
	}
	ix.unlock()
	return err
}

// Discard closes the index without saving anything or waiting for
// Bleve's disk writes, for an index whose folder is deleted next: a
// vault's Rebuild drops the index it replaces, and the new one when the
// vault closes before it is done. Close would write the manifest and the
// vectors only to delete them, and spend the 2 s a stopping server has.
// A Persist in progress finishes first; later ones save nothing.
func (ix *Index) Discard() error {
	if !ix.closed.CompareAndSwap(false, true) {
		return nil
	}
	if ix.queue != nil {
		ix.queue.stop()
	}
	ix.gate.Lock()
	defer ix.gate.Unlock()
	ix.persistMu.Lock()
	ix.persistMu.Unlock()
	err := ix.bleve.Close()
	ix.unlock()
	if err != nil {
		return fmt.Errorf("discard search index: %w", err)
	}
	return nil
}

func (ix *Index) unlock() {
	if ix.lock != nil {
		syscall.Flock(int(ix.lock.Fd()), syscall.LOCK_UN)
		ix.lock.Close()
		ix.lock = nil
	}
}

// waitPersisted returns once every batch so far is on disk: batches return
// before (unsafe_batch), and Bleve's Close does not wait for them. An
// empty batch's persisted callback fires after all earlier ones.
func (ix *Index) waitPersisted(timeout time.Duration) error {
	ix.mu.RLock()
	seq := ix.seq
	ix.mu.RUnlock()
	b := ix.bleve.NewBatch()
	b.SetInternal([]byte(seqKey), []byte(strconv.FormatUint(seq, 10)))
	done := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { done <- err })
	if err := ix.bleve.Batch(b); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		return fmt.Errorf("search index: not on disk after %s (the next start indexes the last documents again)", timeout)
	}
}
