package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// onDemandHistory's first-parent history: first, edit, main, the merge,
// remove, last.
const onDemandFirstParents = 6

// openHeld opens dir with its version map's build held until the test
// ends, so that reads ask git path by path, waits for the commit-graph
// write the build began (if any) to end, reads one path and returns the
// store.
func openHeld(t *testing.T, dir string) *Store {
	t.Helper()
	gate := make(chan struct{})
	buildGate = func() { <-gate }
	t.Cleanup(func() { buildGate = nil })
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	t.Cleanup(func() { close(gate) })
	s.mu.Lock()
	g := s.build.graph
	s.mu.Unlock()
	<-g
	if _, _, err := s.Version("old.md"); err != nil {
		t.Fatal(err)
	}
	return s
}

func commitGraphFile(dir string) []byte {
	b, _ := os.ReadFile(filepath.Join(dir, ".git/objects/info/commit-graph"))
	return b
}

// A version map built from nothing over a long history has git write a
// plain commit-graph, so that a read's ask for one path parses no commit
// (issue 34: the oldest of 100,000 notes asked in 0.60 s of CPU instead
// of 1.04); the versions asked with it are those the map gives.
func TestALongHistoryGetsACommitGraph(t *testing.T) {
	defer func(n int) { graphAfterCommits = n }(graphAfterCommits)
	graphAfterCommits = onDemandFirstParents
	dir := onDemandHistory(t)
	s := openHeld(t, dir)

	graph := commitGraphFile(dir)
	if graph == nil {
		t.Fatal("no commit-graph written for a history of graphAfterCommits commits")
	}
	if bytes.Contains(graph[:min(len(graph), 256)], []byte("BDAT")) {
		t.Error("the commit-graph has changed-path filters: their write costs more than the version map")
	}
	runGit(t, dir, "commit-graph", "verify")

	want, err := buildVersions(dir, mustHead(t, s), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"old.md", "edited.md", "f/deep/in folder.md", "side.md", "main.md", "last.md", ".gitignore"} {
		v, ok, err := s.Version(p)
		if err != nil || !ok || v != want.paths[p].String() {
			t.Errorf("Version(%q) with the commit-graph = %q, %v, %v; the map says %s", p, v, ok, err, want.paths[p])
		}
	}
}

// A shorter history, or a person who turned commit-graphs off, gets none.
func TestNoCommitGraphForAShortHistoryOrWhenTurnedOff(t *testing.T) {
	defer func(n int) { graphAfterCommits = n }(graphAfterCommits)
	graphAfterCommits = onDemandFirstParents + 1
	t.Run("short", func(t *testing.T) {
		dir := onDemandHistory(t)
		openHeld(t, dir)
		if commitGraphFile(dir) != nil {
			t.Errorf("a commit-graph was written for %d commits, below graphAfterCommits (%d)", onDemandFirstParents, graphAfterCommits)
		}
	})
	for _, key := range []string{"core.commitGraph", "gc.writeCommitGraph"} {
		t.Run(key, func(t *testing.T) {
			graphAfterCommits = onDemandFirstParents
			dir := onDemandHistory(t)
			runGit(t, dir, "config", key, "false")
			openHeld(t, dir)
			if commitGraphFile(dir) != nil {
				t.Errorf("a commit-graph was written with %s false", key)
			}
		})
	}
}

// Close leaves git to end its write: a signal could leave
// commit-graph.lock behind (git sets up its handler only after it makes
// the lock), and the person's next git gc would fail on it.
func TestCloseLetsGitEndTheCommitGraphWrite(t *testing.T) {
	defer func(n int) { graphAfterCommits = n }(graphAfterCommits)
	graphAfterCommits = onDemandFirstParents
	dir := onDemandHistory(t)
	gate := make(chan struct{})
	buildGate = func() { <-gate }
	defer func() { buildGate = nil }()
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	g := s.build.graph
	s.mu.Unlock()
	close(gate)
	s.Close()
	<-g
	if _, err := os.Stat(filepath.Join(dir, ".git/objects/info/commit-graph.lock")); !os.IsNotExist(err) {
		t.Fatalf("commit-graph.lock once git ended: %v", err)
	}
	if commitGraphFile(dir) == nil {
		t.Fatal("no commit-graph once git ended")
	}
	runGit(t, dir, "commit-graph", "write", "--reachable")
}

// A commit-graph the repository has already (git gc's, with its filters)
// is left as it is.
func TestAnExistingCommitGraphIsKept(t *testing.T) {
	defer func(n int) { graphAfterCommits = n }(graphAfterCommits)
	graphAfterCommits = onDemandFirstParents
	dir := onDemandHistory(t)
	runGit(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	file := filepath.Join(dir, ".git/objects/info/commit-graph")
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	openHeld(t, dir)
	// git writes a commit-graph to a lock file renamed over the old one.
	if after, err := os.Stat(file); err != nil || !os.SameFile(before, after) {
		t.Errorf("the commit-graph the repository had was written again (%v)", err)
	}
}
