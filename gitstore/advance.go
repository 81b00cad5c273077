package gitstore

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrNotDescendant: Advance was given a commit that does not descend from
// HEAD (moving there would drop commits).
var ErrNotDescendant = errors.New("the commit does not descend from HEAD")

// Advance moves the current branch from HEAD to to, a commit already in
// the repository that descends from HEAD: a fast-forward to what a sync
// fetched, or the merge a sync made. Only the files that differ are
// written, with the same order and crash safety as a commit (an
// interrupted advance is finished or dropped by the next process, like an
// interrupted commit: recover.go compares the two commits' trees). A file
// that differs on disk from HEAD is never overwritten: DirtyError, nothing
// changed (commit a person's edits first). It returns the paths it
// changed; the version map is brought up to date from history, so every
// path keeps the last commit that touched it as its version. Every commit
// that comes in is checked first (incoming.go): one that holds a path git
// would refuse, a symbolic link, a submodule or a protected path is
// refused whole (IncomingError), and nothing is written.
func (s *Store) Advance(to string) ([]string, error) {
	if !plumbing.IsHash(to) {
		return nil, fmt.Errorf("advance: %q is not a commit hash", to)
	}
	_, paths, err := s.AdvanceWith(func(string) (string, error) { return to, nil })
	return paths, err
}

// AdvanceWith is Advance to the commit next chooses from HEAD (its hash;
// "" for HEAD, which is zero for an empty repository), under the store's
// write lock: no commit lands between the choice and the move, so next can
// make a merge whose first parent is HEAD without losing a race to the
// writers, who wait meanwhile. next runs with the lock held and must not
// call back into the store. It returns the commit moved to ("" when next
// chose to stay) and the paths changed.
func (s *Store) AdvanceWith(next func(head string) (string, error)) (string, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.awaitBuildLocked() // before the write lock: it may let go of s.mu
	s.settleIndexLocked()
	wl, err := s.lockAndRecover()
	if err != nil {
		return "", nil, err
	}
	defer s.releaseUnlessPending(wl)
	wl.begin()
	if _, err := s.vaultBranch(); err != nil {
		return "", nil, err
	}
	if err := s.refreshLocked(); err != nil {
		return "", nil, err
	}
	head := ""
	if !s.versions.head.IsZero() {
		head = s.versions.head.String()
	}
	to, err := next(head)
	if err != nil || to == "" || to == head {
		return "", nil, err
	}
	if !plumbing.IsHash(to) {
		return "", nil, fmt.Errorf("advance: %q is not a commit hash", to)
	}
	target := plumbing.NewHash(to)
	s.reindexPacks() // to came by a fetch, perhaps in a new pack
	if err := s.checkIncoming(s.versions.head, target); err != nil {
		return "", nil, err
	}
	pc, err := s.stageAdvance(wl, target)
	if err != nil || pc == nil {
		return "", nil, err
	}
	defer pc.batch.abort()
	if err := s.land(wl, pc, "cairn sync: advance to "+target.String()); err != nil {
		return "", nil, err
	}
	vm, err := updateVersionMap(s.repo, s.versions, target, s.trees)
	if err != nil {
		// The branch moved; the next refresh retries the map.
		s.versions.head = plumbing.ZeroHash
		return to, nil, fmt.Errorf("advance: versions: %w", err)
	}
	s.versions, s.dirty = vm, true
	paths := make([]string, 0, len(pc.req.Changes))
	for _, c := range pc.req.Changes {
		paths = append(paths, c.Path)
	}
	return to, paths, nil
}

// stageAdvance prepares the move from HEAD to target: each path that
// differs, with its new content (nil pc: target is HEAD already).
func (s *Store) stageAdvance(wl *writeLock, target plumbing.Hash) (*pendingCommit, error) {
	head := s.versions.head
	if head == target {
		return nil, nil
	}
	c, err := s.repo.CommitObject(target)
	if err != nil {
		return nil, fmt.Errorf("advance: read %s: %w", target, err)
	}
	if !head.IsZero() {
		hc, err := s.repo.CommitObject(head)
		if err != nil {
			return nil, fmt.Errorf("advance: read HEAD: %w", err)
		}
		ok, err := hc.IsAncestor(c)
		if err != nil {
			return nil, fmt.Errorf("advance: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("advance to %s: %w", target, ErrNotDescendant)
		}
	}
	diffs, err := s.commitDiff(head, c)
	if err != nil {
		return nil, err
	}
	pc := &pendingCommit{batch: &batch{nonce: wl.nonce}, head: head, hash: target,
		blobs: map[string]plumbing.Hash{}, before: map[string]plumbing.Hash{}, unchanged: map[string]bool{}}
	pc.sig = c.Committer
	for _, d := range diffs {
		ch := Change{Path: d.path, Delete: d.new.IsZero(), RequireClean: true}
		if !ch.Delete {
			if ch.Content, err = s.blobData(d.new); err != nil {
				pc.batch.abort()
				return nil, err
			}
		}
		pc.req.Changes = append(pc.req.Changes, ch)
		pc.before[d.path], pc.blobs[d.path] = d.old, d.new
	}
	if err := s.checkClean(pc.req.Changes, pc.before); err != nil {
		pc.batch.abort()
		return nil, err
	}
	return pc, nil
}
