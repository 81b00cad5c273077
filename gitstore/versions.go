package gitstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
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
	for p, h := range vf.Paths {
		vm.paths[p] = plumbing.NewHash(h)
	}
	return vm, nil
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
func updateVersionMap(repo *git.Repository, old *versionMap, head plumbing.Hash) (*versionMap, error) {
	headC, err := repo.CommitObject(head)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", head, err)
	}
	w := &treeWalker{repo: repo, trees: map[plumbing.Hash]map[string]object.TreeEntry{}}
	if old != nil && !old.head.IsZero() {
		if ok, err := isFirstParentAncestor(repo, old.head, headC); err == nil && ok {
			// Every commit since the old head, newest first: the first one
			// that changed (or deleted) a path decides it. Comparing only
			// the two end trees would miss a change undone later (A→B→A),
			// which `git log -1` does not.
			vm := old.clone()
			vm.head = head
			decided := map[string]bool{}
			for c := headC; c.Hash != old.head; {
				parent, err := repo.CommitObject(c.ParentHashes[0])
				if err != nil {
					return nil, fmt.Errorf("read commit %s: %w", c.ParentHashes[0], err)
				}
				hash := c.Hash
				err = w.diff(parent.TreeHash, c.TreeHash, "",
					func(p string) {
						if !decided[p] {
							decided[p] = true
							vm.paths[p] = hash
						}
					},
					func(p string) {
						if !decided[p] {
							decided[p] = true
							delete(vm.paths, p)
						}
					})
				if err != nil {
					return nil, err
				}
				c = parent
			}
			return vm, nil
		}
	}
	vm := &versionMap{head: head, paths: map[string]plumbing.Hash{}}
	unresolved := map[string]bool{}
	if err := w.diff(plumbing.ZeroHash, headC.TreeHash, "", func(p string) { unresolved[p] = true }, nil); err != nil {
		return nil, err
	}
	if err := w.resolve(headC, unresolved, vm.paths); err != nil {
		return nil, err
	}
	return vm, nil
}

func isFirstParentAncestor(repo *git.Repository, ancestor plumbing.Hash, c *object.Commit) (bool, error) {
	for i := 0; i < maxIncremental; i++ {
		if c.Hash == ancestor {
			return true, nil
		}
		if c.NumParents() == 0 {
			return false, nil
		}
		p, err := repo.CommitObject(c.ParentHashes[0])
		if err != nil {
			return false, err
		}
		c = p
	}
	return false, nil
}

// treeWalker reads trees once each and compares them entry by entry,
// descending only where subtree hashes differ.
type treeWalker struct {
	repo  *git.Repository
	trees map[plumbing.Hash]map[string]object.TreeEntry
	// pending counts unresolved files below each directory prefix ("a/b/"),
	// so resolve skips subtrees that hold nothing it still looks for.
	pending map[string]int
}

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
	if len(w.trees) > 200000 {
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

// diff calls changed for every file path in tree b that is absent or
// different in tree a, and deleted (when not nil) for every file path of a
// absent from b. Submodules are ignored: they are not notes.
func (w *treeWalker) diff(a, b plumbing.Hash, prefix string, changed, deleted func(string)) error {
	return w.diffHashes(a, b, prefix, func(p string, old, new plumbing.Hash) {
		switch {
		case !new.IsZero():
			changed(p)
		case deleted != nil:
			deleted(p)
		}
	})
}

// resolve walks first-parent history from start and records, for each path
// in unresolved, the newest commit whose tree differs from its parent's at
// that path.
func (w *treeWalker) resolve(start *object.Commit, unresolved map[string]bool, out map[string]plumbing.Hash) error {
	w.pending = map[string]int{}
	for p := range unresolved {
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				w.pending[p[:i+1]]++
			}
		}
	}
	c := start
	for len(unresolved) > 0 {
		parentTree := plumbing.ZeroHash
		var parent *object.Commit
		if c.NumParents() > 0 {
			p, err := w.repo.CommitObject(c.ParentHashes[0])
			if err != nil {
				return fmt.Errorf("read commit %s: %w", c.ParentHashes[0], err)
			}
			parent, parentTree = p, p.TreeHash
		}
		hash := c.Hash
		err := w.changedUnder(parentTree, c.TreeHash, "", unresolved, func(p string) {
			out[p] = hash
			delete(unresolved, p)
			for i := 0; i < len(p); i++ {
				if p[i] == '/' {
					w.pending[p[:i+1]]--
				}
			}
		})
		if err != nil {
			return err
		}
		if parent == nil {
			break
		}
		c = parent
	}
	return nil
}

// changedUnder is diff restricted to paths still unresolved.
func (w *treeWalker) changedUnder(a, b plumbing.Hash, prefix string, unresolved map[string]bool, found func(string)) error {
	if a == b {
		return nil
	}
	ea, eb, err := w.pair(a, b)
	if err != nil {
		return err
	}
	for name, e := range eb {
		old, had := ea[name]
		if had && old.Hash == e.Hash && old.Mode == e.Mode {
			continue
		}
		path := prefix + name
		if isTree(e) {
			if w.pending[path+"/"] <= 0 {
				continue
			}
			var oldTree plumbing.Hash
			if had && isTree(old) {
				oldTree = old.Hash
			}
			if err := w.changedUnder(oldTree, e.Hash, path+"/", unresolved, found); err != nil {
				return err
			}
			continue
		}
		if unresolved[path] {
			found(path)
		}
	}
	return nil
}

// cleanPath reports whether p is a plain relative slash path.
func cleanPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
