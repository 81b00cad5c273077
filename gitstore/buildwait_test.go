package gitstore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// While the version map is still being built at Open (minutes on a fresh
// clone of 100,000 commits), a call that waits for it must not hold the
// store's lock: Head, which a search asks first, answers meanwhile. Then
// the build ends and the waiting call, and a commit, get the full map.
func TestHeadAnswersWhileAnotherCallWaitsForTheBuild(t *testing.T) {
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	for _, f := range []string{"a.md", "b.md", "c.md"} {
		os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
		runGit(t, dir, "add", f)
		runGit(t, dir, "commit", "-q", "-m", f)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".cairn/\n"), 0o644)
	runGit(t, dir, "add", ".gitignore")
	runGit(t, dir, "commit", "-q", "-m", "ignore")
	head := runGit(t, dir, "rev-parse", "HEAD")

	gate, started, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
	buildGate = func() { close(started); <-gate }
	buildWaiting = func() { close(waiting) }
	defer func() { buildGate, buildWaiting = nil, nil }()
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	<-started

	paths := make(chan []string, 1)
	go func() {
		p, err := s.Paths() // waits for the build
		if err != nil {
			t.Error(err)
		}
		paths <- p
	}()
	<-waiting
	// Head answers though Paths waits (the deadline only bounds a
	// failure: before the fix, Head waited for the whole build).
	got := make(chan string, 1)
	go func() {
		h, err := s.Head()
		if err != nil {
			t.Error(err)
		}
		got <- h
	}()
	select {
	case h := <-got:
		if h != head {
			t.Fatalf("Head %s, want %s", h, head)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Head waited behind the version map's build")
	}
	select {
	case p := <-paths:
		t.Fatalf("Paths answered before the build ended: %v", p)
	default:
	}
	close(gate)
	p := <-paths
	slices.Sort(p)
	if !slices.Equal(p, []string{".gitignore", "a.md", "b.md", "c.md"}) {
		t.Fatalf("Paths after the build: %v", p)
	}
	if _, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: "d",
		Changes: []Change{{Path: "d.md", Content: []byte("d")}}}); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Version("a.md"); err != nil || !ok || v == "" {
		t.Fatalf("a.md's version after the build: %q %v %v", v, ok, err)
	}
}
