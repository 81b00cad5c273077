package gitstore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Changed's read of HEAD's tree and Persist's write of the version map
// run with s.mu let go: at 100,000 notes each held every search (Head),
// read and commit for 0.3-1 s, the first when the watcher's first stray
// scan ran as a fresh clone's map arrived, the other every 30 s while
// commits came. Held there, the store still answers Head and commits; a
// commit made during the write is saved by the next Persist, and the
// changes Changed reports are still right.
func TestLongWorkRunsWithTheStoreUnlocked(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "a", Change{Path: "notes/a.md", Content: []byte("# A\n")})
	os.WriteFile(filepath.Join(dir, "notes/a.md"), []byte("# A, edited\n"), 0o644)
	var during func()
	lockFreeHook = func() { during() }
	defer func() { lockFreeHook = nil }()
	answers := func(what string, call func() error) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
		case <-time.After(time.Minute): // bounds a failure only
			t.Errorf("%s waited for the store's lock", what) // not Fatal: the lock's holder goes on
		}
	}

	during = func() {
		answers("Head while Changed reads HEAD's tree", func() error { _, err := s.Head(); return err })
	}
	changed, err := s.Changed([]string{"notes/a.md", "notes/b.md"})
	if err != nil || !slices.Equal(changed, []string{"notes/a.md"}) {
		t.Fatalf("Changed: %v, %v; want notes/a.md alone", changed, err)
	}

	var b string
	during = func() {
		answers("a commit while Persist writes", func() error {
			h, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: "b",
				Changes: []Change{{Path: "notes/b.md", Content: []byte("# B\n")}}})
			b = h
			return err
		})
	}
	if err := s.Persist(); err != nil {
		t.Fatal(err)
	}
	saved := func() *versionMap {
		t.Helper()
		vm, err := loadVersionMap(filepath.Join(dir, ".cairn/cache/versions.json"))
		if err != nil {
			t.Fatal(err)
		}
		return vm
	}
	if _, ok := saved().paths["notes/b.md"]; ok {
		t.Fatal("the file holds a commit made after Persist's copy")
	}
	lockFreeHook = nil
	if err := s.Persist(); err != nil {
		t.Fatal(err)
	}
	if got := saved().paths["notes/b.md"].String(); got != b {
		t.Errorf("after the next Persist the file gives notes/b.md %q, want %s", got, b)
	}
}
