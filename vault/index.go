package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/search"
	"gopkg.in/yaml.v3"
)

// searchState is the vault's search index, opened on first use (a short
// command-line operation never pays for it). The catalog records every
// path it re-reads; before each search, and soon after each write, those
// paths are re-read from disk and indexed, so a search sees what the
// catalog sees. Notes over largeNoteBytes are the exception: they are
// indexed in the background lane (indexlane.go), and searches do not wait
// for them.
type searchState struct {
	once   sync.Once
	ix     atomic.Pointer[search.Index] // set once open
	err    error
	notice string // why semantic search is off, when configured but broken

	// mu serialises index updates (but not the lane's long notes). Lock
	// order: mu, then catMu (and what follows catMu); laneMu is taken
	// last, with nothing taken under it.
	mu       sync.Mutex
	projects *projectSet // the project set the scopes were computed with
	closed   bool
	progress func(done, total int) // told of a full sync's progress
	soon     atomic.Bool           // a background update is scheduled
	ready    atomic.Bool           // the index is open and its first sync done
	// stopping: Close has begun. A full sync stops at its next step, the
	// lane before its next note, and nothing new starts.
	stopping atomic.Bool

	laneMu    sync.Mutex
	lane      indexLane    // long notes, indexed in the background (indexlane.go)
	searching atomic.Int32 // searches and recalls running, which the lane lets go first
}

// SearchLog receives the index's log lines (rebuilds, embedder failures).
var SearchLog = func(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "cairn: "+format+"\n", args...)
}

// SearchIndex opens the search index (once), brings it up to date with
// the notes, and queues the vectors that are missing. `cairn serve` calls
// it at start, in the background.
func (v *Vault) SearchIndex() (*search.Index, error) {
	v.srch.once.Do(func() {
		cfg, err := LoadConfig(v.root)
		var emb search.Embedder
		if err == nil {
			emb, err = search.NewEmbedder(cfg.Embedder)
		}
		if err != nil {
			v.srch.notice = fmt.Sprintf("semantic search is off: %v", err)
			SearchLog("%s", v.srch.notice)
			emb = nil
		}
		ix, err := search.Open(filepath.Join(v.root, CacheDir, "search"), search.Options{
			Embedder: emb,
			Load:     v.searchDoc,
			Logf:     SearchLog,
		})
		if err != nil {
			v.srch.err = err
			return
		}
		v.srch.ix.Store(ix)
		if err := v.syncIndex(true); err != nil {
			v.srch.err = err
			return
		}
		ix.QueueMissingVectors()
		v.srch.ready.Store(true)
	})
	if v.srch.err != nil {
		return nil, v.srch.err
	}
	ix := v.srch.ix.Load()
	if ix == nil {
		return nil, fmt.Errorf("search index: the vault is closed")
	}
	return ix, nil
}

// searchIndexCtx is SearchIndex for a caller that stops waiting when ctx
// ends: a search asked while the index is being built (seconds per
// 10,000 notes) must not hold a shutdown up. The build goes on.
func (v *Vault) searchIndexCtx(ctx context.Context) (*search.Index, error) {
	if v.srch.ready.Load() {
		return v.SearchIndex()
	}
	type opened struct {
		ix  *search.Index
		err error
	}
	c := make(chan opened, 1)
	go func() {
		ix, err := v.SearchIndex()
		c <- opened{ix, err}
	}()
	select {
	case o := <-c:
		return o.ix, o.err
	case <-ctx.Done():
		return nil, fmt.Errorf("search index: still being built: %w", ctx.Err())
	}
}

// closeIndex stops the work in progress at its next step (a first build,
// the lane of long notes: each step is bounded), then closes the index.
func (v *Vault) closeIndex() error {
	v.srch.laneMu.Lock()
	v.srch.stopping.Store(true) // under laneMu: the lane starts no worker now
	v.srch.laneMu.Unlock()
	v.srch.once.Do(func() {})
	v.waitLane()
	v.srch.mu.Lock()
	defer v.srch.mu.Unlock()
	if v.srch.closed {
		return nil
	}
	v.srch.closed = true
	if ix := v.srch.ix.Load(); ix != nil {
		return ix.Close()
	}
	return nil
}

