package gitstore

import (
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// A write reads the trees on its path's way several times: whether the
// note is dirty and what it was committed as (headBlobLocked), the
// commit's own edit (stageCommit), the version map's step to the new
// head (advanceVersions). Each read of a tree stored loose inflates it
// again, and the tree the previous write made is loose. In a folder of
// 20,000 notes that tree is 840 KB, and reading it was half of a write's
// CPU (docs/benchmarks.md, "One folder of many notes"). So a store keeps
// the trees its reads and writes went through last, parsed, by hash:
// a tree's content is its hash's, so an entry is never stale.
//
// History walks (the version map's build, a note's history, a sync's
// incoming commits) read trees nothing reads again and do not go through
// it; the version map's step to a new head reads the head's trees and
// its parent's through it, and no older ones.

// treeCacheTrees and treeCacheBytes bound what a treeCache holds: a
// write in a nested folder reads and writes two or three trees each way,
// and the biggest case, one folder of 100,000 notes, makes trees of about
// 11 MiB parsed, of which the cache must hold the old and the new.
const (
	treeCacheTrees = 16
	treeCacheBytes = 32 << 20
)

// rawEntrySize is what a parsed entry takes besides its name, which
// points into the raw tree (a slice header, the mode and the hash).
const rawEntrySize = 48

// treeCache holds parsed trees, the least recently used evicted first.
// The entries it hands out are shared: read them only.
type treeCache struct {
	mu    sync.Mutex
	trees map[plumbing.Hash]*cachedTree
	bytes int
	tick  uint64
}

type cachedTree struct {
	entries []rawEntry
	bytes   int
	used    uint64
}

func newTreeCache() *treeCache {
	return &treeCache{trees: map[plumbing.Hash]*cachedTree{}}
}

// get is the tree h, if held.
func (c *treeCache) get(h plumbing.Hash) ([]rawEntry, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.trees[h]
	if !ok {
		return nil, false
	}
	c.tick++
	t.used = c.tick
	return t.entries, true
}

// put holds entries, parsed from raw bytes of tree h, unless they alone
// pass the bound; the least recently used go until the rest fits.
func (c *treeCache) put(h plumbing.Hash, entries []rawEntry, raw int) {
	if c == nil {
		return
	}
	size := raw + cap(entries)*rawEntrySize
	if size > treeCacheBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.trees[h]; ok {
		return
	}
	for len(c.trees) >= treeCacheTrees || c.bytes+size > treeCacheBytes {
		c.evictLocked()
	}
	c.tick++
	// Capacity cut to the length: an append by a reader copies.
	c.trees[h] = &cachedTree{entries: entries[:len(entries):len(entries)], bytes: size, used: c.tick}
	c.bytes += size
}

// evictLocked drops the least recently used tree.
func (c *treeCache) evictLocked() {
	var oldest plumbing.Hash
	var at uint64
	first := true
	for h, t := range c.trees {
		if first || t.used < at {
			oldest, at, first = h, t.used, false
		}
	}
	if t, ok := c.trees[oldest]; ok {
		c.bytes -= t.bytes
		delete(c.trees, oldest)
	}
}
