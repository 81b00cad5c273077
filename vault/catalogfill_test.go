package vault

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

// A fresh clone's open fills the catalog while it walks (catalog.fill,
// reading each note as found); a warm open re-reads what changed after
// the walk (catalog.sync). Both know every note the same way: its entry,
// the ids, the folder tallies, the vault's other files; a symbolic link
// is no note either way.
func TestAFreshOpenCatalogsNotesAsARescanDoes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"acme/Plain.md":      "---\nid: 01PLAIN\ntype: decision\ntags: [a, b]\naliases:\n  - Plainly\ncategory: fact\npinned: yes\nsupersedes: \"[[Welcome]]\"\n---\n# Plain\n\nSee [[Welcome]] and [x](acme/Other.md).\n",
		"acme/Other.md":      "---\nid: 01OTHER\nnested:\n  k: [1, {z: null}]\nbody: |\n  a block\n---\n# Other\n",
		"acme/Copy.md":       "---\nid: 01PLAIN\n---\n# A copy of Plain's id\n",
		"acme/Broken.md":     "---\nkey: [unclosed\n---\n# Broken\n",
		"acme/None.md":       "No frontmatter, [[Plain]].\n",
		"banks/b/fact.md":    "---\nid: 01FACT\n---\n# Fact\n",
		"acme/pic.png":       "png",
		"acme/sub/Deeper.md": "# Deeper\n",
	}
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "acme", "Plain.md"), filepath.Join(dir, "acme", "Link.md")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, CacheDir, "catalog.json"))
	snapshot := func() (map[string]catEntry, any, any, any) {
		v, err := Open(dir, Options{Quiet: testQuiet})
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		c := v.catalog
		c.mu.Lock()
		defer c.mu.Unlock()
		entries := map[string]catEntry{}
		for p, e := range c.entries {
			// Its size and mtime are the file's: a later scan sees it
			// unchanged.
			if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err != nil || fi.Size() != e.Size || !fi.ModTime().Equal(e.Mtime) {
				t.Errorf("%s catalogued with size %d, mtime %s; the file: %v", p, e.Size, e.Mtime, fi)
			}
			k := *e
			k.Size, k.Mtime, k.gen = 0, time.Time{}, 0
			entries[p] = k
		}
		ids := map[string][]string{} // in the order notes came: idOrder ranks them
		for id, p := range c.idPaths.one {
			ids[id] = []string{p}
		}
		for id, ps := range c.idPaths.many {
			ids[id] = slices.Sorted(slices.Values(ps))
		}
		return entries, ids, c.files, c.dirs
	}
	fresh, freshIDs, freshFiles, freshDirs := snapshot()
	if _, err := os.Stat(filepath.Join(dir, CacheDir, "catalog.json")); err != nil {
		t.Fatalf("the fresh open saved no catalog: %v", err)
	}
	// Every note changed since: the warm open reads them all again after
	// its walk.
	later := time.Now().Add(time.Hour)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			os.Chtimes(p, later, later)
		}
		return nil
	})
	warm, warmIDs, warmFiles, warmDirs := snapshot()
	for _, p := range []string{"acme/Plain.md", "acme/Other.md", "acme/Copy.md", "acme/Broken.md", "acme/None.md", "banks/b/fact.md", "acme/sub/Deeper.md", "Welcome.md"} {
		if _, ok := fresh[p]; !ok {
			t.Errorf("the fresh open did not catalog %s", p)
		}
	}
	if _, ok := fresh["acme/Link.md"]; ok {
		t.Error("the fresh open catalogued a symbolic link")
	}
	if e := fresh["acme/Plain.md"]; !e.Pinned || e.Category != "fact" || len(e.Links) != 3 || !reflect.DeepEqual(e.Aliases, []string{"Plainly"}) {
		t.Errorf("acme/Plain.md catalogued as %+v", e)
	}
	if !reflect.DeepEqual(fresh, warm) {
		t.Errorf("entries differ:\nfresh %+v\nwarm  %+v", fresh, warm)
	}
	if !reflect.DeepEqual(freshIDs, warmIDs) || !reflect.DeepEqual(freshFiles, warmFiles) || !reflect.DeepEqual(freshDirs, warmDirs) {
		t.Errorf("ids, files or tallies differ:\n%v %v %v\n%v %v %v", freshIDs, freshFiles, freshDirs, warmIDs, warmFiles, warmDirs)
	}
}

// A warm open after a fresh one reads no note again: the sizes and mtimes
// the fill kept are those the warm walk sees.
func TestAWarmOpenAfterAFreshOneReadsNoNote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, CacheDir, "catalog.json"))
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	if v.catalog.empty() {
		t.Fatal("the fresh open catalogued nothing")
	}
	v.Close()
	v, err = Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.catalog.mu.Lock()
	defer v.catalog.mu.Unlock()
	if len(v.catalog.changed) != 0 {
		t.Errorf("the warm open read %d notes again: %v", len(v.catalog.changed), v.catalog.changed)
	}
}

// A warm open loads the saved catalog while it walks the folders; a saved
// file that does not load as a catalog (damaged, or of another format) is
// no catalog: every note is read, as a fresh open reads them.
func TestASavedCatalogThatDoesNotLoadIsReadAgain(t *testing.T) {
	v, dir := sampleVault(t)
	want := len(v.catalog.paths())
	v.Close()
	file := filepath.Join(dir, CacheDir, "catalog.json")
	for name, saved := range map[string]string{"damaged": `{"format": 5, "entries": {`, "another format": `{"format": 1, "entries": {}}`} {
		if err := os.WriteFile(file, []byte(saved), 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := Open(dir, Options{Quiet: testQuiet})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := len(v.catalog.paths())
		welcome := slices.Contains(v.catalog.paths(), "Welcome.md")
		v.Close()
		if got != want || want == 0 || !welcome {
			t.Errorf("%s catalog saved: the open catalogued %d notes (Welcome.md: %v), a fresh one %d", name, got, welcome, want)
		}
	}
}
