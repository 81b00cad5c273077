// Package indexing keeps a vault's search index up to date with its
// notes: the index opened on first use (or at a server's start, beside
// the catalog's load), its first build in steps that searches can answer
// during, the updates before each search and soon after each write, the
// background lane of long notes, a Rebuild beside the live index, and the
// collector's setting while a build runs.
//
// It reads the vault through Notes, a small interface the vault
// implements over its catalog and its files, and knows nothing of access,
// projects or the write path: a scope is a string the vault gives each
// note, and a search's filter names the scopes its caller may read.
//
// The index itself (Bleve, the vectors, ranking) is package search; the
// vault's search tools (search, recall) are package vault's, on Keeper.
package indexing

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/cairn-dev/cairn/internal/notefile"
	"github.com/cairn-dev/cairn/search"
)

// Notes is what the keeper reads of the vault.
type Notes interface {
	// Doc reads the note at path as the index sees it, with its sequence
	// and context; an error when it cannot be read (it is left out).
	Doc(path string) (*search.Doc, error)
	// ScanDoc is the note at path, whose file holds data, as Doc gives it
	// less its sequence and context: nil when it is gone.
	ScanDoc(path string, data []byte) *search.Doc
	// Scopes is how notes are scoped now (the vault's projects), and a key
	// that changes whenever that may give a note another scope.
	Scopes() (of ScopeFunc, key string)
	// TakeChanged returns the paths put or removed since the keeper last
	// took them, and forgets them (the keeper gives back those it could
	// not index: GiveBack), with the Stamp of each of them and of force's,
	// or of every note when all.
	TakeChanged(force map[string]bool, all bool) (changed map[string]bool, stamps map[string]Stamp)
	// GiveBack hands back paths TakeChanged gave that were not indexed.
	GiveBack(paths []string)
	// ChangedNotes are the paths changed since the keeper last took them,
	// not forgotten.
	ChangedNotes() []string
	// BySize splits the known notes among paths into short ones and long
	// ones (over LargeNoteBytes); unknown paths are dropped.
	BySize(paths []string) (short, long []string)
	// AllBySize is BySize of every note.
	AllBySize() (short, long []string)
	// Version is the note's version as the index stores it, and whether
	// the note exists.
	Version(path string) (string, bool)
	// OpenTexts hands over, once, the texts of the notes a fresh clone's
	// open read last (the ones a first build reaches last), for the
	// searches made during that build (scantexts.go); nil when none.
	OpenTexts() map[string]OpenText
}

// OpenText is a note's text as the open read it, and its file's size and
// mtime then.
type OpenText struct {
	Text  []byte
	Stamp notefile.Stamp
}

// ScopeFunc gives a note its scope (what decides who may read it), and
// the project handle and personal owner the index stores with it.
type ScopeFunc func(path string) (scope, project, owner string)

// Stamp is what TakeChanged says of a note: its version, and whether it is
// long (indexed in the lane).
type Stamp struct {
	Version string
	Large   bool
}

// LargeNoteBytes: a note whose file is longer is indexed in the
// background, one at a time (search.ApplyLarge), instead of by the update
// a search or a write waits for. Indexing costs about 0.2 s per MiB of
// text per language, so a note of this size costs a waiting search a few
// milliseconds at most; a 1 MiB one would cost it half a second, and
// several of them seconds. Until such a note is indexed, searches read it
// from disk instead (scan.go).
const LargeNoteBytes = 64 << 10

// Config is what a Keeper is made with.
type Config struct {
	// Root is the vault's folder: notes are read relative to it.
	Root string
	// Dir is the live index's folder.
	Dir string
	// MaxReadBytes bounds what a search reads of one note's file.
	MaxReadBytes int64
	// Embedder makes the embedder this machine's settings choose; notice
	// is why semantic search is off when it is configured but broken.
	Embedder func() (emb search.Embedder, notice string)
	// AnswerDuringBuild: see vault.Options.AnswerDuringBuild.
	AnswerDuringBuild bool
	// Yield, when set, says whether a call is waiting for work outside
	// the index that a first build's steps would take the cores from (a
	// note's version asked of git while the version map builds): the
	// build waits for it as for a search's scan (letAnswersGo).
	Yield func() bool
	// Logf receives the index's log lines (Log when nil).
	Logf func(format string, args ...any)
}

// Log is where the index's log lines go by default: stderr.
var Log = func(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "cairn: "+format+"\n", args...)
}

