package vault

import (
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
	if err := c.persist(); err != nil {
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
	if err := c.persist(); err != nil {
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
