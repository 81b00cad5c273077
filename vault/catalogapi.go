package vault

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/vault/indexing"
	"github.com/cairn-dev/cairn/wikilinks"
)

// The catalog's own API: what the rest of the package asks of it. Each
// method here takes the catalog's lock itself and calls out to nothing but
// the link graphs (which lock themselves), so no other lock is ever taken
// while the catalog's is held, and nothing outside the catalog's files
// (catalog*.go) touches its fields or its lock (catalog_shape_test.go
// checks both). What these methods return is a copy or a value the
// catalog no longer changes, never one of its maps.

// graph is the shared link graph. It is fixed once the vault is open and
// locks itself.
func (v *Vault) graph() *wikilinks.Graph { return v.catalog.graph }

// graphFor is the graph a path's note belongs to: the memory banks' own,
// or the shared one. Both are fixed once the vault is open.
func (v *Vault) graphFor(p string) *wikilinks.Graph { return v.catalog.graphFor(p) }

// pathOf is the path of a note id in the shared graph ("" when unknown).
func (v *Vault) pathOf(id string) string { return v.catalog.pathOf(id) }

// count is how many notes the catalog holds.
func (c *catalog) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// paths lists every note path the catalog holds, sorted.
func (c *catalog) paths() []string {
	return c.pathsUnder("")
}

// pathsUnder lists the note paths that start with prefix, sorted.
func (c *catalog) pathsUnder(prefix string) []string {
	c.mu.Lock()
	out := make([]string, 0, len(c.entries))
	for p := range c.entries {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	c.mu.Unlock()
	slices.Sort(out)
	return out
}

// idsUnder maps each note path that starts with prefix to its id.
func (c *catalog) idsUnder(prefix string) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	for p, e := range c.entries {
		if strings.HasPrefix(p, prefix) {
			out[p] = e.ID
		}
	}
	return out
}

// lookup returns the entry for a path (nil when unknown); with load, a
// path the catalog does not know yet is read first. An entry is replaced,
// never changed, once returned, except for its ID when a copy's clash is
// settled (reassign): read that through the graph when it matters.
func (c *catalog) lookup(root, p string, load bool) *catEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[p]
	if e == nil && load {
		c.update(root, p)
		e = c.entries[p]
	}
	return e
}

// stamp is the version of the file the catalog read at p (size and
// mtime: stampVersion), and whether it knows p.
func (c *catalog) stamp(p string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[p]
	if e == nil {
		return "", false
	}
	return stampVersion(e), true
}

// refresh re-reads the note paths among paths (a write's, a sync's, a
// recovered commit's), or notices they are gone, and returns how many it
// looked at.
func (c *catalog) refresh(root string, paths []string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, p := range paths {
		if isNotePath(p) {
			c.update(root, p)
			n++
		}
	}
	return n
}

// refreshFile looks at one path that is not a note after an event
// (updateFile).
func (c *catalog) refreshFile(root, p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updateFile(root, p)
}

// generation is the count of puts so far, which a rescan notes before it
// walks the folders (see sync).
func (c *catalog) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// fill puts the notes whose paths come on paths, read as they come, and
// returns their paths once paths is closed: a walk that found the
// catalog empty (a fresh clone's open) sends each note as it finds it, so
// that the reading goes on beside the walk rather than after it.
func (c *catalog) fill(root string, paths <-chan string, keep *openTexts) (put []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for r := range readNotes(root, paths, -1, keep) {
		c.put(r.p, r.s, r.st)
		put = append(put, r.p)
	}
	return put
}

// empty says whether the catalog knows no note.
func (c *catalog) empty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries) == 0
}

// syncScan makes the catalog match what a rescan that began at generation
// since saw: the notes (sync) and the other files (syncFiles). It returns
// the note paths that changed.
func (c *catalog) syncScan(root string, seen map[string]fileStamp, others map[string]bool, since uint64) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	changed := c.sync(root, seen, since)
	c.syncFiles(others)
	return changed
}

// catalogWriteHook, when set (tests), is called by persist once it has
// copied the entries and let go of c.mu.
var catalogWriteHook func()

