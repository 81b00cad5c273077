package gitstore

import "github.com/go-git/go-git/v5/plumbing"

// A read's ask of git (askGit) walks the history limited to one path:
// for each commit it reads the trees on the path's way, most of them
// stored as deltas of the next commit's. git keeps the bases it inflated
// in its delta base cache (core.deltaBaseCacheLimit, 96 MiB by default),
// and an ask needs only the few trees on one path's way. A larger cache
// than that working set only fills fresh memory, each page a fault, with
// trees nothing reads again: on the generated 100,000-note vault (100
// folders of 1,000 notes, trees of 3 and 42 KB on the way), asking for the
// oldest note faulted 37,000 pages with the default and 13,500 with
// 8 MiB, for 0.54 s of CPU in both; right after a fast clone, asks that
// faulted as many spent up to 0.5 s in system time. Too small a cache, though,
// inflates the same bases again for each commit: with one folder of
// 20,000 notes (an 840 KB tree), an ask took 2.4 s with 64 or 96 MiB, 3.0 s
// with 32 MiB and 5.0 s with 8 MiB (docs/benchmarks.md, "Reads while the
// version map is built"). So the cache follows the size of the trees on
// the way: askCachePerTreeByte times it, within a floor and git's own
// default.
const (
	askCacheFloor       = 8 << 20
	askCacheCeiling     = 96 << 20
	askCachePerTreeByte = 80
)

// askDeltaCache is the delta base cache for an ask whose path's way holds
// trees of treeBytes in all (negative: unknown, git's default).
func askDeltaCache(treeBytes int64) int64 {
	if treeBytes < 0 {
		return askCacheCeiling
	}
	return min(max(treeBytes*askCachePerTreeByte, askCacheFloor), askCacheCeiling)
}

// treeEntryBytes is what an entry of a raw tree takes besides its name:
// its mode (5 or 6 digits), a space, a NUL and its 20-byte hash.
const treeEntryBytes = 28

// wayTreesBytesLocked is about how many bytes the trees on path's way
// hold in head's tree, from its root to its folder: what an ask of git
// for path reads at each commit. -1 when they cannot be read.
func (s *Store) wayTreesBytesLocked(head plumbing.Hash, path string) int64 {
	c, err := readCommit(s.repo.Storer, head)
	if err != nil {
		return -1
	}
	total := int64(0)
	_, _, err = newRawWalker(s.repo.Storer).findVisiting(c.tree, path, func(entries []rawEntry) {
		for i := range entries {
			total += int64(len(entries[i].name) + treeEntryBytes)
		}
	})
	if err != nil {
		return -1
	}
	return total
}
