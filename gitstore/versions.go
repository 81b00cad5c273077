package gitstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// versionMap maps every file path in the head commit's tree to the last
// commit, on the first-parent chain, whose tree changed that path. That
// commit's hash is the path's versionToken.
//
// First-parent only: a file changed on a merged side branch gets the merge
// commit, not the side commit `git log -1 -- path` would show. Either names
// the same content; the merge is what the vault's own branch recorded.
type versionMap struct {
	head  plumbing.Hash
	paths map[string]plumbing.Hash
}

// maxIncremental bounds the ancestry check of an incremental update; past it
// a full rebuild is as cheap.
const maxIncremental = 20000

type versionFile struct {
	Format int               `json:"format"`
	Head   string            `json:"head"`
	Paths  map[string]string `json:"paths"`
}

func loadVersionMap(file string) (*versionMap, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var vf versionFile
	if err := json.Unmarshal(data, &vf); err != nil {
		return nil, fmt.Errorf("decode %s: %w", file, err)
	}
	if vf.Format != 1 || !plumbing.IsHash(vf.Head) {
		return nil, fmt.Errorf("decode %s: unknown format", file)
	}
	vm := &versionMap{head: plumbing.NewHash(vf.Head), paths: make(map[string]plumbing.Hash, len(vf.Paths))}
	paths := slices.Collect(maps.Keys(vf.Paths))
	for i, p := range sharedKeys(paths) {
		vm.paths[p] = plumbing.NewHash(vf.Paths[paths[i]])
	}
	return vm, nil
}

// sharedKeys returns paths, in the same order, as slices of one string
// holding them all: a map keyed by them holds one object for its keys
// instead of one per path (100,000 at 100,000 notes, each marked by the
// collector on every one of its cycles: docs/memory.md). The string lives
// as long as any of its keys does: the paths' bytes, no more.
func sharedKeys[S string | []byte](paths []S) []string {
	n := 0
	for _, p := range paths {
		n += len(p)
	}
	buf := make([]byte, 0, n)
	for _, p := range paths {
		buf = append(buf, p...)
	}
	all := string(buf)
	out := make([]string, len(paths))
	off := 0
	for i, p := range paths {
		out[i] = all[off : off+len(p)]
		off += len(p)
	}
	return out
}

func (vm *versionMap) save(file string) error {
	vf := versionFile{Format: 1, Head: vm.head.String(), Paths: make(map[string]string, len(vm.paths))}
	for p, h := range vm.paths {
		vf.Paths[p] = h.String()
	}
	data, err := json.Marshal(vf)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(file, data, 0o644)
}

func (vm *versionMap) clone() *versionMap {
	out := &versionMap{head: vm.head, paths: make(map[string]plumbing.Hash, len(vm.paths)+8)}
	for p, h := range vm.paths {
		out.paths[p] = h
	}
	return out
}

// updateVersionMap brings old (possibly nil) to head: incrementally when
// old.head is a first-parent ancestor of head, otherwise by a full build.
// An incremental step reads the head's trees through trees (nil: none):
// the step to a commit just made compares the trees that commit read and
// wrote.
func updateVersionMap(repo *git.Repository, old *versionMap, head plumbing.Hash, trees *treeCache) (*versionMap, error) {
	if old != nil && !old.head.IsZero() {
		if ok, err := isFirstParentAncestor(repo.Storer, old.head, head); err == nil && ok {
			return advanceVersions(repo.Storer, old, head, trees)
		}
	}
	dir := ""
	if wt, err := repo.Worktree(); err == nil {
		dir = wt.Filesystem.Root()
	}
	return buildVersions(dir, head, nil, nil, func() (storer.EncodedObjectStorer, func(), error) {
		return repo.Storer, func() {}, nil
	})
}

// advanceVersions brings old to head, a first-parent descendant of
// old.head: every commit since the old head, newest first, the first one
// that changed (or deleted) a path deciding it. Comparing only the two end
// trees would miss a change undone later (A→B→A), which `git log -1` does
// not.
func advanceVersions(st storer.EncodedObjectStorer, old *versionMap, head plumbing.Hash, trees *treeCache) (*versionMap, error) {
	vm := old.clone()
	vm.head = head
	decided := map[string]bool{}
	w := newCachedWalker(st, trees)
	for h := head; h != old.head; {
		c, err := readCommit(st, h)
		if err != nil {
			return nil, err
		}
		var parentTree plumbing.Hash
		if !c.parent.IsZero() {
			pc, err := readCommit(st, c.parent)
			if err != nil {
				return nil, err
			}
			parentTree = pc.tree
		}
		w.step()
		err = w.diff(parentTree, c.tree, true, nil, func(p []byte, _, new plumbing.Hash) {
			if decided[string(p)] {
				return
			}
			path := string(p)
			decided[path] = true
			if new.IsZero() {
				delete(vm.paths, path)
			} else {
				vm.paths[path] = h
			}
		})
		if err != nil {
			return nil, err
		}
		h = c.parent
		w.cache = nil // the head's trees only: older ones nothing reads again
	}
	return vm, nil
}

