package vault

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/internal/intern"
	"github.com/cairn-dev/cairn/internal/notefile"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// catalog is what the vault knows of every note without opening it: id,
// title, aliases, type, tags and links, with the size and mtime it was read
// at. It feeds the link graph, which resolves links as Obsidian does (file
// names and paths) and by ids, titles and aliases; and it tells the graph
// the vault's other files (attachments, and the memory banks' facts, which
// the shared graph does not hold as notes but Obsidian resolves links to),
// so that links resolve to them too. Persisted under .cairn/cache so a
// restart only re-reads the files that changed; the other files are listed
// again by every scan.
type catalog struct {
	// mu guards every field but file, graph and banks (fixed once loaded;
	// the graphs lock themselves). Only the catalog's own methods take it
	// (catalogapi.go); the other methods of catalog expect it held.
	mu sync.Mutex
	// saving is held by persist from its copy of the entries until the
	// file is written, so the file never goes back to an older copy.
	saving  sync.Mutex
	file    string
	entries map[string]*catEntry // by path
	graph   *wikilinks.Graph
	// banks is the memory banks' own graph: their facts never join the
	// shared one, so a fact can neither pin a shared note's path (a link
	// to it) nor make a shared title ambiguous (an H1 like it).
	banks *wikilinks.Graph
	// idPaths lists the paths whose file carries each id. Copying a note
	// file copies its id; the path that comes first (idOrder) keeps it and
	// the others are known by an id derived from their path (saved in
	// their file at their next write, sync or doctor --fix: ids.go), so no
	// note ever hides another. Nearly always one path, held inline
	// (idpaths.go; a map per note took 30 MiB at 100,000 notes).
	idPaths idPaths
	// files are the vault's files that are not notes (outside dot-folders,
	// not ignored by git), which links may name: the shared graph knows
	// them as files.
	files map[string]bool
	// unsaved counts the puts and removes since the file was last
	// written: none, nothing to save; a tenth of the entries, a periodic
	// save writes it (persist).
	unsaved int
	// changed are the paths put or removed since the search index last
	// took them (see syncIndex).
	changed map[string]bool
	// gen counts puts: a rescan notes it before walking the folders, and
	// leaves alone the entries put since (a write's), which are newer than
	// what its walk saw.
	gen uint64
	// dirs tallies each folder's notes (catalogdirs.go).
	dirs map[string]*dirTally
}

