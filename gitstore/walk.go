package gitstore

import (
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Change kinds of FileChange.
const (
	Added    = "added"
	Modified = "modified"
	Deleted  = "deleted"
	Renamed  = "renamed" // moved or renamed with the same content
)

// FileChange is one path a commit changed.
type FileChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	From string `json:"from,omitempty"` // for renames
}

// Walk calls fn for each first-parent commit from HEAD, newest first, with
// the files it changed, until fn returns false or max commits were seen.
// A file deleted and another added with the same content in one commit is
// reported as one rename.
func (s *Store) Walk(max int, fn func(CommitInfo, []FileChange) bool) error {
	return s.WalkFrom("", max, fn)
}

// WalkFrom is Walk starting at the commit start ("" for HEAD), so that a
// caller paging through history sees the same history on every page.
func (s *Store) WalkFrom(start string, max int, fn func(CommitInfo, []FileChange) bool) error {
	s.mu.Lock()
	head, err := s.headHash()
	s.mu.Unlock()
	if start != "" {
		if !plumbing.IsHash(start) {
			return fmt.Errorf("%q: %w", start, ErrUnknownRevision)
		}
		head, err = plumbing.NewHash(start), nil
	}
	if err != nil || head.IsZero() {
		return err
	}
	for h, n := head, 0; !h.IsZero() && n < max; n++ {
		s.mu.Lock()
		info, changes, parent, err := s.commitChanges(h)
		s.mu.Unlock()
		if err != nil {
			return err
		}
		if !fn(info, changes) {
			return nil
		}
		h = parent
	}
	return nil
}

// walked is what a commit changed; commits never change, so it is cached.
type walked struct {
	info    CommitInfo
	changes []FileChange
	parent  plumbing.Hash
}

// maxWalkCache bounds walkCache by weight: a commit weighs one plus the
// files it changed, so that one import of 50,000 files weighs as much as
// 50,000 commits of one file. A commit's entry takes about 500 bytes and
// a changed file about 100, so the cache holds 25 MiB at most; past the
// bound it starts over (history is read newest first, and what was read
// last is what the next call reads again).
const maxWalkCache = 50000

// cacheWalked adds one commit's changes to walkCache.
func (s *Store) cacheWalked(h plumbing.Hash, w walked) {
	weight := 1 + len(w.changes)
	if s.walkCache == nil || s.walkWeight+weight > maxWalkCache {
		s.walkCache, s.walkWeight = map[plumbing.Hash]walked{}, 0
	}
	s.walkCache[h] = w
	s.walkWeight += weight
}

func (s *Store) commitChanges(h plumbing.Hash) (CommitInfo, []FileChange, plumbing.Hash, error) {
	if w, ok := s.walkCache[h]; ok {
		return w.info, w.changes, w.parent, nil
	}
	info, changes, parent, err := s.readCommitChanges(h)
	if err == nil {
		s.cacheWalked(h, walked{info, changes, parent})
	}
	return info, changes, parent, err
}

func (s *Store) readCommitChanges(h plumbing.Hash) (CommitInfo, []FileChange, plumbing.Hash, error) {
	c, err := s.repo.CommitObject(h)
	if err != nil {
		return CommitInfo{}, nil, plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", h, err)
	}
	parentTree, parent := plumbing.ZeroHash, plumbing.ZeroHash
	if c.NumParents() > 0 {
		parent = c.ParentHashes[0]
		pc, err := s.repo.CommitObject(parent)
		if err != nil {
			return CommitInfo{}, nil, plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", parent, err)
		}
		parentTree = pc.TreeHash
	}
	added := map[string]plumbing.Hash{}
	deleted := map[string]plumbing.Hash{}
	var out []FileChange
	err = newRawWalker(s.repo.Storer).diff(parentTree, c.TreeHash, true, nil, func(b []byte, old, new plumbing.Hash) {
		p := string(b)
		switch {
		case old.IsZero():
			added[p] = new
		case new.IsZero():
			deleted[p] = old
		default:
			out = append(out, FileChange{Path: p, Kind: Modified})
		}
	})
	if err != nil {
		return CommitInfo{}, nil, plumbing.ZeroHash, err
	}
	return infoOf(c), s.pairRenames(out, added, deleted), parent, nil
}

