package vault

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/note"
)

// The catalog is written with its lock let go (at 100,000 notes encoding
// it held every search and read for 0.35-0.65 s, every 30 s while notes
// changed): a note put meanwhile is not in that file, and is in the next.
// The put gives a note already written the id it carried to a note whose
// path comes first (the note's entry changes in place): the file holds
// the entry as it was when copied (the race detector watches the rest).
func TestTheCatalogIsWrittenUnlocked(t *testing.T) {
	file := filepath.Join(t.TempDir(), "catalog.json")
	c := loadCatalog(file)
	put := func(p string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		body := "---\nid: shared-id\n---\n# " + p + "\n"
		c.put(p, note.Summarize(p, []byte(body)), fileStamp{Size: int64(len(body)), Mtime: time.Unix(1, 0)})
	}
	put("b.md")
	catalogWriteHook = func() {
		done := make(chan struct{})
		go func() { put("a.md"); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute): // bounds a failure only
			t.Error("a put waited for the catalog's write") // not Fatal: the lock's holder goes on
		}
	}
	defer func() { catalogWriteHook = nil }()
	if err := c.persist(true); err != nil {
		t.Fatal(err)
	}
	ids := func(m map[string]*catEntry) map[string]string {
		out := map[string]string{}
		for p, e := range m {
			out[p] = e.ID
		}
		return out
	}
	got := loadCatalog(file).entries
	if len(got) != 1 || got["b.md"] == nil || got["b.md"].ID != "shared-id" {
		t.Fatalf("the file holds %v: want b.md alone, with the id it had when copied", ids(got))
	}
	if c.entries["b.md"].ID == "shared-id" {
		t.Fatal("a.md did not take b.md's id: the test tests nothing")
	}
	catalogWriteHook = nil
	if err := c.persist(true); err != nil {
		t.Fatal(err)
	}
	got = loadCatalog(file).entries
	if len(got) != 2 || got["a.md"] == nil || got["a.md"].ID != "shared-id" || got["b.md"].ID != c.entries["b.md"].ID {
		t.Errorf("after the next persist the file holds %v: want a.md with shared-id, b.md with %s", ids(got), c.entries["b.md"].ID)
	}
}

// What persist writes of an entry is every field the file keeps:
// savedEntry.entry lists them one by one, and a field added to catEntry
// must be added there.
func TestASavedEntryKeepsEveryField(t *testing.T) {
	var e catEntry
	v := reflect.ValueOf(&e).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.CanSet() {
			fill(t, f, v.Type().Field(i).Name)
		}
	}
	got := savedEntry{path: "p.md", e: &e, id: e.ID}.entry()
	if !reflect.DeepEqual(got, e) {
		t.Errorf("saved as\n%+v\nwant\n%+v", got, e)
	}
}

// fill sets f, and what it holds, to values that are not zero.
func fill(t *testing.T, f reflect.Value, name string) {
	switch {
	case f.Type() == reflect.TypeOf(time.Time{}):
		f.Set(reflect.ValueOf(time.Unix(1, 0)))
	case f.Kind() == reflect.String:
		f.SetString(name)
	case f.Kind() == reflect.Bool:
		f.SetBool(true)
	case f.CanInt():
		f.SetInt(1)
	case f.Kind() == reflect.Slice:
		f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		fill(t, f.Index(0), name)
	case f.Kind() == reflect.Struct:
		for i := range f.NumField() {
			if g := f.Field(i); g.CanSet() {
				fill(t, g, f.Type().Field(i).Name)
			}
		}
	default:
		t.Fatalf("field %s: fill knows no %s", name, f.Type())
	}
}

// A periodic save writes the catalog once a tenth of its entries changed
// since the file was written (each save encodes every entry: 0.5 s of CPU
// and 20 MB at 100,000 notes, for one note changed); Close, and Persist,
// write whatever changed.
func TestAPeriodicSaveWaitsForATenthOfTheCatalog(t *testing.T) {
	file := filepath.Join(t.TempDir(), "catalog.json")
	c := loadCatalog(file)
	put := func(p, title string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.put(p, note.Summarize(p, []byte("# "+title+"\n")), fileStamp{Size: 10, Mtime: time.Unix(1, 0)})
	}
	title := func(p string) string {
		if e := loadCatalog(file).entries[p]; e != nil {
			return e.Title
		}
		return ""
	}
	for i := range 20 {
		put(fmt.Sprintf("n%02d.md", i), "first")
	}
	steps := []struct {
		note, title string
		all         bool
		want        string // n00.md's title in the file after the save
	}{
		{"", "", false, "first"},              // 20 of 20 changed: written
		{"n00.md", "second", false, "first"},  // 1 of 20: not yet
		{"n01.md", "second", false, "second"}, // 2 of 20: written
		{"n00.md", "third", false, "second"},  // 1 of 20: not yet
		{"", "", true, "third"},               // everything, as Close does
	}
	for i, s := range steps {
		if s.note != "" {
			put(s.note, s.title)
		}
		if err := c.persist(s.all); err != nil {
			t.Fatal(err)
		}
		if got := title("n00.md"); got != s.want {
			t.Fatalf("step %d: the file gives n00.md the title %q, want %q", i, got, s.want)
		}
	}
}

// A start after a crash reads again the notes changed since the catalog
// was last written: a periodic save that waited costs nothing but that.
func TestAStartReadsWhatTheCatalogFileMissed(t *testing.T) {
	v, dir := sampleVault(t)
	if err := v.Persist(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, CacheDir, "catalog.json")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n, err := v.CreateNote(owner, CreateArgs{Project: "acme/platform", Body: "# Heath survey\n\nThe sundew patch spreads.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.persist(false); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(file); !bytes.Equal(now, before) {
		t.Fatal("a periodic save wrote the catalog for one note changed")
	}
	v.Close()
	// The process died before any save: the file is the one before.
	if err := os.WriteFile(file, before, 0o644); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if got, ok := v2.catalog.entries[n.Path]; !ok || got.Title != "Heath survey" {
		t.Errorf("after the start the catalog holds %s as %+v, want its title Heath survey", n.Path, got)
	}
}
