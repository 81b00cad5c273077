package gitstore

import (
	"errors"
	"fmt"
	"path/filepath"
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
