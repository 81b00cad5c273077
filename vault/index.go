package vault

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"gopkg.in/yaml.v3"
)

// searchState is the vault's search index, opened on first use (a short
// command-line operation never pays for it) and replaced whole by a
// Rebuild (rebuild.go). The catalog records every path it re-reads;
// before each search, and soon after each write, those paths are re-read
// from disk and indexed, so a search sees what the catalog sees. Notes
// over largeNoteBytes are the exception: they are indexed in the
// background lane (indexlane.go), and searches do not wait for them.
//
// Lock order: rebuildMu, then useMu, then mu, then the catalog's (which
// takes only the graphs' after it); openMu and laneMu are taken last, with nothing taken
// under them.
type searchState struct {
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
	// catalog is closed once Open has loaded the catalog (or failed to:
	// catalogErr), when the index's open began beside it
	// (Options.OpenIndex); nil otherwise.
	catalog    chan struct{}
	catalogErr error

	// mu serialises index updates (but not the lane's long notes).
	mu              sync.Mutex
	projects        *projectSet // the project set the scopes were computed with
	closed          bool
	job             *rebuildJob // the Rebuild building a new index, told what updates change
	updateScheduled atomic.Bool // a background update is scheduled
	// stopping: Close has begun. A full sync or a Rebuild stops at its
	// next step, the lane before its next note, and nothing new starts.
	stopping atomic.Bool

	laneMu    sync.Mutex
	lane      indexLane    // long notes, indexed in the background (indexlane.go)
	searching atomic.Int32 // searches and recalls running, which the lane lets go first
}

// errIndexClosed answers a search of a vault that is closing or closed.
var errIndexClosed = errors.New("search index: the vault is closed")

// indexStep is how many notes a build indexes at a time: a step takes a
// fraction of a second, so Close waits for one at most, progress shows,
// and a search during a first build waits for one step at most. The
// step's analysis is most of the build's peak: 250 notes rather than 500
// lowered it from 195–206 to 165–177 MiB at 10,000 notes and from
// 775–785 to 747–777 MiB at 100,000, for a build 0.4–0.9 s longer at
// 10,000 (docs/benchmarks-history.md, "Steps of 250 notes").
var indexStep = 250 // a variable for tests only

// buildHook, set by tests only, runs before each step of the first build
// (done notes indexed out of total).
var buildHook func(done, total int)

// SearchLog receives the index's log lines (rebuilds, embedder failures).
var SearchLog = func(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "cairn: "+format+"\n", args...)
}

// closeIndex stops the work in progress at its next step (a first build,
// a Rebuild, the lane of long notes: each step is bounded), lets the
// searches running finish, then closes the index.
func (v *Vault) closeIndex() error {
	s := &v.index
	s.laneMu.Lock()
	s.stopping.Store(true) // under laneMu: the lane starts no worker now
	s.laneMu.Unlock()
	s.rebuildMu.Lock() // the Rebuild running stops at its next step
	defer s.rebuildMu.Unlock()
	s.openMu.Lock()
	wait := s.opening
	s.openMu.Unlock()
	if wait != nil {
		<-wait // the first build stops at its next step too
	}
	s.opens.Wait()
	v.waitLane()
	s.useMu.Lock()
	defer s.useMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openMu.Lock()
	s.ready.Store(false)
	s.err = errIndexClosed
	s.openMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if ix := s.ix.Load(); ix != nil {
		return ix.Close()
	}
	return nil
}

// Reindex rebuilds the search index from scratch, as Rebuild does; it is
// what `cairn reindex` runs (progress: "index", then "embed").
func (v *Vault) Reindex(progress func(stage string, done, total int)) error {
	return v.Rebuild(progress)
}

// syncIndex brings the live index up to date (see syncLocked).
func (v *Vault) syncIndex(full bool) error {
	v.index.mu.Lock()
	defer v.index.mu.Unlock()
	// Loaded under mu: a Rebuild's swap replaces the index under it.
	ix := v.index.ix.Load()
	if ix == nil || v.index.closed || v.index.stopping.Load() || v.catalogPending() {
		return nil
	}
	return v.syncLocked(ix, full, nil)
}

