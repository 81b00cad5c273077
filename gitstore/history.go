package gitstore

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CommitInfo is what a reader needs to know of one commit.
type CommitInfo struct {
	Hash   string
	Author string
	Email  string
	When   time.Time // the author's date
	// Committed is the committer's date: unlike the author's, it only
	// grows along a branch (a rebase keeps old author dates).
	Committed time.Time
	Subject   string
	Trailers  map[string]string // the last paragraph's `Key: value` lines
	Parents   []string          // the first is the branch's previous commit
}

// ErrUnknownRevision says a commit is not in this repository.
var ErrUnknownRevision = errors.New("unknown revision")

// Commit returns one commit's information.
func (s *Store) CommitInfo(hash string) (CommitInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitInfoLocked(hash)
}

func (s *Store) commitInfoLocked(hash string) (CommitInfo, error) {
	if !plumbing.IsHash(hash) {
		return CommitInfo{}, fmt.Errorf("%q: %w", hash, ErrUnknownRevision)
	}
	c, err := s.repo.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return CommitInfo{}, fmt.Errorf("%s: %w", hash, ErrUnknownRevision)
	}
	return infoOf(c), nil
}

func infoOf(c *object.Commit) CommitInfo {
	subject, _, _ := strings.Cut(c.Message, "\n")
	info := CommitInfo{
		Hash: c.Hash.String(), Author: c.Author.Name, Email: c.Author.Email,
		When: c.Author.When, Committed: c.Committer.When, Subject: subject, Trailers: ParseTrailers(c.Message),
	}
	for _, p := range c.ParentHashes {
		info.Parents = append(info.Parents, p.String())
	}
	return info
}

// ParseTrailers reads the `Key: value` lines of a message's last paragraph.
// A key given several times (a sync's Cairn-Conflict, one per path) has
// its values joined with "\n", in order.
func ParseTrailers(msg string) map[string]string {
	msg = strings.TrimRight(msg, "\n")
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(msg[i+2:], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil
		}
		if prev, ok := out[k]; ok {
			v = prev + "\n" + v
		}
		out[k] = v
	}
	return out
}

// FileHistory lists, newest first, up to limit first-parent commits that
// changed path (following no renames). It starts at the path's own last
// commit (its version) and reads at most maxCommits commits.
func (s *Store) FileHistory(path string, limit, maxCommits int) ([]CommitInfo, error) {
	// The lock is taken per commit read, not for the whole walk, so a long
	// history never holds writers up.
	s.mu.Lock()
	start, ok, err := s.versionLocked(path)
	if err != nil || !ok {
		s.mu.Unlock()
		return nil, err
	}
	c, err := s.repo.CommitObject(start)
	var cur plumbing.Hash
	if err == nil {
		cur = s.entryHash(c, path)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var out []CommitInfo
	for n := 0; c != nil && len(out) < limit && !cur.IsZero() && n < maxCommits; n++ {
		var parent *object.Commit
		prev := plumbing.ZeroHash
		if c.NumParents() > 0 {
			s.mu.Lock()
			parent, err = s.repo.CommitObject(c.ParentHashes[0])
			if err == nil {
				prev = s.entryHash(parent, path)
			}
			s.mu.Unlock()
			if err != nil {
				return nil, err
			}
		}
		if prev != cur {
			out = append(out, infoOf(c))
		}
		c, cur = parent, prev
	}
	return out, nil
}

func (s *Store) entryHash(c *object.Commit, path string) plumbing.Hash {
	e, found, err := newRawWalker(s.repo.Storer).find(c.TreeHash, path)
	if err != nil || !found {
		return plumbing.ZeroHash
	}
	return e.hash
}

// ReadAt returns path's content in the given commit.
func (s *Store) ReadAt(rev, path string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !plumbing.IsHash(rev) {
		return nil, fmt.Errorf("%q: %w", rev, ErrUnknownRevision)
	}
	c, err := s.repo.CommitObject(plumbing.NewHash(rev))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rev, ErrUnknownRevision)
	}
	t, err := s.repo.TreeObject(c.TreeHash)
	if err != nil {
		return nil, err
	}
	f, err := t.File(path)
	if err != nil {
		return nil, fmt.Errorf("%s is not in %s", path, rev)
	}
	r, err := f.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Dirty reports whether the file on disk differs from its committed content
// (a new file not yet committed is dirty; a committed file gone from disk too).
func (s *Store) Dirty(path string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	committed, err := s.committedBlobLocked(path)
	if err != nil {
		return false, err
	}
	clean, err := s.diskMatches(path, committed)
	return !clean, err
}

