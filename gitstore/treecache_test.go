package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestTheTreeCacheKeepsItsBounds(t *testing.T) {
	hash := func(i int) plumbing.Hash { return plumbing.ComputeHash(plumbing.TreeObject, []byte(fmt.Sprint(i))) }
	entries := func(n int) []rawEntry { return make([]rawEntry, n, 2*n) }

	c := newTreeCache()
	for i := range treeCacheTrees {
		c.put(hash(i), entries(3), 100)
	}
	c.get(hash(0)) // used lately: tree 1 is now the least recently used
	c.put(hash(100), entries(3), 100)
	if _, ok := c.get(hash(1)); ok {
		t.Error("the least recently used tree is still held past the count")
	}
	for _, i := range []int{0, 2, 100} {
		got, ok := c.get(hash(i))
		if !ok {
			t.Errorf("tree %d was evicted", i)
		} else if len(got) != 3 || cap(got) != 3 {
			t.Errorf("tree %d: %d entries, capacity %d; want 3 and 3 (an append must copy)", i, len(got), cap(got))
		}
	}
	if len(c.trees) > treeCacheTrees {
		t.Errorf("%d trees held, bound %d", len(c.trees), treeCacheTrees)
	}

	big := treeCacheBytes / 3
	c = newTreeCache()
	for i := range 5 {
		c.put(hash(i), entries(1), big)
	}
	if c.bytes > treeCacheBytes || len(c.trees) != 2 {
		t.Errorf("%d bytes in %d trees; want the last two within %d", c.bytes, len(c.trees), treeCacheBytes)
	}
	if _, ok := c.get(hash(4)); !ok {
		t.Error("the newest tree was not kept")
	}
	c.put(hash(9), entries(1), treeCacheBytes+1)
	if _, ok := c.get(hash(9)); ok {
		t.Error("a tree over the whole bound was kept")
	}

	var none *treeCache // a walker without a cache
	none.put(hash(1), entries(1), 1)
	if _, ok := none.get(hash(1)); ok {
		t.Error("no cache answered")
	}
}

// A write reads the trees of the head it builds on from the store's
// cache and leaves there the ones it made, so the next write in the same
// folder inflates none. What the writes make is what git makes: the
// trees, every note's blob and every note's version.
func TestWritesThroughTheTreeCacheMakeWhatGitMakes(t *testing.T) {
	s, dir := newStore(t)
	var changes []Change
	for i := range 300 {
		changes = append(changes, Change{Path: fmt.Sprintf("notes/n%03d.md", i), Content: []byte(fmt.Sprint("note ", i, "\n"))})
	}
	commit(t, s, "notes", append(changes, Change{Path: ".gitignore", Content: []byte(".cairn/\n")})...)

	// Each write builds on the trees the one before made: a create, an
	// edit, a deletion, an edit undone and a note in a new sub-folder.
	commit(t, s, "create", Change{Path: "notes/new.md", Content: []byte("new\n")})
	commit(t, s, "edit", Change{Path: "notes/n007.md", Content: []byte("edited\n")})
	commit(t, s, "delete", Change{Path: "notes/n100.md", Delete: true})
	commit(t, s, "edit", Change{Path: "notes/n007.md", Content: []byte("note 7\n")})
	commit(t, s, "nested", Change{Path: "notes/sub/deep.md", Content: []byte("deep\n")}, Change{Path: "notes/n200.md", Content: []byte("two hundred\n")})

	for _, rev := range []string{"HEAD^{tree}", "HEAD:notes", "HEAD:notes/sub"} {
		h := plumbing.NewHash(runGit(t, dir, "rev-parse", rev))
		if _, ok := s.trees.get(h); !ok {
			t.Errorf("%s (%s) is not in the cache after the write that made it", rev, h)
		}
	}
	if out := runGit(t, dir, "fsck", "--strict", "--no-dangling"); strings.Contains(out, "error") {
		t.Fatalf("git fsck: %s", out)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status after the writes: %q", st)
	}
	files := strings.Split(runGit(t, dir, "ls-files"), "\n")
	if len(files) != 302 { // 300 - 1 + new + deep + .gitignore
		t.Errorf("%d files in HEAD, want 302", len(files))
	}
	for _, p := range files {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := runGit(t, dir, "rev-parse", "HEAD:"+p), plumbingBlobHash(b); got != want {
			t.Errorf("%s: HEAD holds %s, the file is %s", p, got, want)
		}
		v, ok, err := s.Version(p)
		if err != nil || !ok {
			t.Fatalf("Version(%s): %v %v", p, ok, err)
		}
		if want := runGit(t, dir, "log", "-1", "--format=%H", "--", p); v != want {
			t.Errorf("Version(%s) = %s, git log says %s", p, v, want)
		}
	}
}

// The cache holds what reads and writes of the head went through, never
// what a walk over history read: after a version map built from nothing
// over a history of git's commits, a read, a note's history and the map
// brought over five commits made by git, it holds the trees of the head
// and of its parent (the last step's other side), and of the head the
// first read went through, alone.
func TestAHistoryWalkLeavesTheTreeCacheAlone(t *testing.T) {
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitCommits := func(from, to int) {
		for i := from; i < to; i++ {
			p := filepath.Join(dir, "a", fmt.Sprintf("n%02d.md", i))
			if i%2 == 1 {
				p = filepath.Join(dir, "a", "b", fmt.Sprintf("n%02d.md", i))
			}
			if err := os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644); err != nil {
				t.Fatal(err)
			}
			runGit(t, dir, "add", ".")
			runGit(t, dir, "commit", "-q", "-m", fmt.Sprint("note ", i))
		}
	}
	gitCommits(0, 30)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, ok, err := s.Version("a/n00.md"); err != nil || !ok || v != runGit(t, dir, "log", "-1", "--format=%H", "--", "a/n00.md") {
		t.Fatalf("Version: %s %v %v", v, ok, err)
	}
	if h, err := s.FileHistory("a/b/n29.md", 10, 100); err != nil || len(h) != 1 {
		t.Fatalf("FileHistory: %d commits, %v", len(h), err)
	}
	if h, err := s.FileHistory("a/n00.md", 10, 100); err != nil || len(h) != 1 {
		t.Fatalf("FileHistory: %d commits, %v", len(h), err)
	}
	gitCommits(30, 35)
	if v, ok, err := s.Version("a/n34.md"); err != nil || !ok || v != runGit(t, dir, "rev-parse", "HEAD") {
		t.Fatalf("Version after git's commits: %s %v %v", v, ok, err)
	}
	head := map[plumbing.Hash]bool{}
	for _, rev := range []string{"HEAD", "HEAD~1", "HEAD~5"} {
		head[plumbing.NewHash(runGit(t, dir, "rev-parse", rev+"^{tree}"))] = true
		for _, line := range strings.Split(runGit(t, dir, "ls-tree", "-r", "-t", rev), "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[1] == "tree" {
				head[plumbing.NewHash(f[2])] = true
			}
		}
	}
	s.trees.mu.Lock()
	defer s.trees.mu.Unlock()
	for h := range s.trees.trees {
		if !head[h] {
			t.Errorf("the cache holds %s, a tree a walk over history read", h)
		}
	}
}
