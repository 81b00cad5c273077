package gitstore

import (
	"testing"

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
