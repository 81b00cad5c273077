package vault

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/note"
)

// recountDirs is the per-folder tally computed from scratch from the
// catalog's entries: what the kept tallies must always equal.
func recountDirs(c *catalog) map[string]*dirTally {
	fresh := &catalog{dirs: map[string]*dirTally{}}
	for p, e := range c.entries {
		fresh.tally(p, e, 1)
	}
	return fresh.dirs
}

// TestCatalogKeepsFolderTallies puts, rewrites, re-identifies and removes
// notes at random and checks after every step that the folder tallies
// start_session and get_my_projects add up equal a count over every entry;
// then that a catalog loaded from the saved file holds the same.
func TestCatalogKeepsFolderTallies(t *testing.T) {
	file := filepath.Join(t.TempDir(), "catalog.json")
	c := loadCatalog(file)
	r := rand.New(rand.NewSource(16))
	dirs := []string{"", "projects/a", "projects/a/sub", "projects/a/sub/deep", "projects/b", "people/ann"}
	tags := []string{"x", "y", "z"}
	types := []string{"", "decision", "meeting"}
	var paths []string
	for i := 0; i < 40; i++ {
		p := fmt.Sprintf("n%d.md", i)
		if d := dirs[r.Intn(len(dirs))]; d != "" {
			p = d + "/" + p
		}
		paths = append(paths, p)
	}
	for step := 0; step < 2000; step++ {
		p := paths[r.Intn(len(paths))]
		if r.Intn(4) == 0 {
			c.remove(p)
		} else {
			fm := fmt.Sprintf("---\nid: %s\n", p) // the same id: a rewrite in place
			if r.Intn(5) == 0 {
				fm = fmt.Sprintf("---\nid: other-%d\n", step) // another id: removed, then put
			}
			if ty := types[r.Intn(len(types))]; ty != "" {
				fm += "type: " + ty + "\n"
			}
			fm += "tags: ["
			for k := r.Intn(3); k > 0; k-- {
				fm += tags[r.Intn(len(tags))] + ", "
			}
			fm += "]\n"
			if r.Intn(3) == 0 {
				fm += "category: fact\n"
			}
			if r.Intn(4) == 0 {
				fm += "pinned: true\n"
			}
			fm += "---\n# " + p + "\n"
			c.put(p, note.Summarize(p, []byte(fm)), fileStamp{Size: int64(len(fm)), Mtime: time.Unix(int64(step), 0)})
		}
		if want := recountDirs(c); !reflect.DeepEqual(c.dirs, want) {
			t.Fatalf("step %d (%s): tallies\n%v\nwant\n%v", step, p, tallyString(c.dirs), tallyString(want))
		}
	}
	if len(c.dirs) == 0 {
		t.Fatal("no folder left with notes: the walk tested nothing at its end")
	}
	if err := c.persist(true); err != nil {
		t.Fatal(err)
	}
	loaded := loadCatalog(file)
	if len(loaded.entries) != len(c.entries) {
		t.Fatalf("loaded %d entries, saved %d", len(loaded.entries), len(c.entries))
	}
	if !reflect.DeepEqual(loaded.dirs, c.dirs) {
		t.Fatalf("loaded tallies\n%v\nwant\n%v", tallyString(loaded.dirs), tallyString(c.dirs))
	}
}

func tallyString(m map[string]*dirTally) string {
	s := ""
	for d, t := range m {
		s += fmt.Sprintf("%q: %+v\n", d, *t)
	}
	return s
}

// TestDirsUnder lists a folder and its subfolders, not its namesakes.
func TestDirsUnder(t *testing.T) {
	c := &catalog{dirs: map[string]*dirTally{}}
	for _, d := range []string{"", "a", "a/b", "a/b/c", "ab", "ab/c", "b/a"} {
		c.dirs[d] = &dirTally{notes: 1}
	}
	for dir, want := range map[string][]string{
		"a":   {"a", "a/b", "a/b/c"},
		"a/b": {"a/b", "a/b/c"},
		"ab":  {"ab", "ab/c"},
		"":    {"", "a", "a/b", "a/b/c", "ab", "ab/c", "b/a"},
		"c":   nil,
	} {
		var got []string
		c.dirsUnder(dir, func(d string, _ *dirTally) { got = append(got, d) })
		sort.Strings(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("dirsUnder(%q) = %v, want %v", dir, got, want)
		}
	}
}