// CommittedAs says whether data is exactly what HEAD holds at path, and
// if so the path's version (its versionToken), read together: a reader
// that read the file can tell a whole committed version from a save in
// progress, and name the commit that holds what it read.
func (s *Store) CommittedAs(path string, data []byte) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, committed, known := s.buildingVersionLocked(path); known {
		// The map is still being built: git was asked for this path.
		if committed.IsZero() || blobHash(data) != committed {
			return "", false, nil
		}
		return h.String(), true, nil
	}
	committed, err := s.committedBlobLocked(path)
	if err != nil || committed.IsZero() || blobHash(data) != committed {
		return "", false, err
	}
	return s.versions.paths[path].String(), true, nil
}

// committedBlobLocked is the blob HEAD holds at path (zero: none). While
// the map is built and HEAD is the build's tip, HEAD's tree alone says
// it (the map would only add that the path is a file, which the tree
// says too): an edit's check of the file on disk does not wait for the
// build.
func (s *Store) committedBlobLocked(path string) (plumbing.Hash, error) {
	if b := s.build; b != nil && !b.ended() {
		if head, err := s.headHash(); err == nil && head == b.tip {
			return s.headBlobLocked(head, path)
		}
	}
	if err := s.refreshLocked(); err != nil {
		return plumbing.ZeroHash, err
	}
	if _, ok := s.versions.paths[path]; !ok {
		return plumbing.ZeroHash, nil
	}
	return s.headBlobLocked(s.versions.head, path) // the map was refreshed to HEAD
}

// headBlobLocked is the blob head's tree holds at path, zero when none (or
// a folder, or a submodule: the map holds files only). Raw objects: go-git's
// would decode a folder of 1,000 notes into strings on every read of a
// note (Vault.GetNote asks).
func (s *Store) headBlobLocked(head plumbing.Hash, path string) (plumbing.Hash, error) {
	c, err := readCommit(s.repo.Storer, head)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	e, found, err := newCachedWalker(s.repo.Storer, s.trees).find(c.tree, path)
	if err != nil || !found || e.mode == filemode.Dir || e.mode == filemode.Submodule {
		return plumbing.ZeroHash, err
	}
	return e.hash, nil
}

// headBlobs maps every file of HEAD's tree to its blob. Only HEAD's
// tree hash is read under s.mu: the tree itself is read with a repository
// handle of its own once s.mu is let go. Read under s.mu, its 100,000
// entries held every search (Head) and read for as long: the watcher's
// first stray scan does it when a fresh clone's version map arrives, in
// the middle of the index build. The handle's cache goes with it: read
// through the store's, the trees and the older versions each was stored
// as a delta of filled the object cache (16 MiB then) on a fresh clone of
// 10,000 notes with what nothing reads again (issue 34).
func (s *Store) headBlobs() (map[string]plumbing.Hash, error) {
	s.mu.Lock()
	root, err := s.headTreeHashLocked()
	s.mu.Unlock()
	committed := map[string]plumbing.Hash{}
	if err != nil || root.IsZero() {
		return committed, err
	}
	if lockFreeHook != nil {
		lockFreeHook()
	}
	repo, err := openRepositoryCache(s.dir, cache.NewObjectLRU(buildCache))
	if err != nil {
		return nil, err
	}
	defer closeRepository(repo)
	err = newRawWalker(repo.Storer).diff(plumbing.ZeroHash, root, false, nil, func(p []byte, _, h plumbing.Hash) { committed[string(p)] = h })
	return committed, err
}

// headTreeHashLocked brings the version map up to date (a stray scan
// compares the notes with the HEAD it knows), and returns the hash of
// HEAD's tree (zero on an unborn branch).
func (s *Store) headTreeHashLocked() (plumbing.Hash, error) {
	if err := s.refreshLocked(); err != nil {
		return plumbing.ZeroHash, err
	}
	head, err := s.headHash()
	if err != nil || head.IsZero() {
		return plumbing.ZeroHash, err
	}
	c, err := readCommit(s.repo.Storer, head)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.tree, nil
}

// Changed returns, among paths, those whose file on disk differs from what
// HEAD holds: changed, deleted (tracked, now absent) or new (untracked). It
// reads HEAD's tree once and hashes the files on every core.
func (s *Store) Changed(paths []string) ([]string, error) {
	committed, err := s.headBlobs()
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	// A file that cannot be read counts as changed: the caller reading it
	// reports why. One whose size and mtime are those git's index holds
	// for the committed blob is not read at all.
	stat := s.loadStatCache()
	differs := make([]bool, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if stat.clean(s.dir, paths[i], committed[paths[i]]) {
					continue
				}
				clean, err := s.diskMatches(paths[i], committed[paths[i]])
				differs[i] = err != nil || !clean
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []string
	for i, p := range paths {
		if differs[i] {
			out = append(out, p)
		}
	}
	return out, nil
}
