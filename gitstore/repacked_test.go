package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// A person's `git gc` in a vault cairn serves (or git's own `gc --auto`
// after their commit) packs the loose objects cairn's writes made and
// deletes them: the store reads them from the new pack, and goes on
// writing.
func TestAGitGCUnderTheStoreBreaksNothing(t *testing.T) {
	s0, dir := newStore(t)
	commit(t, s0, "ignore", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	for i := range 10 {
		commit(t, s0, "old", Change{Path: fmt.Sprintf("notes/n%02d.md", i), Content: []byte(fmt.Sprint("note ", i, "\n"))})
	}
	s0.Close()
	runGit(t, dir, "gc", "-q") // as a clone is: one pack

	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if h, err := s.FileHistory("notes/n03.md", 5, 100); err != nil || len(h) != 1 {
		t.Fatalf("history before any write: %d commits, %v", len(h), err) // go-git has read the pack
	}
	for i := range 10 {
		commit(t, s, "new", Change{Path: fmt.Sprintf("notes/m%02d.md", i), Content: []byte(fmt.Sprint("note m", i, "\n"))})
	}
	for round, gc := range [][]string{{"gc", "-q"}, {"gc", "-q", "--prune=now", "--aggressive"}} {
		runGit(t, dir, gc...)
		if loose, _ := countObjects(t, dir); loose != 0 {
			t.Fatalf("git gc left %d loose objects", loose)
		}
		for _, p := range []string{"notes/m03.md", "notes/m09.md", "notes/n05.md"} {
			want := runGit(t, dir, "log", "-1", "--format=%H", "--", p)
			h, err := s.FileHistory(p, 5, 100)
			if err != nil || len(h) == 0 || h[0].Hash != want {
				t.Errorf("gc %d: history of %s: %v, %v; want it to start at %s", round, p, h, err, want)
			}
			if v, ok, err := s.Version(p); err != nil || !ok || v != want {
				t.Errorf("gc %d: Version(%s) = %s %v %v, want %s", round, p, v, ok, err, want)
			}
		}
		edit := fmt.Sprintf("notes/m%02d.md", round)
		if _, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: "edit", Changes: []Change{
			{Path: edit, Content: []byte("edited\n")},
			{Path: fmt.Sprintf("notes/sub/new%d.md", round), Content: []byte("new\n")},
		}}); err != nil {
			t.Fatalf("gc %d: a write after it: %v", round, err)
		}
		if got := runGit(t, dir, "show", "HEAD:"+edit); got != "edited" {
			t.Errorf("gc %d: HEAD holds %q for %s", round, got, edit)
		}
	}
	if out := runGit(t, dir, "fsck", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
		t.Fatalf("git fsck: %s", out)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status: %q", st)
	}
	// An object that is nowhere is still not found, after one look.
	if _, err := s.repo.Storer.EncodedObject(plumbing.AnyObject, plumbing.ComputeHash(plumbing.BlobObject, []byte("nowhere"))); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("an object that is nowhere: %v", err)
	}
}

// A gc that merges the packs removes one go-git indexed and had not
// opened yet: go-git then says "packfile not found" (the failure CI met
// beside a running gc), and the store reads the packs again, even when its
// own listing of the folder is already the new one (go-git lists lazily,
// so it may index a pack made and removed after cairn listed).
func TestAPackMergedAwayIsReadAgain(t *testing.T) {
	for _, listedAfter := range []bool{false, true} {
		t.Run(fmt.Sprint("listed after the gc: ", listedAfter), func(t *testing.T) {
			st, _, _ := aPackIndexedThenMergedAway(t)
			if listedAfter {
				st.mu.Lock()
				st.packs = st.list()
				st.mu.Unlock()
			}
			for i := range 10 {
				h := plumbing.ComputeHash(plumbing.BlobObject, []byte(fmt.Sprint("note ", i, "\n")))
				if _, err := st.EncodedObject(plumbing.BlobObject, h); err != nil {
					t.Fatalf("blob of note %d after the packs merged: %v", i, err)
				}
			}
		})
	}
}