type catEntry struct {
	ID      string   `json:"id"`     // the note's id (see catalog.idPaths)
	FileID  string   `json:"fileId"` // the id its file carries
	Title   string   `json:"title"`
	Aliases []string `json:"aliases,omitempty"`
	Type    string   `json:"type,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	// Category is the frontmatter `category` (memory notes); Pinned its
	// `pinned: true` (always shown in the project's start_session).
	Category string           `json:"category,omitempty"`
	Pinned   bool             `json:"pinned,omitempty"`
	Links    []wikilinks.Link `json:"links,omitempty"`
	Size     int64            `json:"size"`
	Mtime    time.Time        `json:"mtime"`
	gen      uint64           // catalog.gen when put
}

// share makes the entry's values that many notes repeat (a type, a
// category, tags; the id its file carries, equal to its own) one string
// each across the catalog (internal/intern).
func (e *catEntry) share() {
	if e.FileID == e.ID {
		e.FileID = e.ID
	}
	e.Type = intern.String(e.Type)
	e.Category = intern.String(e.Category)
	e.Tags = intern.Strings(e.Tags)
}

type catalogFile struct {
	Format  int                  `json:"format"`
	Entries map[string]*catEntry `json:"entries"`
}

// catalogFormat changes when catEntry does; an older file is rebuilt.
// 5: links carry their form, encoding and line (Markdown links are parsed).
const catalogFormat = 5

func loadCatalog(file string) *catalog {
	c := &catalog{file: file, entries: map[string]*catEntry{}, graph: wikilinks.New(), banks: wikilinks.New(), idPaths: newIDPaths(), changed: map[string]bool{}, files: map[string]bool{}, dirs: map[string]*dirTally{}}
	data, err := os.ReadFile(file)
	if err != nil {
		return c
	}
	var cf catalogFile
	if json.Unmarshal(data, &cf) != nil || cf.Format != catalogFormat {
		return c
	}
	c.reserve(len(cf.Entries), false)
	for p, e := range cf.Entries {
		e.share()
		c.entries[p] = e
		c.tally(p, e, 1)
		c.idPaths.add(e.FileID, p)
		c.graphFor(p).Set(graphNote(p, e))
		if g := c.graphFor(p); g != c.graph {
			c.graph.SetFile(p) // a fact: a file the shared graph's links may name
		}
	}
	return c
}

// reserve makes an empty catalog's tables room for about n notes (the
// saved catalog's, or the Markdown files git tracks before every note is
// read, each then changed), so that filling them does not grow them step
// by step: at 100,000 notes the growing was 6-10 % of the open's CPU.
// At most maxReserve: git's count may include files the vault ignores,
// and room reserved for none stays for the process's life.
func (c *catalog) reserve(n int, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n = min(n, maxReserve)
	if len(c.entries) > 0 || n <= 0 {
		return
	}
	c.entries = make(map[string]*catEntry, n)
	c.idPaths = idPaths{one: make(map[string]string, n), many: map[string][]string{}}
	if changed {
		c.changed = make(map[string]bool, n)
	}
	c.graph.Reserve(n)
}

// maxReserve bounds reserve: room for 131,072 notes, 84 MiB of tables
// made at once (the maps a vault of that size fills in any case).
const maxReserve = 1 << 17

// graphFor is the graph a path's note belongs to.
func (c *catalog) graphFor(p string) *wikilinks.Graph {
	if _, _, ok := bankPath(p); ok {
		return c.banks
	}
	return c.graph
}

func graphNote(p string, e *catEntry) wikilinks.Note {
	return wikilinks.Note{ID: e.ID, Path: p, Title: e.Title, Aliases: e.Aliases, Links: e.Links}
}

// write saves entries, persist's copy of the catalog's, to its file, as
// catalogFile: the entries in the order of their paths, as json.Marshal
// orders a map's keys. Encoded one by one, so no second map of the
// entries is built for the encoder.
func (c *catalog) write(entries []savedEntry) error {
	slices.SortFunc(entries, func(a, b savedEntry) int { return strings.Compare(a.path, b.path) })
	var buf bytes.Buffer
	buf.WriteString(`{"format":` + strconv.Itoa(catalogFormat) + `,"entries":{`)
	for i, s := range entries {
		k, err := json.Marshal(s.path)
		if err != nil {
			return err
		}
		e := s.entry()
		v, err := json.Marshal(&e)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteString("}}")
	return gitstore.WriteFileAtomic(c.file, buf.Bytes(), 0o644)
}

// savedEntry is an entry as persist copied it under c.mu. Every field of
// an entry in c.entries is fixed but its ID, which reassign changes in
// place (put makes a new entry for each change of a note): the ID is
// copied, the rest read later through the pointer. Copying whole entries
// took 80-100 ms at 100,000 notes, this 25 ms.
type savedEntry struct {
	path string
	e    *catEntry
	id   string
}

// entry is the entry as it was when copied.
func (s savedEntry) entry() catEntry {
	e := s.e
	return catEntry{ID: s.id, FileID: e.FileID, Title: e.Title, Aliases: e.Aliases, Type: e.Type, Tags: e.Tags,
		Category: e.Category, Pinned: e.Pinned, Links: e.Links, Size: e.Size, Mtime: e.Mtime}
}

// sync makes the catalog match the files seen on disk by a walk that
// began when the catalog was at generation since. An entry put after that
// (a write that landed during the walk) is newer than what the walk saw,
// and is kept as it is: removing it because the walk listed its folder
// before its file existed would lose an acknowledged note. Changed files
// are read and parsed by several workers (parsing dominates a cold start
// whose files are cached, reading one whose files are not).
func (c *catalog) sync(root string, seen map[string]fileStamp, since uint64) (changed []string) {
	for p, e := range c.entries {
		if _, ok := seen[p]; !ok && e.gen <= since {
			c.remove(p)
			changed = append(changed, p)
		}
	}
	var todo []string
	for p, st := range seen {
		if e, ok := c.entries[p]; ok && (e.gen > since || e.Size == st.Size && e.Mtime.Equal(st.Mtime)) {
			continue
		}
		todo = append(todo, p)
	}
	changed = append(changed, todo...)
	jobs := make(chan string)
	go func() {
		for _, p := range todo {
			jobs <- p
		}
		close(jobs)
	}()
	for r := range readNotes(root, jobs, len(todo), nil) {
		c.put(r.p, r.s, r.st)
	}
	return changed
}

// noteRead is a note readNotes read: its summary, and its file's size and
// mtime when read.
type noteRead struct {
	p  string
	s  note.Summary
	st fileStamp
}

// readNotes reads and summarises the notes whose paths come on paths
// (n of them, or -1 when not known) with several workers, and sends each
// on the channel it returns, which is closed once paths is and every note
// is read. A note that cannot be read (gone, not a regular file, too
// large) is left out. keep, when not nil, keeps the texts of the notes
// the walk listed last (opentexts.go).
func readNotes(root string, paths <-chan string, n int, keep *openTexts) <-chan noteRead {
	results := make(chan noteRead, 64)
	// Opened relative to the vault's folder, with the system calls alone
	// (internal/notefile): an os.File for each note, and the path walked
	// again each time, were a quarter of a fresh clone's open at 100,000
	// notes.
	dir, derr := notefile.OpenDir(root)
	// More workers than cores: with the files in the page cache parsing
	// dominates and the extra ones cost nothing, but a cold disk cache
	// makes each read wait on the disk, and two readers left a
	// 100,000-note open at 49 s (issue 16).
	workers := max(runtime.NumCPU(), 16)
	if n >= 0 {
		workers = min(workers, n)
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // a summary keeps no part of it
			for p := range paths {
				kept := keep != nil && keep.next()
				var data []byte
				var st fileStamp
				var err error
				if derr == nil {
					data, st, err = notefile.ReadAt(dir, p, buf, maxReadBytes)
					buf = data[:0]
				} else {
					full := filepath.Join(root, filepath.FromSlash(p))
					st = stampOf(full)
					data, err = readFileNoFollow(full)
				}
				if err == nil {
					if kept {
						keep.keep(p, data, st)
					}
					results <- noteRead{p, note.Summarize(p, data), st}
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		if derr == nil {
			notefile.CloseDir(dir)
		}
		close(results)
	}()
	return results
}

// put records a note read from a file with stamp st, as s summarises
// it.
func (c *catalog) put(p string, s note.Summary, st fileStamp) {
	old := c.entries[p]
	if old != nil && old.FileID != s.ID {
		c.remove(p)
		old = nil
	}
	e := &catEntry{ID: s.ID, FileID: s.ID, Title: s.Title, Aliases: s.Aliases, Type: s.Type, Tags: s.Tags, Category: s.Category, Pinned: s.Pinned, Links: s.Links, Size: st.Size, Mtime: st.Mtime}
	e.share()
	c.gen++
	e.gen = c.gen
	if old != nil {
		c.tally(p, old, -1)
	}
	c.entries[p] = e
	c.tally(p, e, 1)
	c.unsaved++
	c.changed[p] = true
	if old != nil {
		// Same file, same id: replace it in the graph in one step, so a
		// concurrent reader never finds the note missing.
		e.ID = old.ID
		c.graphFor(p).Set(graphNote(p, e))
		return
	}
	c.idPaths.add(e.FileID, p)
	c.reassign(e.FileID, p)
	if c.graphFor(p) != c.graph {
		c.graph.SetFile(p)
	}
}

// reassign gives every path whose file carries fileID its effective id:
// the first path in idOrder keeps it, the others get their derived id.
// The graph follows. always is a path to (re)index even when its id stays.
func (c *catalog) reassign(fileID, always string) {
	paths := idOrder(c.idPaths.of(fileID))
	for i, p := range paths {
		e := c.entries[p]
		want := fileID
		if i > 0 {
			want = copyID(fileID, p)
		}
		switch {
		case e.ID != want:
			g := c.graphFor(p)
			if gn, ok := g.Note(e.ID); ok && gn.Path == p {
				g.Remove(e.ID)
			}
			e.ID = want
			g.Set(graphNote(p, e))
		case p == always:
			c.graphFor(p).Set(graphNote(p, e))
		}
	}
}

// update re-reads one path after a write (or notices it is gone).
func (c *catalog) update(root, p string) {
	full := filepath.Join(root, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	if err != nil || !fi.Mode().IsRegular() {
		c.remove(p)
		return
	}
	data, err := readFileNoFollow(full)
	if err != nil {
		c.remove(p)
		return
	}
	c.put(p, note.Summarize(p, data), stampOfInfo(fi))
}

func (c *catalog) remove(p string) {
	e, ok := c.entries[p]
	if !ok {
		return
	}
	g := c.graphFor(p)
	if gn, ok := g.Note(e.ID); ok && gn.Path == p {
		g.Remove(e.ID)
	}
	delete(c.entries, p)
	c.tally(p, e, -1)
	c.unsaved++
	if g != c.graph {
		c.graph.RemoveFile(p)
	}
	c.changed[p] = true
	if c.idPaths.remove(e.FileID, p) > 0 {
		c.reassign(e.FileID, "")
	}
}

// syncFiles makes the graph's other files those a scan saw.
func (c *catalog) syncFiles(seen map[string]bool) {
	for p := range c.files {
		if !seen[p] {
			delete(c.files, p)
			c.graph.RemoveFile(p)
		}
	}
	for p := range seen {
		if !c.files[p] {
			c.files[p] = true
			c.graph.SetFile(p)
		}
	}
}

// updateFile looks at one path that is not a note after an event: the
// graph knows it as a file while it is a regular file.
func (c *catalog) updateFile(root, p string) {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
	switch {
	case err == nil && fi.Mode().IsRegular():
		if !c.files[p] {
			c.files[p] = true
			c.graph.SetFile(p)
		}
	case c.files[p]:
		delete(c.files, p)
		c.graph.RemoveFile(p)
	}
}

// isOtherFile says whether a vault path is a file links may name that is
// not a note: outside dot-folders, not an editor's temporary file.
func isOtherFile(p string) bool {
	return !strings.HasSuffix(p, ".md") && !hiddenSegment(p) && !ignorable(baseName(p))
}

// pathOf is the path of a note id ("" when unknown). It needs no lock of
// the catalog's: the graph locks itself.
func (c *catalog) pathOf(id string) string {
	if n, ok := c.graph.Note(id); ok {
		return n.Path
	}
	return ""
}

// entry returns the catalog's entry for a path (nil when unknown); with
// load, a path the catalog does not know yet is read first.
func (v *Vault) entry(p string, load bool) *catEntry {
	return v.catalog.lookup(v.root, p, load)
}

// adoptID gives a parsed note the id the catalog knows it by. For a copy
// whose file repeats another note's id, that is its own derived id, which
// the next write saves in its frontmatter (EnsureID), ending the clash.
func (v *Vault) adoptID(n *note.Note) (clash bool) {
	e := v.entry(n.Path, false)
	if e == nil || e.ID == n.ID {
		return false
	}
	n.ID, n.IDSaved = e.ID, false
	return true
}
