package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// onDemandHistory's first-parent history: first, edit, main, the merge,
// remove, last.
const onDemandFirstParents = 6

// openHeld opens dir with its version map's build held until the test
// ends, so that reads ask git path by path, reads one path (the first
// ask starts the commit-graph write), and returns the store with that
// write (if any) ended.
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
	if _, _, err := s.Version("old.md"); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	g := s.graph
	s.mu.Unlock()
	if g != nil {
		<-g.done
	}
	return s
}

func commitGraphFile(dir string) []byte {
	b, _ := os.ReadFile(filepath.Join(dir, ".git/objects/info/commit-graph"))
	return b
}

// A version map built from nothing over a long history has git write a
// commit-graph with changed-path Bloom filters, so that a read's ask for
// one path skips the diffs (issue 34: the oldest of 100,000 notes read in
// 0.1 s instead of 1-2.7 s); the versions asked with it are those the map
// gives.
func TestALongHistoryGetsACommitGraphWithChangedPaths(t *testing.T) {
	defer func(n int) { graphAfterCommits = n }(graphAfterCommits)
	graphAfterCommits = onDemandFirstParents
	dir := onDemandHistory(t)
	s := openHeld(t, dir)

	graph := commitGraphFile(dir)
	if graph == nil {
		t.Fatal("no commit-graph written for a history of graphAfterCommits commits")
	}
	for _, chunk := range []string{"BIDX", "BDAT"} {
		if !bytes.Contains(graph[:min(len(graph), 256)], []byte(chunk)) {
			t.Errorf("the commit-graph has no %s chunk (changed-path Bloom filters)", chunk)
		}
	}
	runGit(t, dir, "commit-graph", "verify")

	want, err := buildVersions(dir, mustHead(t, s), nil, nil)
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
	if _, _, err := s.Version("old.md"); err != nil {
		t.Fatal(err)
	}
	g := s.graph
	if g == nil {
		t.Fatal("an ask during the build started no commit-graph write")
	}
	close(gate)
	s.Close()
	<-g.done
	if _, err := os.Stat(filepath.Join(dir, ".git/objects/info/commit-graph.lock")); !os.IsNotExist(err) {
		t.Fatalf("commit-graph.lock once git ended: %v", err)
	}
	if graph := commitGraphFile(dir); !bytes.Contains(graph[:min(len(graph), 256)], []byte("BDAT")) {
		t.Fatalf("no commit-graph with changed paths once git ended (%d bytes)", len(graph))
	}
	runGit(t, dir, "commit-graph", "write", "--reachable")
}

func mustHead(t *testing.T, s *Store) plumbing.Hash {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.headHash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The version map's walk gets a delta base cache of walkDeltaCache, or
// the person's own core.deltaBaseCacheLimit when that is larger (a
// smaller one would slow the walk twofold: versions_git.go).
func TestTheWalksDeltaCacheKeepsALargerSetting(t *testing.T) {
	dir := onDemandHistory(t)
	if got := logDeltaCache(dir); got != walkDeltaCache {
		t.Errorf("unset: %d, want %d", got, walkDeltaCache)
	}
	runGit(t, dir, "config", "core.deltaBaseCacheLimit", "32m")
	if got := logDeltaCache(dir); got != walkDeltaCache {
		t.Errorf("32m set: %d, want %d", got, walkDeltaCache)
	}
	runGit(t, dir, "config", "core.deltaBaseCacheLimit", "1g")
	if got := logDeltaCache(dir); got != 1<<30 {
		t.Errorf("1g set: %d, want %d", got, 1<<30)
	}
}