// aPackIndexedThenMergedAway is a store of ten notes packed by a gc,
// whose pack go-git has indexed but not opened, then merged away by a
// person's commit and gc; first is a blob of note 1.
func aPackIndexedThenMergedAway(t *testing.T) (st *repackAware, dir string, first plumbing.Hash) {
	t.Helper()
	s, dir := newStore(t)
	commit(t, s, "ignore", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	for i := range 10 {
		commit(t, s, "old", Change{Path: fmt.Sprintf("notes/n%02d.md", i), Content: []byte(fmt.Sprint("note ", i, "\n"))})
	}
	st = s.repo.Storer.(*repackAware)
	runGit(t, dir, "gc", "-q")
	st.Reindex()
	first = plumbing.ComputeHash(plumbing.BlobObject, []byte("note 1\n"))
	if err := st.HasEncodedObject(first); err != nil {
		t.Fatalf("a blob of the first pack: %v", err) // go-git has indexed the pack, not opened it
	}
	personCommitsAndGCs(t, st, dir, "m")
	return st, dir, first
}

// personCommitsAndGCs is a person's commit (a write of the store's would
// open the pack go-git indexed), then their gc: one new pack of
// everything, the old one removed.
func personCommitsAndGCs(t *testing.T, st *repackAware, dir, name string) {
	t.Helper()
	packsBefore := st.list()
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte("note "+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "add", name+".md")
	runGit(t, dir, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-q", "-m", name)
	runGit(t, dir, "gc", "-q")
	if slices.Equal(st.list(), packsBefore) {
		t.Fatalf("git gc left the pack folder as it was: %v", packsBefore)
	}
}

// A gc running back to back with the store's reads can merge away the
// pack go-git indexed when it read the packs again, before it opens it:
// the read has go-git read them once more (the CI failure that one
// reread left: "read tree …: packfile not found" beside a loop of gc).
func TestAPackMergedAwayTwiceIsReadAgain(t *testing.T) {
	st, dir, first := aPackIndexedThenMergedAway(t)
	rereads := 0
	st.afterReread = func() {
		rereads++
		if rereads > 1 {
			return
		}
		// go-git indexes the new pack without opening it, and a gc
		// merges it away before the read looks again.
		if err := st.Storage.HasEncodedObject(first); err != nil {
			t.Errorf("a blob of the second pack: %v", err)
		}
		personCommitsAndGCs(t, st, dir, "p")
	}
	for i := range 10 {
		h := plumbing.ComputeHash(plumbing.BlobObject, []byte(fmt.Sprint("note ", i, "\n")))
		if _, err := st.EncodedObject(plumbing.BlobObject, h); err != nil {
			t.Fatalf("blob of note %d after the packs merged twice: %v", i, err)
		}
	}
	if rereads != 2 {
		t.Errorf("go-git read the packs again %d times, want 2", rereads)
	}
}

// An object over 16 KiB (a large note, a big folder's tree) go-git finds
// in a pack it holds open but reads by the pack's name: after a gc
// removed that pack, the object is found and its read failed ("open
// .../pack-….pack: no such file or directory"), an old version of a large
// note could not be read until something else was not found. Now the
// read has go-git read the packs again.
func TestALargeObjectOfARemovedPackIsRead(t *testing.T) {
	s0, dir := newStore(t)
	large := func(i int) []byte { // 60 KB that git cannot delta against each other
		var b strings.Builder
		x := uint64(i*7919 + 1)
		for b.Len() < 60000 {
			x = x*6364136223846793005 + 1442695040888963407
			fmt.Fprintf(&b, "%x\n", x)
		}
		return []byte(b.String())
	}
	first := commit(t, s0, "large", Change{Path: ".gitignore", Content: []byte(".cairn/\n")},
		Change{Path: "n1.md", Content: large(1)}, Change{Path: "n2.md", Content: large(2)})
	s0.Close()
	runGit(t, dir, "gc", "-q")
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if b, err := s.ReadAt(first, "n1.md"); err != nil || string(b) != string(large(1)) {
		t.Fatalf("n1 before the gc: %v", err) // go-git holds the pack open
	}
	commit(t, s, "small", Change{Path: "n3.md", Content: []byte("small\n")})
	st := s.repo.Storer.(*repackAware)
	before := st.list()
	runGit(t, dir, "gc", "-q") // one new pack; the one go-git holds removed
	if after := st.list(); slices.ContainsFunc(after, func(n string) bool { return slices.Contains(before, n) }) {
		t.Fatalf("the gc kept a pack: %v, then %v", before, after)
	}
	for range 2 {
		if b, err := s.ReadAt(first, "n2.md"); err != nil || string(b) != string(large(2)) {
			t.Fatalf("an old version of a large note after the gc: %v", err)
		}
	}
}