// pairRenames adds the added and deleted files to out, a deleted and an
// added file becoming one rename when they have the same content, or (with
// Options.Identity) the same identity, such as a note's id, even though
// the content changed (a note renamed: new title, new file name).
func (s *Store) pairRenames(out []FileChange, added, deleted map[string]plumbing.Hash) []FileChange {
	byHash := map[plumbing.Hash][]string{}
	for _, p := range sortedPaths(deleted) {
		byHash[deleted[p]] = append(byHash[deleted[p]], p)
	}
	var rest []string
	for _, p := range sortedPaths(added) {
		h := added[p]
		if froms := byHash[h]; len(froms) > 0 {
			out = append(out, FileChange{Path: p, Kind: Renamed, From: froms[0]})
			delete(deleted, froms[0])
			byHash[h] = froms[1:]
			continue
		}
		rest = append(rest, p)
	}
	byIdentity := map[string]string{}
	if s.opts.Identity != nil && len(rest) > 0 && len(deleted) > 0 {
		for _, p := range sortedPaths(deleted) {
			if id := s.identity(deleted[p]); id != "" {
				byIdentity[id] = p
			}
		}
	}
	for _, p := range rest {
		if len(byIdentity) > 0 {
			id := s.identity(added[p])
			if from, ok := byIdentity[id]; ok && id != "" {
				out = append(out, FileChange{Path: p, Kind: Renamed, From: from})
				delete(deleted, from)
				delete(byIdentity, id)
				continue
			}
		}
		out = append(out, FileChange{Path: p, Kind: Added})
	}
	for _, p := range sortedPaths(deleted) {
		out = append(out, FileChange{Path: p, Kind: Deleted})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// identity reads a blob's identity (Options.Identity) from its first 4 KiB.
func (s *Store) identity(h plumbing.Hash) string {
	b, err := s.repo.BlobObject(h)
	if err != nil {
		return ""
	}
	r, err := b.Reader()
	if err != nil {
		return ""
	}
	defer r.Close()
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(r, buf)
	return s.opts.Identity(buf[:n])
}

func sortedPaths(m map[string]plumbing.Hash) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// remember records what a commit made here changed, so that walking
// history never has to diff it.
func (s *Store) remember(h, parent plumbing.Hash, info CommitInfo, changes []Change, before, after map[string]plumbing.Hash) {
	added, deleted := map[string]plumbing.Hash{}, map[string]plumbing.Hash{}
	var out []FileChange
	for _, c := range changes {
		old, had := before[c.Path]
		switch {
		case c.Delete && had:
			deleted[c.Path] = old
		case c.Delete:
		case !had:
			added[c.Path] = after[c.Path]
		case old != after[c.Path]:
			out = append(out, FileChange{Path: c.Path, Kind: Modified})
		}
	}
	s.cacheWalked(h, walked{info: info, changes: s.pairRenames(out, added, deleted), parent: parent})
}

// treeWalker reads go-git trees once each, as maps by name: for editing a
// tree (commit.go) and comparing two (diffHashes, Recover). Walking
// history uses rawWalker instead, which keeps no trees past two commits.
type treeWalker struct {
	repo  *git.Repository
	trees map[plumbing.Hash]map[string]object.TreeEntry
}

// maxWalkerTrees bounds a treeWalker's trees (it starts over past it).
const maxWalkerTrees = 200000

func (w *treeWalker) entries(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	if m, ok := w.trees[h]; ok {
		return m, nil
	}
	t, err := w.repo.TreeObject(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	m := make(map[string]object.TreeEntry, len(t.Entries))
	for _, e := range t.Entries {
		m[e.Name] = e
	}
	if len(w.trees) > maxWalkerTrees {
		w.trees = map[plumbing.Hash]map[string]object.TreeEntry{}
	}
	w.trees[h] = m
	return m, nil
}

func isTree(e object.TreeEntry) bool { return e.Mode == filemode.Dir }

// pair reads the two trees a comparison walks.
func (w *treeWalker) pair(a, b plumbing.Hash) (ea, eb map[string]object.TreeEntry, err error) {
	if ea, err = w.entries(a); err != nil {
		return nil, nil, err
	}
	eb, err = w.entries(b)
	return ea, eb, err
}

// diffHashes reports every file whose blob differs between trees a and b,
// with its old and new hash (zero when absent).
func (w *treeWalker) diffHashes(a, b plumbing.Hash, prefix string, fn func(p string, old, new plumbing.Hash)) error {
	if a == b {
		return nil
	}
	ea, eb, err := w.pair(a, b)
	if err != nil {
		return err
	}
	sub := func(e object.TreeEntry, ok bool) (tree, file plumbing.Hash) {
		if !ok || e.Mode == filemode.Submodule {
			return
		}
		if isTree(e) {
			return e.Hash, plumbing.ZeroHash
		}
		return plumbing.ZeroHash, e.Hash
	}
	names := map[string]bool{}
	for n := range ea {
		names[n] = true
	}
	for n := range eb {
		names[n] = true
	}
	for n := range names {
		x, okx := ea[n]
		y, oky := eb[n]
		if okx && oky && x.Hash == y.Hash && x.Mode == y.Mode {
			continue
		}
		ta, fa := sub(x, okx)
		tb, fb := sub(y, oky)
		if !ta.IsZero() || !tb.IsZero() {
			if err := w.diffHashes(ta, tb, prefix+n+"/", fn); err != nil {
				return err
			}
		}
		if fa != fb {
			fn(prefix+n, fa, fb)
		}
	}
	return nil
}