// persist writes the catalog to its file when it changed; a periodic
// save (all false) only once a tenth of its entries changed since the
// file was written. A file behind the notes costs the next start little:
// its walk re-reads every note whose size or modification time differs
// from its entry (sync), about 30 µs a note, where each save encodes
// every entry (0.5 s of CPU at 100,000 notes, and 20 MB written) for one
// note changed. Close saves whatever changed.
//
// Only a copy of the entries is made under c.mu (savedEntry; 25 ms at
// 100,000 notes): encoding them and writing the file took 0.35-0.65 s
// there, every search and read waiting for the lock meanwhile.
func (c *catalog) persist(all bool) error {
	c.saving.Lock()
	defer c.saving.Unlock()
	c.mu.Lock()
	if c.unsaved == 0 || !all && c.unsaved*10 < len(c.entries) {
		c.mu.Unlock()
		return nil
	}
	entries := make([]savedEntry, 0, len(c.entries))
	for p, e := range c.entries {
		entries = append(entries, savedEntry{p, e, e.ID})
	}
	unsaved := c.unsaved
	c.unsaved = 0
	c.mu.Unlock()
	if catalogWriteHook != nil {
		catalogWriteHook()
	}
	if err := c.write(entries); err != nil {
		c.mu.Lock()
		c.unsaved += unsaved
		c.mu.Unlock()
		return err
	}
	return nil
}

// knownUnder lists the notes and other files the catalog knows under rel,
// a path that is no folder now (the watcher's): a folder renamed, removed
// or replaced by a file takes them with it. A path the catalog knows as a
// note or a file was no folder, and is answered without a scan: every
// note written sends the watcher its path, and scanning 100,000 entries
// for each took milliseconds and held 100 MiB of garbage during a burst of
// writes (issue 16).
func (c *catalog) knownUnder(rel string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[rel] != nil || c.files[rel] {
		return nil
	}
	prefix := rel + "/"
	var out []string
	for p := range c.entries {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	for p := range c.files {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out
}

// duplicateIDs lists the notes whose file repeats another's id, with the
// path that keeps it (idOrder) and the id each copy is known by.
func (c *catalog) duplicateIDs() []IDCopy {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []IDCopy
	for id, set := range c.idPaths.many {
		paths := idOrder(set)
		for _, p := range paths[1:] {
			out = append(out, IDCopy{ID: id, Kept: paths[0], Path: p, NewID: copyID(id, p)})
		}
	}
	return out
}

// takeChanged returns the paths put or removed since the index last took
// them, and forgets them (the index owns them now, until it gives back
// those it could not index: giveBack); with them, read at the same
// instant, the indexing.Stamp (stampVersion, isLarge) of each of them and of force's, or of every note
// when all is set. A path the catalog does not hold has no stamp.
func (c *catalog) takeChanged(force map[string]bool, all bool) (changed map[string]bool, stamps map[string]indexing.Stamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	changed = c.changed
	c.changed = map[string]bool{}
	stamps = map[string]indexing.Stamp{}
	if all {
		for p, e := range c.entries {
			stamps[p] = indexing.Stamp{Version: stampVersion(e), Large: isLarge(e)}
		}
		return changed, stamps
	}
	for _, set := range []map[string]bool{changed, force} {
		for p := range set {
			if e := c.entries[p]; e != nil {
				stamps[p] = indexing.Stamp{Version: stampVersion(e), Large: isLarge(e)}
			}
		}
	}
	return changed, stamps
}

// changedNotes are the notes put since the index last took the changed
// paths (takeChanged), those that still exist; unlike takeChanged, it
// leaves them to the index.
func (c *catalog) changedNotes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for p := range c.changed {
		if c.entries[p] != nil {
			out = append(out, p)
		}
	}
	return out
}

// giveBack marks paths changed again, for the next update of the index.
func (c *catalog) giveBack(paths []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range paths {
		c.changed[p] = true
	}
}

// bySize splits the paths among ps the catalog holds into short and large
// notes, each sorted; the others are left out.
func (c *catalog) bySize(ps []string) (short, large []string) {
	c.mu.Lock()
	for _, p := range ps {
		switch e := c.entries[p]; {
		case e == nil:
		case isLarge(e):
			large = append(large, p)
		default:
			short = append(short, p)
		}
	}
	c.mu.Unlock()
	slices.Sort(short)
	slices.Sort(large)
	return short, large
}

// allBySize splits every note into short and large ones, each sorted.
func (c *catalog) allBySize() (short, large []string) {
	c.mu.Lock()
	for p, e := range c.entries {
		if isLarge(e) {
			large = append(large, p)
		} else {
			short = append(short, p)
		}
	}
	c.mu.Unlock()
	slices.Sort(short)
	slices.Sort(large)
	return short, large
}

// noteCounts is how many notes each folder holds (not counting its
// subfolders'), for every folder at or below dir that holds notes.
func (c *catalog) noteCounts(dir string) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	c.dirsUnder(dir, func(d string, t *dirTally) { out[d] = t.notes })
	return out
}

// tallies is a copy of the tally of every folder at or below dir that
// holds notes.
func (c *catalog) tallies(dir string) map[string]dirTally {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]dirTally{}
	c.dirsUnder(dir, func(d string, t *dirTally) { out[d] = t.clone() })
	return out
}