func isFirstParentAncestor(st storer.EncodedObjectStorer, ancestor, h plumbing.Hash) (bool, error) {
	for i := 0; i < maxIncremental && !h.IsZero(); i++ {
		if h == ancestor {
			return true, nil
		}
		c, err := readCommit(st, h)
		if err != nil {
			return false, err
		}
		h = c.parent
	}
	return false, nil
}

// errStopped says a build was given up (its store closed).
var errStopped = errors.New("version map build stopped")

// buildVersions builds the map of head from nothing: it gives each of
// head's files the newest first-parent commit whose tree differs from its
// parent's at that path, with the git command line in dir when it can
// (gitVersions), else walking with go-git (walkVersions) on the objects
// objects opens (and its func closes). Either reads history back to the
// oldest commit that last changed a file still in head: the whole history
// when the first notes were never edited since, the usual case. git's
// walk keeps progress, when not nil, up with what it has read.
func buildVersions(dir string, head plumbing.Hash, stop *atomic.Bool, progress *walkProgress,
	objects func() (storer.EncodedObjectStorer, func(), error)) (*versionMap, error) {
	if dir != "" && gitCommand != "" {
		vm, err := gitVersions(dir, head, stop, progress)
		if err == nil || errors.Is(err, errStopped) {
			return vm, err
		}
	}
	st, done, err := objects()
	if err != nil {
		return nil, err
	}
	defer done()
	c, files, err := headFiles(st, head)
	if err != nil {
		return nil, err
	}
	unresolved := make(map[string]bool, len(files))
	for _, p := range files {
		unresolved[p] = true
	}
	vm := &versionMap{head: head, paths: make(map[string]plumbing.Hash, len(files))}
	return vm, walkVersions(st, head, c, unresolved, vm.paths, stop)
}

// headFiles reads head's commit and lists the files of its tree.
func headFiles(st storer.EncodedObjectStorer, head plumbing.Hash) (rawCommit, []string, error) {
	c, err := readCommit(st, head)
	if err != nil {
		return rawCommit{}, nil, err
	}
	var files []string
	err = newRawWalker(st).diff(plumbing.ZeroHash, c.tree, false, nil, func(p []byte, _, _ plumbing.Hash) {
		files = append(files, string(p))
	})
	return c, files, err
}

// walkVersions walks first-parent history from head (whose commit is c),
// comparing each commit with its parent, descending only into folders
// whose hash differs and that still hold files without a commit (pending
// counts them per folder, "a/b/"), until every file of unresolved has its
// commit in out. Its memory is the trees of two commits (rawWalker).
func walkVersions(st storer.EncodedObjectStorer, head plumbing.Hash, c rawCommit, unresolved map[string]bool, out map[string]plumbing.Hash, stop *atomic.Bool) error {
	pending := map[string]int{}
	for p := range unresolved {
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				pending[p[:i+1]]++
			}
		}
	}
	descend := func(dir []byte) bool { return pending[string(dir)] > 0 }
	w := newRawWalker(st)
	for h := head; len(unresolved) > 0; {
		if stop != nil && stop.Load() {
			return errStopped
		}
		var parent rawCommit
		if !c.parent.IsZero() {
			var err error
			if parent, err = readCommit(st, c.parent); err != nil {
				return err
			}
		}
		w.step()
		err := w.diff(parent.tree, c.tree, false, descend, func(p []byte, _, _ plumbing.Hash) {
			if !unresolved[string(p)] {
				return
			}
			path := string(p)
			delete(unresolved, path)
			out[path] = h
			for i := 0; i < len(path); i++ {
				if path[i] == '/' {
					pending[path[:i+1]]--
				}
			}
		})
		if err != nil {
			return err
		}
		if c.parent.IsZero() {
			break
		}
		h, c = c.parent, parent
	}
	return nil
}
