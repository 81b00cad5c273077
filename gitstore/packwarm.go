package gitstore

import "github.com/go-git/go-git/v5/plumbing"

// warmPacks reads the root tree of head's first parent under s.mu, while
// the version map's build b still runs: go-git's first read of an object
// stored as a delta against another by its offset in the pack maps every
// offset of the pack to its object (idxfile.MemoryIndex.FindHash), once
// per store. At 100,000 notes that took the first read during the build
// 0.13 s on a quiet machine and 0.2 s beside a fresh clone's index build,
// under s.mu (headBlobLocked), before its ask of git could start. Started
// with the build, it is done long before the first read comes: a fresh
// clone's first search answers after 2 s. The parent's root tree is an
// older version of head's, which a pack git made stores as a delta against
// the newer one; in a history where it is not, the first read pays as
// before. Nothing is read once the build has ended, or the store has
// closed (Close takes the build).
func (s *Store) warmPacks(b *versionBuild, head plumbing.Hash) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.build != b {
		return
	}
	c, err := readCommit(s.repo.Storer, head)
	if err != nil || c.parent.IsZero() {
		return
	}
	if p, err := readCommit(s.repo.Storer, c.parent); err == nil {
		newRawWalker(s.repo.Storer).tree(p.tree)
	}
}
