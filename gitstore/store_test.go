package gitstore

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Tester", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=Tester", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Init(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".cairn/\n"), 0o644)
	return s, dir
}

func commit(t *testing.T, s *Store, msg string, changes ...Change) string {
	t.Helper()
	h, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: msg,
		Trailers: []Trailer{{"Cairn-Tool", "test"}}, Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestCommitIsOneGitCommitWithTrailersAndCleanStatus(t *testing.T) {
	s, dir := newStore(t)
	h1 := commit(t, s, "add a", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "notes/a.md", Content: []byte("# A\n")})
	h2 := commit(t, s, "add b", Change{Path: "notes/sub/b.md", Content: []byte("# B\n")})
	if got := runGit(t, dir, "rev-list", "--count", "HEAD"); got != "2" {
		t.Fatalf("want 2 commits, got %s", got)
	}
	if got := runGit(t, dir, "log", "-1", "--format=%an <%ae>|%(trailers:key=Cairn-Tool,valueonly)", "HEAD"); got != "agent <agent@cairn.local>|test" {
		t.Fatalf("author/trailer: %q", got)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status not clean after commit:\n%s", st)
	}
	runGit(t, dir, "fsck", "--strict")
	for path, want := range map[string]string{"notes/a.md": h1, "notes/sub/b.md": h2} {
		got, ok, err := s.Version(path)
		if err != nil || !ok || got != want {
			t.Fatalf("version %s = %s %v %v, want %s", path, got, ok, err, want)
		}
		if byGit := runGit(t, dir, "log", "-1", "--format=%H", "--", path); byGit != want {
			t.Fatalf("git log says %s for %s, we say %s", byGit, path, want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes/sub/b.md")); string(data) != "# B\n" {
		t.Fatalf("work tree file: %q", data)
	}
	// delete removes the file and its empty folder
	commit(t, s, "rm b", Change{Path: "notes/sub/b.md", Delete: true})
	if _, err := os.Stat(filepath.Join(dir, "notes/sub")); !os.IsNotExist(err) {
		t.Fatalf("empty folder left behind: %v", err)
	}
	if _, ok, _ := s.Version("notes/sub/b.md"); ok {
		t.Fatal("deleted path still has a version")
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status not clean after delete:\n%s", st)
	}
	runGit(t, dir, "fsck", "--strict")
}

func TestConflictAndDirtyChecksWriteNothing(t *testing.T) {
	s, dir := newStore(t)
	h1 := commit(t, s, "add", Change{Path: "a.md", Content: []byte("one\n")})
	_, err := s.Commit(CommitRequest{Author: Signature{"x", "x@y"}, Message: "stale", Changes: []Change{
		{Path: "a.md", Content: []byte("two\n"), CheckVersion: true, ExpectVersion: "0000000000000000000000000000000000000000"}}})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Current != h1 {
		t.Fatalf("want conflict carrying %s, got %v", h1, err)
	}
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("edited in an editor\n"), 0o644)
	_, err = s.Commit(CommitRequest{Author: Signature{"x", "x@y"}, Message: "over", Changes: []Change{
		{Path: "a.md", Content: []byte("agent\n"), CheckVersion: true, ExpectVersion: h1, RequireClean: true}}})
	var de *DirtyError
	if !errors.As(err, &de) {
		t.Fatalf("want dirty error, got %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(data) != "edited in an editor\n" {
		t.Fatalf("editor's content overwritten: %q", data)
	}
	if got := runGit(t, dir, "rev-list", "--count", "HEAD"); got != "1" {
		t.Fatalf("a refused commit was recorded: %s commits", got)
	}
}

func TestVersionMapMatchesGitLogAndSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	for i := 0; i < 30; i++ {
		p := fmt.Sprintf("d%d/n%d.md", i%4, i%11)
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprintf("v%d\n", i)), 0o644)
		runGit(t, dir, "add", "-A")
		runGit(t, dir, "commit", "-q", "-m", fmt.Sprintf("c%d", i))
	}
	runGit(t, dir, "rm", "-q", "-r", "d3")
	runGit(t, dir, "commit", "-q", "-m", "drop d3")
	cache := filepath.Join(t.TempDir(), "versions.json")
	s, err := Open(dir, Options{CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	check := func(s *Store) {
		t.Helper()
		paths, _ := s.Paths()
		files := strings.Split(runGit(t, dir, "ls-files"), "\n")
		if len(paths) != len(files) {
			t.Fatalf("map has %d paths, git has %d", len(paths), len(files))
		}
		for _, f := range files {
			v, ok, _ := s.Version(f)
			if want := runGit(t, dir, "log", "-1", "--format=%H", "--", f); !ok || v != want {
				t.Fatalf("%s: map %s, git %s", f, v, want)
			}
		}
	}
	check(s)
	s.Close()
	// A commit made by hand while closed: the persisted map is updated incrementally.
	os.WriteFile(filepath.Join(dir, "d0/n0.md"), []byte("by hand\n"), 0o644)
	runGit(t, dir, "commit", "-q", "-am", "by hand")
	s2, err := Open(dir, Options{CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	check(s2)
	// And one made while open shows on the next read.
	os.WriteFile(filepath.Join(dir, "d1/n1.md"), []byte("by hand again\n"), 0o644)
	runGit(t, dir, "commit", "-q", "-am", "by hand 2")
	check(s2)
	// History rewritten (amend): full rebuild, still right.
	runGit(t, dir, "commit", "-q", "--amend", "-m", "amended")
	check(s2)
}

func TestConcurrentCommitsAllLand(t *testing.T) {
	s, dir := newStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := s.Commit(CommitRequest{Author: Signature{"a", "a@b"}, Message: "c",
				Changes: []Change{{Path: fmt.Sprintf("n/%d.md", i), Content: []byte("x\n"), CheckVersion: true}}})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := runGit(t, dir, "rev-list", "--count", "HEAD"); got != "40" {
		t.Fatalf("want 40 commits, got %s", got)
	}
	runGit(t, dir, "fsck", "--strict")
}

func TestIndexKeepsWhatAPersonStagedAndHandlesVersion4(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "a.md", Content: []byte("a\n")})
	os.WriteFile(filepath.Join(dir, "staged.md"), []byte("staged by hand\n"), 0o644)
	runGit(t, dir, "add", "staged.md")
	commit(t, s, "agent", Change{Path: "b/c.md", Content: []byte("c\n")}, Change{Path: "a.md", Delete: true})
	if got := runGit(t, dir, "diff", "--cached", "--name-status"); got != "A\tstaged.md" {
		t.Fatalf("the person's staged file: %q", got)
	}
	if got := runGit(t, dir, "status", "--porcelain"); got != "A  staged.md" {
		t.Fatalf("status: %q", got)
	}
	runGit(t, dir, "reset", "-q", "staged.md")
	os.Remove(filepath.Join(dir, "staged.md"))
	runGit(t, dir, "update-index", "--index-version", "4")
	commit(t, s, "v4", Change{Path: "b/d.md", Content: []byte("d\n")})
	if got := runGit(t, dir, "status", "--porcelain"); got != "" {
		t.Fatalf("status after a commit on a version 4 index: %q", got)
	}
	runGit(t, dir, "fsck", "--strict")
}

// TestRandomCommitsKeepTreeIndexAndVersionsExact drives many random
// multi-path commits (creates, edits, deletes, nested folders appearing and
// emptying) and checks after each that the index equals the commit's tree,
// the work tree is clean, and every version equals `git log -1 -- path`.
func TestRandomCommitsKeepTreeIndexAndVersionsExact(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "ignore", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	rng := rand.New(rand.NewSource(7))
	live := map[string]bool{}
	names := []string{"a.md", "b.md", "x/c.md", "x/y/d.md", "x/y/e.md", "z/f.md", "x/g.md", "Ünïcode é.md", "sp ace/h.md"}
	for round := 0; round < 60; round++ {
		var changes []Change
		used := map[string]bool{}
		for k := 0; k < 1+rng.Intn(3); k++ {
			p := names[rng.Intn(len(names))]
			if used[p] {
				continue
			}
			used[p] = true
			if live[p] && rng.Intn(3) == 0 {
				changes = append(changes, Change{Path: p, Delete: true})
				delete(live, p)
			} else {
				changes = append(changes, Change{Path: p, Content: []byte(fmt.Sprintf("round %d %s\n", round, p))})
				live[p] = true
			}
		}
		if _, err := s.Commit(CommitRequest{Author: Signature{"r", "r@x"}, Message: fmt.Sprint(round), Changes: changes}); err != nil && !errors.Is(err, ErrNothingToCommit) {
			t.Fatal(err)
		}
		if st := runGit(t, dir, "status", "--porcelain"); st != "" {
			t.Fatalf("round %d: status\n%s", round, st)
		}
		index := runGit(t, dir, "ls-files", "-s")
		tree := runGit(t, dir, "ls-tree", "-r", "--format=%(objectmode) %(objectname) 0\t%(path)", "HEAD")
		if index != tree {
			t.Fatalf("round %d: index\n%s\ntree\n%s", round, index, tree)
		}
	}
	for _, f := range strings.Split(runGit(t, dir, "-c", "core.quotepath=off", "ls-files"), "\n") {
		v, ok, _ := s.Version(f)
		if want := runGit(t, dir, "log", "-1", "--format=%H", "--", f); !ok || v != want {
			t.Fatalf("%s: version %s, git %s", f, v, want)
		}
	}
	// What a commit changed, as remembered when it was made, equals what a
	// fresh store computes from the trees.
	fresh, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mine, theirs []string
	s.Walk(1000, func(ci CommitInfo, ch []FileChange) bool {
		mine = append(mine, fmt.Sprintf("%s %v %s", ci.Hash, ch, ci.Trailers["Cairn-Tool"]))
		return true
	})
	fresh.Walk(1000, func(ci CommitInfo, ch []FileChange) bool {
		theirs = append(theirs, fmt.Sprintf("%s %v %s", ci.Hash, ch, ci.Trailers["Cairn-Tool"]))
		return true
	})
	if strings.Join(mine, "\n") != strings.Join(theirs, "\n") {
		t.Fatalf("remembered changes differ from the trees:\n%s\n---\n%s", strings.Join(mine, "\n"), strings.Join(theirs, "\n"))
	}
	// History and reading back an older revision.
	hist, err := s.FileHistory("a.md", 100, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(runGit(t, dir, "log", "--first-parent", "--format=%H", "--", "a.md"))
	if len(hist) == 0 || len(hist) > len(want) {
		t.Fatalf("history: %d entries, git has %d", len(hist), len(want))
	}
	for i, h := range hist {
		if h.Hash != want[i] {
			t.Fatalf("history[%d] = %s, git %s", i, h.Hash, want[i])
		}
		if data, err := s.ReadAt(h.Hash, "a.md"); err == nil {
			if got := runGit(t, dir, "show", h.Hash+":a.md"); got != strings.TrimSpace(string(data)) {
				t.Fatalf("ReadAt %s: %q vs git %q", h.Hash, data, got)
			}
		}
	}
	runGit(t, dir, "fsck", "--strict")
}

func TestAGitProcessHoldingALockMakesTheCommitFailWithoutChanges(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "a.md", Content: []byte("a\n")})
	head := runGit(t, dir, "rev-parse", "HEAD")
	for _, lock := range []string{".git/index.lock", ".git/refs/heads/main.lock"} {
		os.WriteFile(filepath.Join(dir, lock), nil, 0o644)
		_, err := s.Commit(CommitRequest{Author: Signature{"a", "a@b"}, Message: "blocked", Changes: []Change{{Path: "a.md", Content: []byte("changed\n")}}})
		if err == nil || !strings.Contains(err.Error(), "locked by another git process") {
			t.Fatalf("%s held: want a lock error, got %v", lock, err)
		}
		if got := runGit(t, dir, "rev-parse", "HEAD"); got != head {
			t.Fatal("HEAD moved")
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(data) != "a\n" {
			t.Fatalf("%s held: the work tree changed: %q", lock, data)
		}
		if _, err := os.Stat(filepath.Join(dir, lock)); err != nil {
			t.Fatalf("the other process's lock %s was removed", lock)
		}
		os.Remove(filepath.Join(dir, lock))
	}
	commit(t, s, "now", Change{Path: "a.md", Content: []byte("changed\n")})
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status: %s", st)
	}
}

