package vault

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
)

// catalog is what the vault knows of every note without opening it: id,
// title, aliases, type and tags, with the size and mtime it was read at.
// It resolves ids and titles to paths. Persisted under .cairn/cache so a
// restart only re-reads files that changed.
type catalog struct {
	file    string
	entries map[string]*catEntry // by path
	byID    map[string]string
	byName  map[string]map[string]bool // lower-cased title or alias → paths
	dirty   bool
}

type catEntry struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Aliases []string  `json:"aliases,omitempty"`
	Type    string    `json:"type,omitempty"`
	Tags    []string  `json:"tags,omitempty"`
	Size    int64     `json:"size"`
	Mtime   time.Time `json:"mtime"`
}

type catalogFile struct {
	Format  int                  `json:"format"`
	Entries map[string]*catEntry `json:"entries"`
}

func loadCatalog(file string) *catalog {
	c := &catalog{file: file, entries: map[string]*catEntry{}, byID: map[string]string{}, byName: map[string]map[string]bool{}}
	data, err := os.ReadFile(file)
	if err != nil {
		return c
	}
	var cf catalogFile
	if json.Unmarshal(data, &cf) != nil || cf.Format != 1 {
		return c
	}
	for p, e := range cf.Entries {
		c.entries[p] = e
		c.byID[e.ID] = p
		c.indexNames(p, e, true)
	}
	return c
}

func (c *catalog) save() error {
	if !c.dirty {
		return nil
	}
	data, err := json.Marshal(catalogFile{Format: 1, Entries: c.entries})
	if err != nil {
		return err
	}
	if err := gitstore.WriteFileAtomic(c.file, data, 0o644); err != nil {
		return err
	}
	c.dirty = false
	return nil
}

// sync makes the catalog match the files seen on disk.
func (c *catalog) sync(root string, seen map[string]fileStamp) {
	for p := range c.entries {
		if _, ok := seen[p]; !ok {
			c.remove(p)
		}
	}
	for p, st := range seen {
		if e, ok := c.entries[p]; ok && e.Size == st.size && e.Mtime.Equal(st.mtime) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		c.put(ParseNote(p, data), st)
	}
}

func (c *catalog) put(n *Note, st fileStamp) {
	if old, ok := c.entries[n.Path]; ok {
		if c.byID[old.ID] == n.Path {
			delete(c.byID, old.ID)
		}
		c.indexNames(n.Path, old, false)
	}
	e := &catEntry{ID: n.ID, Title: n.Title, Aliases: n.Aliases, Type: n.Type, Tags: n.Tags, Size: st.size, Mtime: st.mtime}
	c.entries[n.Path] = e
	c.byID[n.ID] = n.Path
	c.indexNames(n.Path, e, true)
	c.dirty = true
}

// indexNames adds (or removes) a note's title and aliases to the name index.
func (c *catalog) indexNames(p string, e *catEntry, add bool) {
	for _, name := range append([]string{e.Title}, e.Aliases...) {
		k := strings.ToLower(name)
		if add {
			if c.byName[k] == nil {
				c.byName[k] = map[string]bool{}
			}
			c.byName[k][p] = true
		} else if m := c.byName[k]; m != nil {
			delete(m, p)
			if len(m) == 0 {
				delete(c.byName, k)
			}
		}
	}
}

// update re-reads one path after a write (or notices it is gone).
func (c *catalog) update(root, p string) {
	full := filepath.Join(root, filepath.FromSlash(p))
	fi, err := os.Stat(full)
	if err != nil {
		c.remove(p)
		return
	}
	data, err := os.ReadFile(full)
	if err != nil {
		c.remove(p)
		return
	}
	c.put(ParseNote(p, data), fileStamp{fi.Size(), fi.ModTime()})
}

func (c *catalog) remove(p string) {
	if e, ok := c.entries[p]; ok {
		if c.byID[e.ID] == p {
			delete(c.byID, e.ID)
		}
		c.indexNames(p, e, false)
		delete(c.entries, p)
		c.dirty = true
	}
}

// byTitle returns the paths whose title (or, with aliases, an alias) equals
// t, exactly first and then ignoring case.
func (c *catalog) byTitle(t string) []string {
	var exact, folded []string
	for p := range c.byName[strings.ToLower(t)] {
		e := c.entries[p]
		folded = append(folded, p)
		for _, n := range append([]string{e.Title}, e.Aliases...) {
			if n == t {
				exact = append(exact, p)
				break
			}
		}
	}
	if len(exact) == 0 {
		exact = folded
	}
	sort.Strings(exact)
	return exact
}