// syncLocked brings ix up to date; the caller holds index.mu. With full,
// by comparing every note's version and scope with the index's; else
// with the paths the catalog re-read since the last update. force (a
// Rebuild's catch-up) are paths indexed again whatever their version,
// with the catalog's re-read paths too even when full: notes written
// while the Rebuild built, and their neighbours, whose context in the new
// index may be older than their version.
func (v *Vault) syncLocked(ix *search.Index, full bool, force map[string]bool) error {
	ps := v.projectSet()
	if ps != v.index.projects {
		// Projects were added, moved or renamed: scopes may have changed.
		full = full || v.index.projects == nil || projectsDiffer(ps, v.index.projects)
		v.index.projects = ps
	}
	paths, stamps := v.pathsToSync(ix, full, force)
	if job := v.index.job; job != nil {
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
		case stamps[p].large:
			long = append(long, p)
		default:
			todo = append(todo, p)
		}
	}
	todo, long = v.splitLong(todo, long)
	gone, long = v.splitLong(gone, long)
	v.queueLarge(long, false)
	if len(todo) == 0 && len(gone) == 0 {
		return nil
	}
	sort.Strings(todo)
	sort.Strings(gone)
	if err := v.applyIndex(ix, todo, gone); err != nil {
		// Not indexed: try these paths again at the next update.
		v.catalog.giveBack(append(todo, gone...))
		return err
	}
	return nil
}