func TestIncrementalVersionsSeeChangesUndoneLater(t *testing.T) {
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	write := func(p, content, msg string) {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644)
		runGit(t, dir, "add", "-A")
		runGit(t, dir, "commit", "-q", "-m", msg)
	}
	write("a.md", "A\n", "a")
	write("d/b.md", "B\n", "b")
	cache := filepath.Join(t.TempDir(), "v.json")
	s, err := Open(dir, Options{CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	write("a.md", "changed\n", "a2")
	write("a.md", "A\n", "a back") // A→B→A
	runGit(t, dir, "rm", "-q", "d/b.md")
	runGit(t, dir, "commit", "-q", "-m", "rm b")
	write("d/b.md", "B\n", "b again") // deleted and re-added identically
	s, err = Open(dir, Options{CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.md", "d/b.md"} {
		v, _, _ := s.Version(p)
		if want := runGit(t, dir, "log", "-1", "--format=%H", "--", p); v != want {
			t.Fatalf("%s: map %s, git log %s", p, v, want)
		}
	}
}

func TestUnsupportedIndexOrMergeInProgressRefusesBeforeAnyChange(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "a.md", Content: []byte("a\n")})
	head := runGit(t, dir, "rev-parse", "HEAD")
	try := func(what string) {
		t.Helper()
		_, err := s.Commit(CommitRequest{Author: Signature{"a", "a@b"}, Message: "x", Changes: []Change{{Path: "a.md", Content: []byte("new\n")}}})
		if err == nil {
			t.Fatalf("%s: the commit went through", what)
		}
		if runGit(t, dir, "rev-parse", "HEAD") != head {
			t.Fatalf("%s: HEAD moved", what)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(data) != "a\n" {
			t.Fatalf("%s: the file changed: %q (%v)", what, data, err)
		}
	}
	runGit(t, dir, "update-index", "--split-index")
	try("split index")
	runGit(t, dir, "update-index", "--no-split-index")
	os.WriteFile(filepath.Join(dir, ".git", "MERGE_HEAD"), []byte(head+"\n"), 0o644)
	try("merge in progress")
	os.Remove(filepath.Join(dir, ".git", "MERGE_HEAD"))
	commit(t, s, "now", Change{Path: "a.md", Content: []byte("new\n")})
}

// The index a commit writes is kept in memory for the next commit, which
// then splices it without reading it again; a git process replacing the
// index in between (a person's `git add`) is seen, and what it staged is
// kept. Every index written is one git reads as valid.
func TestCommitsReuseTheIndexTheyWroteUnlessGitReplacedIt(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "a", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "notes/a.md", Content: []byte("# A\n")})
	commit(t, s, "b", Change{Path: "notes/b.md", Content: []byte("# B\n")})
	if s.idxCache == nil {
		t.Fatal("the index written by a commit is not kept")
	}
	kept := s.idxCache
	os.WriteFile(filepath.Join(dir, "staged.txt"), []byte("by hand\n"), 0o644)
	runGit(t, dir, "add", "staged.txt")
	commit(t, s, "c", Change{Path: "notes/c.md", Content: []byte("# C\n")})
	if s.idxCache == kept {
		t.Fatal("the index git replaced was not read again")
	}
	commit(t, s, "d", Change{Path: "notes/a.md", Delete: true}, Change{Path: "notes/d.md", Content: []byte("# D\n")})
	if got := runGit(t, dir, "ls-files", "-s"); strings.Count(got, "\n")+1 != 5 || !strings.Contains(got, "staged.txt") || strings.Contains(got, "notes/a.md") {
		t.Fatalf("index:\n%s", got)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "A  staged.txt" {
		t.Fatalf("status: %q, want only the file staged by hand", st)
	}
}
