package vault

import "maps"

// dirTally is what the catalog holds of one folder's notes (not of its
// subfolders'): how many, their tags, types and categories with how many
// notes carry each, and which are pinned. The catalog keeps one per folder
// as notes are put and removed, so that start_session and get_my_projects
// add up a project's folders instead of scanning every note of the vault:
// their cost follows the folders of the project, not the vault's size.
type dirTally struct {
	notes      int
	tags       map[string]int
	types      map[string]int
	categories map[string]int
	pinned     map[string]bool
}

// clone is a copy of t that later puts and removals do not change.
func (t *dirTally) clone() dirTally {
	return dirTally{notes: t.notes, tags: maps.Clone(t.tags), types: maps.Clone(t.types),
		categories: maps.Clone(t.categories), pinned: maps.Clone(t.pinned)}
}

// tally adds (sign 1) or takes away (sign -1) the entry e at path p from
// its folder's tally; a folder left with no note is dropped.
func (c *catalog) tally(p string, e *catEntry, sign int) {
	d := parentDir(p)
	t := c.dirs[d]
	if t == nil {
		if sign < 0 {
			return
		}
		t = &dirTally{}
		c.dirs[d] = t
	}
	t.notes += sign
	for _, tag := range e.Tags {
		t.tags = adjustCount(t.tags, tag, sign)
	}
	if e.Type != "" {
		t.types = adjustCount(t.types, e.Type, sign)
	}
	if e.Category != "" {
		t.categories = adjustCount(t.categories, e.Category, sign)
	}
	if e.Pinned {
		if sign > 0 {
			if t.pinned == nil {
				t.pinned = map[string]bool{}
			}
			t.pinned[p] = true
		} else if delete(t.pinned, p); len(t.pinned) == 0 {
			t.pinned = nil
		}
	}
	if t.notes <= 0 {
		delete(c.dirs, d)
	}
}

// adjustCount moves a count by sign, dropping a key that falls to zero and a
// map left empty.
func adjustCount(m map[string]int, k string, sign int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	if m[k] += sign; m[k] <= 0 {
		delete(m, k)
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// dirsUnder calls f with every folder at or below dir that holds notes.
// The caller holds the catalog's lock.
func (c *catalog) dirsUnder(dir string, f func(d string, t *dirTally)) {
	for d, t := range c.dirs {
		if d == dir || dir == "" || len(d) > len(dir) && d[len(dir)] == '/' && d[:len(dir)] == dir {
			f(d, t)
		}
	}
}
