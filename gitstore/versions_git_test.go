package gitstore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

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

// git run through a wrapper that does not exec it (a version manager's
// shim, a script that logs its calls) outlives the wrapper when the
// wrapper is killed, holding the pipes cairn reads: a store closed while
// its version map was being built waited for that git forever, which
// itself waited, blocked writing the rest of the history to a pipe no one
// read. The walk's git is killed with its process group instead (and Wait
// gives up on pipes held past gitWaitDelay).
func TestClosingDuringTheBuildDoesNotWaitForAWrappedGit(t *testing.T) {
	dir := t.TempDir()
	deepHistory(t, dir, 3000)       // more names than a pipe holds
	wrapGit(t, "\"$GIT\" \"$@\"\n") // runs git, does not exec it

	gate := make(chan struct{})
	buildGate = func() { <-gate }
	t.Cleanup(func() { buildGate = nil })
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json")})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	b := s.build
	s.mu.Unlock()
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	for !b.stop.Load() { // Close has asked the build to stop: let it read
		time.Sleep(time.Millisecond)
	}
	close(gate)
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute): // a hang, not a slow close
		t.Fatal("Close still waits for the version map's git two minutes on")
	}
}
