package gitstore

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A commit rewrites the trees along its paths: in a folder of 1,000 notes,
// a tree of 1,000 entries per write. go-git's object.Tree decodes every
// entry into a string and the edit went through a map of them, sorted and
// encoded again: 600 KB of garbage per write at 100,000 notes in folders
// of 1,000, a third of what a burst of writes allocated (issue 16). Here a
// tree is edited as git stores it (rawtree.go): its entries point into the
// raw object, the changed ones are merged in, and the result is encoded in
// one buffer.

// findEntry is the index of the entry named name in entries (in git's
// order, as parseTree returns them), file or folder, or -1.
func findEntry(entries []rawEntry, name []byte) int {
	for _, mode := range [...]filemode.FileMode{filemode.Regular, filemode.Dir} {
		probe := rawEntry{name: name, mode: mode}
		i := sort.Search(len(entries), func(i int) bool { return compareEntries(&entries[i], &probe) >= 0 })
		if i < len(entries) && bytes.Equal(entries[i].name, name) {
			return i
		}
	}
	return -1
}

// find is the entry at path (slash-separated) in the tree root, a file's
// or a folder's.
func (w *rawWalker) find(root plumbing.Hash, path string) (rawEntry, bool, error) {
	return w.findVisiting(root, path, nil)
}

// findVisiting is find calling visit (when not nil) with each tree it
// reads on path's way, from the root down.
func (w *rawWalker) findVisiting(root plumbing.Hash, path string, visit func([]rawEntry)) (rawEntry, bool, error) {
	h := root
	for {
		entries, err := w.tree(h)
		if err != nil {
			return rawEntry{}, false, err
		}
		if visit != nil {
			visit(entries)
		}
		head, rest, nested := strings.Cut(path, "/")
		i := findEntry(entries, []byte(head))
		if i < 0 {
			return rawEntry{}, false, nil
		}
		if !nested {
			return entries[i], true, nil
		}
		if !entries[i].isDir() {
			return rawEntry{}, false, nil
		}
		h, path = entries[i].hash, rest
	}
}

// editTree returns the hash of the tree at h with the changes applied
// (their paths relative to it), staging every new tree object. ZeroHash
// means the result is empty.
func (s *Store) editTree(w *rawWalker, b *batch, h plumbing.Hash, changes []Change, blobs map[string]plumbing.Hash) (plumbing.Hash, error) {
	old, err := w.tree(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	// edits are the entries this level's changes put in place, by name; a
	// nil one is a deletion.
	edits := map[string]*rawEntry{}
	current := func(name string) (*rawEntry, bool) {
		if e, ok := edits[name]; ok {
			return e, e != nil
		}
		if i := findEntry(old, []byte(name)); i >= 0 {
			return &old[i], true
		}
		return nil, false
	}
	subs := map[string][]Change{}
	var subNames []string
	for _, c := range changes {
		head, rest, nested := strings.Cut(c.Path, "/")
		if nested {
			if subs[head] == nil {
				subNames = append(subNames, head)
			}
			c.Path = rest
			subs[head] = append(subs[head], c)
			continue
		}
		e, ok := current(head)
		if ok && e.isDir() {
			return plumbing.ZeroHash, fmt.Errorf("%s is a folder", head)
		}
		if c.Delete {
			edits[head] = nil
			continue
		}
		mode := filemode.Regular
		if c.Executable || (ok && e.mode == filemode.Executable) {
			mode = filemode.Executable
		}
		edits[head] = &rawEntry{name: []byte(head), mode: mode, hash: blobs[c.Path]}
	}
	for _, name := range subNames {
		cs := subs[name]
		var subHash plumbing.Hash
		if e, ok := current(name); ok {
			if !e.isDir() {
				return plumbing.ZeroHash, fmt.Errorf("%s is a file, not a folder", name)
			}
			subHash = e.hash
		}
		// Re-key blobs for the nested call.
		nb := make(map[string]plumbing.Hash, len(cs))
		for _, c := range cs {
			nb[c.Path] = blobs[name+"/"+c.Path]
		}
		nh, err := s.editTree(w, b, subHash, cs, nb)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%s/%w", name, err)
		}
		if nh.IsZero() {
			edits[name] = nil
		} else {
			edits[name] = &rawEntry{name: []byte(name), mode: filemode.Dir, hash: nh}
		}
	}
	return s.stageTree(w, b, encodeTree(mergeEdits(old, edits)))
}

// stageTree stages a tree object of content data (ZeroHash for an empty
// one) and keeps it in w's cache: the next reads of HEAD go through it.
// It is parsed from its own bytes, as mergeEdits' entries point into the
// old tree's.
func (s *Store) stageTree(w *rawWalker, b *batch, data []byte) (plumbing.Hash, error) {
	if len(data) == 0 {
		return plumbing.ZeroHash, nil
	}
	h, err := s.stageObject(b, plumbing.TreeObject, data)
	if err != nil {
		return h, err
	}
	if t, err := parseTree(data); err == nil {
		w.cache.put(h, t, len(data))
	}
	return h, nil
}

// mergeEdits is old (in git's order) with every entry named in edits
// replaced by the edit's, deleted for a nil one, in git's order.
func mergeEdits(old []rawEntry, edits map[string]*rawEntry) []rawEntry {
	added := make([]rawEntry, 0, len(edits))
	for _, e := range edits {
		if e != nil {
			added = append(added, *e)
		}
	}
	slices.SortFunc(added, func(a, b rawEntry) int { return compareEntries(&a, &b) })
	out := make([]rawEntry, 0, len(old)+len(added))
	for _, e := range old {
		if _, edited := edits[string(e.name)]; edited {
			continue
		}
		for len(added) > 0 && compareEntries(&added[0], &e) < 0 {
			out = append(out, added[0])
			added = added[1:]
		}
		out = append(out, e)
	}
	return append(out, added...)
}

// encodeTree renders entries as a tree object's content: "<mode in
// octal> <name>\0<hash>" each, as git writes them.
func encodeTree(entries []rawEntry) []byte {
	size := 0
	for _, e := range entries {
		size += 7 + len(e.name) + 1 + len(e.hash)
	}
	out := make([]byte, 0, size)
	for _, e := range entries {
		out = strconv.AppendUint(out, uint64(e.mode), 8)
		out = append(out, ' ')
		out = append(out, e.name...)
		out = append(out, 0)
		out = append(out, e.hash[:]...)
	}
	return out
}
