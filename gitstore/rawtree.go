package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// This file reads commits and trees as git stores them, without go-git's
// decoding: walking a long history compares two trees per commit, and
// go-git's object.Tree allocates a string per entry and its callers a map
// per tree, which made the version map of a 50,000-commit history cost
// gigabytes (issue 16). Here an entry's name is a slice of the raw object,
// and two trees, both sorted as git sorts them, are compared by one merge.

// rawEntry is one tree entry; name points into the raw tree.
type rawEntry struct {
	name []byte
	mode filemode.FileMode
	hash plumbing.Hash
}

func (e *rawEntry) isDir() bool { return e.mode == filemode.Dir }

// readRaw reads an object's content.
func readRaw(st storer.EncodedObjectStorer, t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	o, err := st.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, o.Size())
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// rawCommit is what a history walk needs of a commit.
type rawCommit struct {
	tree, parent plumbing.Hash // parent: the first, zero for a root commit
}

// readCommit reads a commit's tree and first parent from its header.
func readCommit(st storer.EncodedObjectStorer, h plumbing.Hash) (rawCommit, error) {
	b, err := readRaw(st, plumbing.CommitObject, h)
	if err != nil {
		return rawCommit{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	var c rawCommit
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) == 0 {
			break // the message follows
		}
		if k, v, ok := bytes.Cut(line, []byte{' '}); ok && len(v) == 40 && plumbing.IsHash(string(v)) {
			switch {
			case string(k) == "tree":
				c.tree = plumbing.NewHash(string(v))
			case string(k) == "parent" && c.parent.IsZero():
				c.parent = plumbing.NewHash(string(v))
			}
		}
	}
	if c.tree.IsZero() {
		return rawCommit{}, fmt.Errorf("read commit %s: no tree", h)
	}
	return c, nil
}

var errBadTree = errors.New("malformed tree")

// parseTree lists a raw tree's entries in git's order (folders compare
// as "name/"). Trees git or this package wrote are in that order already;
// one that is not is sorted, so that the merge in diff stays right.
func parseTree(b []byte) ([]rawEntry, error) {
	// An entry takes 28 bytes at least ("40000 a\0" and its hash): no
	// growing, at most twice what a tree of long names needs.
	out := make([]rawEntry, 0, len(b)/28+1)
	sorted := true
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp <= 0 {
			return nil, errBadTree
		}
		var mode uint32
		for _, c := range b[:sp] {
			if c < '0' || c > '7' {
				return nil, errBadTree
			}
			mode = mode<<3 | uint32(c-'0')
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		if nul <= 0 || len(b) < nul+1+20 {
			return nil, errBadTree
		}
		e := rawEntry{name: b[:nul], mode: filemode.FileMode(mode)}
		copy(e.hash[:], b[nul+1:nul+21])
		b = b[nul+21:]
		if n := len(out); n > 0 && compareEntries(&out[n-1], &e) >= 0 {
			sorted = false
		}
		out = append(out, e)
	}
	if !sorted {
		sort.SliceStable(out, func(i, j int) bool { return compareEntries(&out[i], &out[j]) < 0 })
	}
	return out, nil
}

// compareEntries orders entries as git does (base_name_compare).
func compareEntries(a, b *rawEntry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	next := func(e *rawEntry) int {
		switch {
		case len(e.name) > n:
			return int(e.name[n])
		case e.isDir():
			return '/'
		}
		return 0
	}
	return next(a) - next(b)
}

// rawWalker compares trees of one repository. It keeps the trees it read
// for the last two steps of a walk (step): walking history newest first,
// a commit's trees are its child's parent trees, read the step before.
// Nothing older is kept, so its memory is that of the trees along the
// paths two commits changed, however long the history.
type rawWalker struct {
	st        storer.EncodedObjectStorer
	cur, prev map[plumbing.Hash][]rawEntry
	path      []byte     // the path being visited; fn's argument points into it
	cache     *treeCache // the store's recent trees, read first and kept (nil: none)
}

func newRawWalker(st storer.EncodedObjectStorer) *rawWalker {
	return &rawWalker{st: st, cur: map[plumbing.Hash][]rawEntry{}, prev: map[plumbing.Hash][]rawEntry{}}
}