// Reindex rebuilds the search index from scratch: the Bleve index and the
// vectors are deleted, every note is indexed again, and the vectors made.
// progress, when set, is told how many notes are indexed (stage "index")
// and then embedded (stage "embed"), out of how many. The vault must be
// open exclusively (no server running on it) and the index not opened yet.
func (v *Vault) Reindex(progress func(stage string, done, total int)) error {
	if v.hostLock == nil {
		return fmt.Errorf("reindex: open the vault exclusively (is a cairn server running on it?)")
	}
	if v.srch.ix.Load() != nil {
		return fmt.Errorf("reindex: the search index is already open")
	}
	if err := os.RemoveAll(filepath.Join(v.root, CacheDir, "search")); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	if progress != nil {
		v.srch.progress = func(done, total int) { progress("index", done, total) }
	}
	ix, err := v.SearchIndex()
	if err != nil {
		return err
	}
	v.waitLane()
	total := ix.VectorsPending()
	for n := total; n > 0; n = ix.VectorsPending() {
		if progress != nil {
			progress("embed", total-n, total)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if progress != nil && total > 0 {
		progress("embed", total, total)
	}
	return ix.Persist()
}

// syncIndex brings the index up to date: with full, by comparing every
// note's version and scope with the index's; else with the paths the
// catalog re-read since the last update.
func (v *Vault) syncIndex(full bool) error {
	ix := v.srch.ix.Load()
	v.srch.mu.Lock()
	defer v.srch.mu.Unlock()
	if v.srch.closed || v.srch.stopping.Load() {
		return nil
	}
	ps := v.projectSet()
	if ps != v.srch.projects {
		// Projects were added, moved or renamed: scopes may have changed.
		full = full || v.srch.projects == nil || projectsDiffer(ps, v.srch.projects)
		v.srch.projects = ps
	}
	v.catMu.Lock()
	var todo, gone []string
	if full {
		indexed := ix.Versions()
		for p, e := range v.cat.entries {
			ver, ok := indexed[p]
			if !ok || ver != stampVersion(e) || !v.sameScope(ix, p) {
				todo = append(todo, p)
			}
		}
		for p := range indexed {
			if v.cat.entries[p] == nil {
				gone = append(gone, p)
			}
		}
	} else {
		for p := range v.cat.changed {
			if v.cat.entries[p] != nil {
				todo = append(todo, p)
			} else {
				gone = append(gone, p)
			}
		}
	}
	v.cat.changed = map[string]bool{}
	// Long notes, and paths the lane holds, go to the lane.
	var long []string
	todo, long = v.splitLong(todo, long)
	gone, long = v.splitLong(gone, long)
	v.catMu.Unlock()
	v.queueLarge(long, false)
	if len(todo) == 0 && len(gone) == 0 {
		return nil
	}
	sort.Strings(todo)
	if err := v.applyIndex(ix, todo, gone); err != nil {
		// Not indexed: try these paths again at the next update.
		v.catMu.Lock()
		for _, p := range append(todo, gone...) {
			v.cat.changed[p] = true
		}
		v.catMu.Unlock()
		return err
	}
	return nil
}

// applyIndex indexes todo and removes gone, then re-indexes the sequence
// neighbours of both, before and after the change (their context holds the
// changed notes' words), in steps, so a large first build shows progress
// and never holds every body in memory at once.
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
	// A step of 500 notes takes a fraction of a second: Close waits for
	// one at most.
	const step = 500
	for i := 0; i < len(todo); i += step {
		if v.srch.stopping.Load() {
			return nil // the next start's sync does the rest
		}
		docs := v.searchDocs(todo[i:min(i+step, len(todo))])
		for _, d := range docs {
			for _, q := range d.Sequence {
				neighbours[q] = true
			}
		}
		if err := ix.Apply(docs, nil); err != nil {
			return err
		}
		if v.srch.progress != nil {
			v.srch.progress(min(i+step, len(todo)), len(todo))
		}
	}
	var extra, long []string
	v.catMu.Lock()
	for q := range neighbours {
		if !done[q] && v.cat.entries[q] != nil {
			extra = append(extra, q)
		}
	}
	extra, long = v.splitLong(extra, long)
	v.catMu.Unlock()
	v.queueLarge(long, true) // their context changed, not their version
	sort.Strings(extra)
	if len(extra) == 0 {
		return nil
	}
	return ix.Apply(v.searchDocs(extra), nil)
}

// splitLong moves the paths of long notes, and those the lane holds, from
// paths to long. The caller holds catMu.
func (v *Vault) splitLong(paths, long []string) ([]string, []string) {
	keep := paths[:0]
	for _, p := range paths {
		if isLarge(v.cat.entries[p]) || v.inLane(p) {
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
	if v.srch.ix.Load() == nil || !v.srch.soon.CompareAndSwap(false, true) {
		return
	}
	go func() {
		time.Sleep(5 * time.Millisecond) // gather a burst of writes
		v.srch.soon.Store(false)
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
	if who, _, ok := personalPath(p); ok {
		return "u:" + who, "", who
	}
	if bank, _, ok := bankPath(p); ok {
		return "b:" + bank, "", ""
	}
	if pr := v.projectSet().of(p); pr != nil {
		return "p:" + pr.Dir, pr.Handle, ""
	}
	return "root", "", ""
}

// readableScopes are the scopes c may read, narrowed to one project (and
// its sub-projects) when pr is set.
func (v *Vault) readableScopes(c Caller, pr *Project, withPrivate bool) ([]string, error) {
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
		if pr != nil && p.Dir != pr.Dir && !strings.HasPrefix(p.Dir, pr.Dir+"/") {
			continue
		}
		if v.projectRole(c, a, p) >= RoleRead {
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
	n := ParseNote(p, data)
	e := &catEntry{Size: fi.Size(), Mtime: fi.ModTime()}
	scope, project, owner := v.scopeOf(p)
	d := &search.Doc{
		Path: p, Version: stampVersion(e), ID: n.ID, Title: n.Title, Aliases: n.Aliases,
		Tags: n.Tags, Type: n.Type, Class: classOf(p), Project: project, Owner: owner,
		Scope: scope, Body: string(n.Body),
	}
	d.Date, d.Meta = noteDateAndMeta(n, fi.ModTime())
	d.Who = whoOf(n)
	d.Sequence = v.sequenceOf(p, n)
	d.Context = v.contextOf(d.Sequence)
	return d, nil
}

// dateKeys are the frontmatter keys that give a note its own date, in
// order of preference; without one, a note's date is its file's mtime.
var dateKeys = []string{"date", "occurred_at", "event_date", "created", "captured_at"}

// skipMeta are frontmatter keys indexed elsewhere or not worth finding.
var skipMeta = map[string]bool{"id": true, "type": true, "tags": true, "aliases": true, "links": true, "pinned": true, "title": true, "fact_type": true, "explanation": true}

func noteDateAndMeta(n *Note, mtime time.Time) (time.Time, []string) {
	date := mtime
	var meta []string
	if n.fmNode == nil {
		return date, nil
	}
	found := map[string]time.Time{}
	for i := 0; i+1 < len(n.fmNode.Content); i += 2 {
		k, val := n.fmNode.Content[i].Value, n.fmNode.Content[i+1]
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