// pathsToSync are the paths syncLocked updates, each with whether the
// catalog holds it (else it leaves the index), and the catalog's stamps of
// those it holds. The paths changed since the last update are taken from
// the catalog: the caller gives them back if it cannot index them.
func (v *Vault) pathsToSync(ix *search.Index, full bool, force map[string]bool) (map[string]bool, map[string]noteStamp) {
	changed, stamps := v.catalog.takeChanged(force, full)
	out := map[string]bool{}
	if full {
		indexed := ix.Versions()
		for p, st := range stamps {
			ver, ok := indexed[p]
			if !ok || ver != st.version || !v.sameScope(ix, p) {
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

// applyIndex indexes todo and removes gone, then re-indexes the sequence
// neighbours of both, before and after the change (their context holds the
// changed notes' words), in steps, so a large first build stops soon
// when the vault closes and never holds every body in memory at once.
func (v *Vault) applyIndex(ix *search.Index, todo, gone []string) error {
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
	b := v.index.build.Load()
	if b != nil && b.ix == ix {
		b.start(todo)
	}
	for i := 0; i < len(todo); i += indexStep {
		if v.index.stopping.Load() {
			return nil // the next start's sync does the rest
		}
		if b != nil && b.ix == ix {
			b.done.Store(int64(i))
			if buildHook != nil {
				buildHook(i, len(todo))
			}
		}
		followHeap()
		docs := v.searchDocs(todo[i:min(i+indexStep, len(todo))])
		for _, d := range docs {
			for _, q := range d.Sequence {
				neighbours[q] = true
			}
		}
		if err := ix.Apply(docs, nil); err != nil {
			return err
		}
	}
	var cands []string
	for q := range neighbours {
		if !done[q] {
			cands = append(cands, q)
		}
	}
	extra, long := v.splitLong(v.catalog.bySize(cands))
	v.queueLarge(long, true) // their context changed, not their version
	if len(extra) == 0 {
		return nil
	}
	return ix.Apply(v.searchDocs(extra), nil)
}

// splitLong moves the paths the lane holds from paths to long (which
// holds the large notes already).
func (v *Vault) splitLong(paths, long []string) ([]string, []string) {
	keep := paths[:0]
	for _, p := range paths {
		if v.inLane(p) {
			long = append(long, p)
		} else {
			keep = append(keep, p)
		}
	}
	return keep, long
}

// indexSoon schedules an index update in the background (after a write),
// so the next search finds little left to do.
func (v *Vault) indexSoon() {
	if v.index.ix.Load() == nil || !v.index.updateScheduled.CompareAndSwap(false, true) {
		return
	}
	go func() {
		time.Sleep(5 * time.Millisecond) // gather a burst of writes
		v.index.updateScheduled.Store(false)
		if err := v.syncIndex(false); err != nil {
			SearchLog("search index: %v", err)
		}
	}()
}

func projectsDiffer(a, b *projectSet) bool {
	if len(a.list) != len(b.list) {
		return true
	}
	for i := range a.list {
		if a.list[i].Dir != b.list[i].Dir || a.list[i].Handle != b.list[i].Handle {
			return true
		}
	}
	return false
}

func (v *Vault) sameScope(ix *search.Index, p string) bool {
	scope, project, _ := v.scopeOf(p)
	s, pr, ok := ix.Scope(p)
	return ok && s == scope && pr == project
}

func stampVersion(e *catEntry) string {
	return fmt.Sprintf("%d:%d", e.Size, e.Mtime.UnixNano())
}

// scopeOf is what decides access to a note (see roleAt): its owner's
// personal domain, its innermost project, or the vault root (the owner's).
func (v *Vault) scopeOf(p string) (scope, project, owner string) {
	return scopeIn(v.projectSet(), p)
}

// scopeIn is scopeOf with the projects ps.
func scopeIn(ps *projectSet, p string) (scope, project, owner string) {
	if who, _, ok := personalPath(p); ok {
		return "u:" + who, "", who
	}
	if bank, _, ok := bankPath(p); ok {
		return "b:" + bank, "", ""
	}
	if pr := ps.of(p); pr != nil {
		return "p:" + pr.Dir, pr.Handle, ""
	}
	return "root", "", ""
}

// readableScopes are the scopes c may read, narrowed to one project (and
// its sub-projects) when pr is set.
func (v *Vault) readableScopes(c access.Caller, pr *Project, withPrivate bool) ([]string, error) {
	a, err := v.accessNow()
	if err != nil {
		return nil, err
	}
	var out []string
	if withPrivate && c.Principal != "" {
		out = append(out, "u:"+c.Principal)
	}
	if pr == nil && c.Principal == a.Owner && c.Projects == nil {
		out = append(out, "root")
	}
	for _, p := range v.projectSet().list {
		if pr != nil && !pr.holds(p.Dir) {
			continue
		}
		if v.projectRole(c, a, p) >= access.RoleRead {
			out = append(out, "p:"+p.Dir)
		}
	}
	return out, nil
}

// searchDocs reads and parses paths (in parallel) into index documents;
// a file that cannot be read is left out (the catalog drops it next).
func (v *Vault) searchDocs(paths []string) []*search.Doc {
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
				docs[i], _ = v.searchDoc(paths[i])
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

// searchDoc reads one note as the index sees it.
func (v *Vault) searchDoc(p string) (*search.Doc, error) {
	full := v.abs(p)
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	data, err := readFileNoFollow(full)
	if err != nil {
		return nil, err
	}
	d, n := v.docOf(p, data, fi)
	d.Sequence = v.sequenceOf(p, n)
	d.Context = v.contextOf(d.Sequence)
	return d, nil
}

// docOf is the note at p, its file's bytes data and its file's info fi,
// as the index sees it, less its sequence and its context.
func (v *Vault) docOf(p string, data []byte, fi os.FileInfo) (*search.Doc, *note.Note) {
	n := note.Parse(p, data)
	e := &catEntry{Size: fi.Size(), Mtime: fi.ModTime()}
	scope, project, owner := v.scopeOf(p)
	d := &search.Doc{
		Path: p, Version: stampVersion(e), ID: n.ID, Title: n.Title, Aliases: n.Aliases,
		Tags: n.Tags, Type: n.Type, Class: classOf(p), Project: project, Owner: owner,
		Scope: scope, Body: string(n.Body),
	}
	d.Date, d.Meta = noteDateAndMeta(n, fi.ModTime())
	d.Who = whoOf(n)
	return d, n
}

// dateKeys are the frontmatter keys that give a note its own date, in
// order of preference; without one, a note's date is its file's mtime.
var dateKeys = []string{"date", "occurred_at", "event_date", "created", "captured_at"}

// skipMeta are frontmatter keys indexed elsewhere or not worth finding.
var skipMeta = map[string]bool{"id": true, "type": true, "tags": true, "aliases": true, "links": true, "pinned": true, "title": true, "fact_type": true, "explanation": true}

func noteDateAndMeta(n *note.Note, mtime time.Time) (time.Time, []string) {
	date := mtime
	var meta []string
	fm := n.FrontmatterNode()
	if fm == nil {
		return date, nil
	}
	found := map[string]time.Time{}
	for i := 0; i+1 < len(fm.Content); i += 2 {
		k, val := fm.Content[i].Value, fm.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			continue
		}
		if t, ok := ParseDate(val.Value); ok {
			found[k] = t
			continue
		}
		if !skipMeta[k] && len(val.Value) <= 200 && strings.TrimSpace(val.Value) != "" {
			meta = append(meta, val.Value)
		}
	}
	for _, k := range dateKeys {
		if t, ok := found[k]; ok {
			return t, meta
		}
	}
	return date, meta
}

// ParseDate reads the dates people and agents write: RFC 3339, or a day
// (2026-11-29), or a day and a time without a zone (taken as UTC).
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