// newCachedWalker is a walker that reads trees from cache first and
// keeps there the ones it reads (treecache.go).
func newCachedWalker(st storer.EncodedObjectStorer, cache *treeCache) *rawWalker {
	w := newRawWalker(st)
	w.cache = cache
	return w
}

// step starts the next comparison of a walk: the trees read so far become
// the previous step's.
func (w *rawWalker) step() {
	clear(w.prev)
	w.prev, w.cur = w.cur, w.prev
}

func (w *rawWalker) tree(h plumbing.Hash) ([]rawEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	if t, ok := w.cur[h]; ok {
		return t, nil
	}
	if t, ok := w.prev[h]; ok {
		w.cur[h] = t
		return t, nil
	}
	if t, ok := w.cache.get(h); ok {
		w.cur[h] = t
		return t, nil
	}
	b, err := readRaw(w.st, plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	t, err := parseTree(b)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	w.cache.put(h, t, len(b))
	w.cur[h] = t
	return t, nil
}

// diffFunc is told of one file that differs between two trees: its path
// (valid during the call only), its blob in the old tree and in the new
// (zero where absent).
type diffFunc func(path []byte, old, new plumbing.Hash)

// diff calls fn for every file whose entry differs between trees a and b
// (content or mode), descending only into folders whose hash differs and
// for which descend (when not nil) says yes, given the folder's path with
// a trailing slash. With deleted false, files only a holds are not
// reported. Submodules are ignored: they are not notes.
func (w *rawWalker) diff(a, b plumbing.Hash, deleted bool, descend func(dir []byte) bool, fn diffFunc) error {
	w.path = w.path[:0]
	return w.diffAt(a, b, deleted, descend, fn)
}

func (w *rawWalker) diffAt(a, b plumbing.Hash, deleted bool, descend func([]byte) bool, fn diffFunc) error {
	if a == b {
		return nil
	}
	ta, err := w.tree(a)
	if err != nil {
		return err
	}
	tb, err := w.tree(b)
	if err != nil {
		return err
	}
	i, j := 0, 0
	for i < len(ta) || j < len(tb) {
		var ea, eb *rawEntry
		switch {
		case j == len(tb):
			ea, i = &ta[i], i+1
		case i == len(ta):
			eb, j = &tb[j], j+1
		default:
			switch c := compareEntries(&ta[i], &tb[j]); {
			case c < 0:
				ea, i = &ta[i], i+1
			case c > 0:
				eb, j = &tb[j], j+1
			default:
				ea, eb, i, j = &ta[i], &tb[j], i+1, j+1
			}
		}
		if ea != nil && ea.mode == filemode.Submodule {
			ea = nil
		}
		if eb != nil && eb.mode == filemode.Submodule {
			eb = nil
		}
		if eb == nil && (ea == nil || !deleted) {
			continue
		}
		if ea != nil && eb != nil && ea.hash == eb.hash && ea.mode == eb.mode {
			continue
		}
		if err := w.entry(ea, eb, deleted, descend, fn); err != nil {
			return err
		}
	}
	return nil
}

// entry reports one name that differs: a file, or a folder to descend.
// ea and eb share their name and kind (file or folder), or one is nil.
func (w *rawWalker) entry(ea, eb *rawEntry, deleted bool, descend func([]byte) bool, fn diffFunc) error {
	e := eb
	if e == nil {
		e = ea
	}
	n := len(w.path)
	defer func() { w.path = w.path[:n] }()
	w.path = append(w.path, e.name...)
	if !e.isDir() {
		var old, new plumbing.Hash
		if ea != nil {
			old = ea.hash
		}
		if eb != nil {
			new = eb.hash
		}
		fn(w.path, old, new)
		return nil
	}
	w.path = append(w.path, '/')
	if descend != nil && !descend(w.path) {
		return nil
	}
	var ta, tb plumbing.Hash
	if ea != nil {
		ta = ea.hash
	}
	if eb != nil {
		tb = eb.hash
	}
	return w.diffAt(ta, tb, deleted, descend, fn)
}
