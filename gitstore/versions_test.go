package gitstore

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// deepHistory writes, with git fast-import, a history of n commits on
// main: files added in nested folders, older ones edited, a change undone
// later (A→B→A), deletions, a file becoming a folder, a mode change, and
// a merge of a side branch. It returns the paths of HEAD.
func deepHistory(t *testing.T, dir string, n int) []string {
	t.Helper()
	runGit(t, dir, "init", "-q", "-b", "main")
	var in bytes.Buffer
	rng := rand.New(rand.NewSource(7))
	mark, when := 0, int64(1_700_000_000)
	live := map[string]bool{}
	var order []string
	commit := func(branch string, from int, merge int, ops ...string) int {
		mark++
		fmt.Fprintf(&in, "commit refs/heads/%s\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata 3\nmsg\n", branch, mark, when)
		when += 60
		if from > 0 {
			fmt.Fprintf(&in, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(&in, "merge :%d\n", merge)
		}
		for _, op := range ops {
			in.WriteString(op)
		}
		return mark
	}
	put := func(p, body string) string {
		if !live[p] {
			live[p] = true
			order = append(order, p)
		}
		return fmt.Sprintf("M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
	}
	del := func(p string) string {
		delete(live, p)
		return fmt.Sprintf("D %s\n", p)
	}
	last := commit("main", 0, 0, put("README.md", "root\n"))
	for i := 1; i < n; i++ {
		var ops []string
		switch {
		case i%7 == 0 && len(order) > 0:
			// Edit an older file, still live.
			for _, p := range order[rng.Intn(len(order)):] {
				if live[p] {
					ops = append(ops, put(p, fmt.Sprintf("edit %d\n", i)))
					break
				}
			}
		case i%23 == 0 && len(order) > 3:
			for _, p := range order[rng.Intn(len(order)-3):] {
				if live[p] && p != "README.md" {
					ops = append(ops, del(p))
					break
				}
			}
		}
		ops = append(ops, put(fmt.Sprintf("p%d/f%02d/n%05d.md", i%3, i%17, i), fmt.Sprintf("note %d\n", i)))
		last = commit("main", last, 0, ops...)
	}
	// A→B→A: the undoing commit is the token.
	last = commit("main", last, 0, put("undo.md", "A\n"))
	last = commit("main", last, 0, put("undo.md", "B\n"))
	last = commit("main", last, 0, put("undo.md", "A\n"))
	// A file that becomes a folder, and a mode change.
	last = commit("main", last, 0, put("thing", "file\n"))
	last = commit("main", last, 0, del("thing"), put("thing/inside.md", "folder\n"))
	last = commit("main", last, 0, "M 100755 inline README.md\ndata 5\nroot\n\n")
	// A side branch merged back: first parent sees the merge.
	side := commit("side", last, 0, put("side/s.md", "side\n"))
	side = commit("side", side, 0, put("p0/f00/n00017.md", "edited on the side\n"))
	last = commit("main", last, side, put("side/s.md", "side\n"), put("p0/f00/n00017.md", "edited on the side\n"))
	last = commit("main", last, 0, put("after.md", "after the merge\n"))
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	runGit(t, dir, "reset", "-q", "--hard", "main")
	var paths []string
	for p := range live {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// TestDeepHistoryVersionsMatchGitLog: a map built from nothing (in the
// background, from a fresh clone's pack), with the git command line or
// with go-git's walk, names for each path the commit `git log -1
// --first-parent -- path` names; and it is brought up to date when
// commits are made by hand after it.
func TestDeepHistoryVersionsMatchGitLog(t *testing.T) {
	src := t.TempDir()
	paths := deepHistory(t, src, 1500)
	t.Run("git", func(t *testing.T) { deepHistoryVersions(t, src, paths) })
	t.Run("go-git", func(t *testing.T) {
		defer func(c string) { gitCommand = c }(gitCommand)
		gitCommand = ""
		deepHistoryVersions(t, src, paths)
	})
	t.Run("both agree on every path", func(t *testing.T) {
		repo, err := openRepository(src)
		if err != nil {
			t.Fatal(err)
		}
		defer closeRepository(repo)
		head := plumbing.NewHash(runGit(t, src, "rev-parse", "main"))
		c, err := readCommit(repo.Storer, head)
		if err != nil {
			t.Fatal(err)
		}
		set := func() map[string]bool {
			m := map[string]bool{}
			for _, p := range paths {
				m[p] = true
			}
			return m
		}
		byGit, byWalk := map[string]plumbing.Hash{}, map[string]plumbing.Hash{}
		byPath := map[string]string{}
		for p := range set() {
			byPath[p] = p
		}
		if err := gitLogVersions(src, head, byPath, byGit, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := walkVersions(repo.Storer, head, c, set(), byWalk, nil); err != nil {
			t.Fatal(err)
		}
		if len(byGit) != len(paths) || len(byWalk) != len(paths) {
			t.Fatalf("%d paths, git resolved %d, the walk %d", len(paths), len(byGit), len(byWalk))
		}
		for _, p := range paths {
			if byGit[p] != byWalk[p] {
				t.Fatalf("%s: git log says %s, the walk %s", p, byGit[p], byWalk[p])
			}
		}
	})
}

func deepHistoryVersions(t *testing.T, src string, paths []string) {
	dir := filepath.Join(t.TempDir(), "clone")
	runGit(t, src, "clone", "-q", "--no-local", src, dir)
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cache/versions.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sample := []string{"README.md", "undo.md", "thing/inside.md", "side/s.md", "p0/f00/n00017.md", "after.md"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 60; i++ {
		sample = append(sample, paths[rng.Intn(len(paths))])
	}
	check := func(when string) {
		t.Helper()
		for _, p := range sample {
			want := runGit(t, dir, "log", "-1", "--format=%H", "--first-parent", "--", p)
			got, ok, err := s.Version(p)
			if err != nil || !ok || got != want {
				t.Fatalf("%s: %s: version %q (%v, %v), git log says %q", when, p, got, ok, err, want)
			}
		}
		all, err := s.Paths()
		if err != nil {
			t.Fatal(err)
		}
		files := strings.Split(runGit(t, dir, "ls-files"), "\n")
		sort.Strings(all)
		sort.Strings(files)
		if strings.Join(all, "\n") != strings.Join(files, "\n") {
			t.Fatalf("%s: the map holds %d paths, HEAD %d", when, len(all), len(files))
		}
	}
	check("built")
	if _, ok, _ := s.Version("thing"); ok {
		t.Fatal("a path that became a folder still has a version")
	}

	// Commits by hand after the build: the map follows them.
	os.WriteFile(filepath.Join(dir, "undo.md"), []byte("C\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p1/new.md"), []byte("new\n"), 0o644)
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "by hand")
	runGit(t, dir, "rm", "-q", "after.md")
	runGit(t, dir, "commit", "-q", "-m", "remove")
	sample = append(sample[:0], "undo.md", "p1/new.md", "README.md", paths[3], paths[len(paths)/2])
	check("after hand commits")
	if _, ok, _ := s.Version("after.md"); ok {
		t.Fatal("a deleted path still has a version")
	}

	// Saved, and loaded again by the next store.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cache/versions.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.build != nil {
		t.Fatal("a store with a saved map built it again")
	}
	s = s2
	check("reloaded")
}

// TestClosingDuringTheBuildStopsIt: a store closed at once (its build
// stopped or finished) saves no partial map, and the next one answers
// right.
func TestClosingDuringTheBuildStopsIt(t *testing.T) {
	dir := t.TempDir()
	deepHistory(t, dir, 300)
	cache := filepath.Join(dir, ".cache/versions.json")
	s, err := Open(dir, Options{CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if vm, err := loadVersionMap(cache); err == nil && len(vm.paths) != len(strings.Split(runGit(t, dir, "ls-files"), "\n")) {
		t.Fatalf("a partial map was saved: %d paths", len(vm.paths))
	}
	s, err = Open(dir, Options{CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := runGit(t, dir, "log", "-1", "--format=%H", "--first-parent", "--", "p1/f01/n00001.md")
	if got, _, err := s.Version("p1/f01/n00001.md"); err != nil || got != want {
		t.Fatalf("version %q (%v), git log says %q", got, err, want)
	}
}

// TestTreeEntriesCompareAsGitSortsThem: folders sort as "name/", so a
// merge of two trees pairs the right entries.
func TestTreeEntriesCompareAsGitSortsThem(t *testing.T) {
	file := func(n string) rawEntry { return rawEntry{name: []byte(n), mode: filemode.Regular} }
	dir := func(n string) rawEntry { return rawEntry{name: []byte(n), mode: filemode.Dir} }
	order := []rawEntry{file("a"), file("a.md"), dir("a"), file("a0"), dir("b"), file("ba")}
	for i := 1; i < len(order); i++ {
		if compareEntries(&order[i-1], &order[i]) >= 0 {
			t.Fatalf("%s (dir %v) should sort before %s (dir %v)", order[i-1].name, order[i-1].isDir(), order[i].name, order[i].isDir())
		}
	}
	// A tree out of order is sorted as it is read.
	var raw []byte
	for _, e := range []rawEntry{dir("a"), file("a.md")} {
		raw = append(raw, fmt.Sprintf("%o %s\x00", uint32(e.mode), e.name)...)
		raw = append(raw, plumbing.ZeroHash[:]...)
	}
	got, err := parseTree(raw)
	if err != nil || string(got[0].name) != "a.md" || !got[1].isDir() {
		t.Fatalf("parseTree: %v %v", got, err)
	}
}

// sharedKeys gives the paths as they were, in their order, all slices of
// one string.
func TestSharedKeysAreThePathsInOneString(t *testing.T) {
	paths := []string{"a.md", "", "dir/b c.md", "é/ü.md"}
	got := sharedKeys(paths)
	if !slices.Equal(got, paths) {
		t.Fatalf("sharedKeys(%q) = %q", paths, got)
	}
	fromBytes := sharedKeys([][]byte{[]byte("x/y.md"), []byte("z.md")})
	if !slices.Equal(fromBytes, []string{"x/y.md", "z.md"}) {
		t.Fatalf("from bytes: %q", fromBytes)
	}
	base := unsafe.StringData(got[0])
	if unsafe.Pointer(unsafe.StringData(got[2])) != unsafe.Add(unsafe.Pointer(base), len("a.md")) {
		t.Error("the keys are not slices of one string")
	}
	if n := len(sharedKeys([]string(nil))); n != 0 {
		t.Errorf("no paths give %d keys", n)
	}
}