// Keeper is a vault's search index, opened on first use (a short
// command-line operation never pays for it) and replaced whole by a
// Rebuild (rebuild.go). The vault's catalog records every path it
// re-reads; before each search, and soon after each write, those paths
// are re-read from disk and indexed, so a search sees what the catalog
// sees. Notes over LargeNoteBytes are the exception: they are indexed in
// the background lane (lane.go), and searches read them from disk until
// they are.
//
// Lock order: rebuildMu, then useMu, then mu, then what Notes takes (the
// catalog's); openMu and laneMu are taken last, with nothing taken under
// them.
type Keeper struct {
	notes Notes
	cfg   Config

	// rebuildMu: one Rebuild at a time. Close takes it too, so it waits
	// for the Rebuild running, which stops at its next step.
	rebuildMu sync.Mutex
	// useMu is held for reading by a search while it uses the index, and
	// for writing by a Rebuild's swap and by Close: no search ever runs
	// on an index being closed (Bleve's reader of a closed index is nil).
	useMu sync.RWMutex

	// openMu guards err, notice and opening: the state a sync.Once kept
	// before, which a Rebuild must be able to reset.
	openMu sync.Mutex
	err    error  // why the index cannot be used (until a Rebuild)
	notice string // why semantic search is off, when configured but broken
	// opening is closed when the first open, or a Rebuild that has no
	// index to answer from, ends; searches wait for it. Nil when none runs.
	opening chan struct{}
	// begun is closed once the first open has begun its build (a search
	// may then answer from it: firstbuild.go), or has ended.
	begun chan struct{}
	// known is closed once the first open has made its build known
	// (build), moments after the catalog is loaded, or has ended.
	known chan struct{}
	// opens are the index's opens running, to their very end (the heap
	// returned, the collector's setting restored, after opening is
	// closed): Close waits for them, so none outlives the vault.
	opens sync.WaitGroup
	ix    atomic.Pointer[search.Index] // set once open; replaced by a Rebuild
	ready atomic.Bool                  // ix is open and synced: searches use it
	// build is the first build's progress while it runs: a search asked
	// meanwhile answers from the notes already indexed, saying how many
	// are not yet (a fresh clone's first search need not wait for all).
	build atomic.Pointer[firstBuild]
	// catalog is closed once the vault has loaded its catalog (or failed
	// to: catalogErr), when the index's open began beside it (OpenEarly);
	// nil otherwise.
	catalog    chan struct{}
	catalogErr error

	// mu serialises index updates (but not the lane's long notes).
	mu              sync.Mutex
	scopesKey       string      // the Notes.Scopes key the index's scopes were computed with
	scopesKnown     bool        // scopesKey was set
	closed          bool        // Close closed the index
	job             *rebuildJob // the Rebuild building a new index, told what updates change
	updateScheduled atomic.Bool // a background update is scheduled
	// stopping: Close has begun. A full sync or a Rebuild stops at its
	// next step, the lane before its next note, and nothing new starts.
	stopping atomic.Bool

	laneMu    sync.Mutex
	lane      lane         // long notes, indexed in the background (lane.go)
	searching atomic.Int32 // searches and recalls running, which the lane lets go first
	// answering are the searches answering from a first build's index
	// (partialSearch) until their scan of the notes not indexed ends:
	// the build lets them go first (letAnswersGo).
	answering atomic.Int32
}

// New makes the keeper of a vault's index; nothing is opened yet.
func New(notes Notes, cfg Config) *Keeper {
	if cfg.Logf == nil {
		cfg.Logf = func(format string, args ...any) { Log(format, args...) }
	}
	return &Keeper{notes: notes, cfg: cfg}
}

// Dir is the live index's folder.
func (k *Keeper) Dir() string { return k.cfg.Dir }

// errClosed answers a search of a vault that is closing or closed.
var errClosed = errors.New("search index: the vault is closed")

// Current is the index open now, nil when none is (not opened yet, or a
// swap failed). A Rebuild may close it at any moment: use it for one
// call, do not keep it.
func (k *Keeper) Current() *search.Index { return k.ix.Load() }

// Persist saves the open index's manifest and vectors now.
func (k *Keeper) Persist() error {
	if ix := k.ix.Load(); ix != nil {
		return ix.Persist()
	}
	return nil
}

// Close stops the work in progress at its next step (a first build, a
// Rebuild, the lane of long notes: each step is bounded), lets the
// searches running finish, then closes the index.
func (k *Keeper) Close() error {
	k.laneMu.Lock()
	k.stopping.Store(true) // under laneMu: the lane starts no worker now
	k.laneMu.Unlock()
	k.rebuildMu.Lock() // the Rebuild running stops at its next step
	defer k.rebuildMu.Unlock()
	k.openMu.Lock()
	wait := k.opening
	k.openMu.Unlock()
	if wait != nil {
		<-wait // the first build stops at its next step too
	}
	k.opens.Wait()
	k.WaitLane()
	k.useMu.Lock()
	defer k.useMu.Unlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.openMu.Lock()
	k.ready.Store(false)
	k.err = errClosed
	k.openMu.Unlock()
	if k.closed {
		return nil
	}
	k.closed = true
	if ix := k.ix.Load(); ix != nil {
		return ix.Close()
	}
	return nil
}

// Stopping says whether Close has begun (tests).
func (k *Keeper) Stopping() bool { return k.stopping.Load() }
