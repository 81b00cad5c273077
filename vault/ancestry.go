package vault

import (
	"container/heap"

	"github.com/cairn-dev/cairn/gitstore"
)

// ancestry answers whether commits of HEAD's first-parent chain, asked
// newest first, are ancestors of mark (the commit a principal last saw):
// start_session's delta stops at the first one. mark is usually on the
// chain itself. After a sync fast-forwarded this clone to a merge made on
// another clone, mark is on the merge's second side, and the chain meets
// mark's history further down: without this the delta would run to the
// start of history.
//
// mark's ancestry is read lazily, newest committer date first, down to the
// date of the commit asked about (as git's merge-base walks), at most max
// commits. It only ever says yes for a true ancestor, so the delta never
// misses a change; with clocks wrong across clones it may list one
// already seen.
type ancestry struct {
	store  *gitstore.Store
	mark   string
	max    int
	seen   map[string]bool // ancestors of mark read so far
	queued map[string]bool
	queue  byDate // read, their parents not yet
}

func newAncestry(s *gitstore.Store, mark string, max int) *ancestry {
	a := &ancestry{store: s, mark: mark, max: max, seen: map[string]bool{}, queued: map[string]bool{mark: true}}
	if info, err := s.CommitInfo(mark); err == nil {
		a.queue = byDate{info}
	}
	return a
}

func (a *ancestry) has(c gitstore.CommitInfo) bool {
	if c.Hash == a.mark {
		return true
	}
	for len(a.queue) > 0 && len(a.seen) < a.max && !a.queue[0].Committed.Before(c.Committed) {
		top := heap.Pop(&a.queue).(gitstore.CommitInfo)
		a.seen[top.Hash] = true
		for _, p := range top.Parents {
			if a.queued[p] {
				continue
			}
			a.queued[p] = true
			if info, err := a.store.CommitInfo(p); err == nil {
				heap.Push(&a.queue, info)
			}
		}
	}
	return a.seen[c.Hash]
}

// byDate is a heap of commits, the newest committer date on top.
type byDate []gitstore.CommitInfo

func (b byDate) Len() int           { return len(b) }
func (b byDate) Less(i, j int) bool { return b[i].Committed.After(b[j].Committed) }
func (b byDate) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }
func (b *byDate) Push(x any)        { *b = append(*b, x.(gitstore.CommitInfo)) }
func (b *byDate) Pop() any {
	old := *b
	x := old[len(old)-1]
	*b = old[:len(old)-1]
	return x
}
