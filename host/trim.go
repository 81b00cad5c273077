package host

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Giving memory back when the server is quiet. The Go heap grows to its
// collection goal, twice the live heap, while calls run, and the runtime
// keeps what it grew to: a server that answered 1,000 writes at 10,000
// notes held 160 MiB of anonymous memory, twice its 80 MiB live heap, for
// as long as it then sat idle beside the editor (issue 16); and the
// periodic save of derived state after writes (the vector file, the
// manifest, the catalog, encoded whole) grew it by 40 MiB again after
// that. Every tick, when the heap the runtime holds exceeds the live heap
// by more than a quarter of it (trimMin at least) and the tick was quiet
// (under quietBytes allocated, the background upkeep's own work, or under
// a sixteenth of what was allocated since the last trim: Bleve merging
// after a burst), the excess is returned to the system at once
// (debug.FreeOSMemory: one collection). An idle server holding what it
// uses costs nothing; one under a steady load pays a collection every 17
// ticks at most (when a tick's share of what came since falls under a
// sixteenth).
const (
	trimEvery  = 5 * time.Second
	trimMin    = 32 << 20
	quietBytes = 16 << 20
	slowdown   = 16
)

// heapState is what a tick reads from the runtime, in bytes.
type heapState struct {
	allocated uint64 // since the process began
	live      uint64 // as of the last collection
	held      uint64 // heap objects (live or not yet collected), free and unused heap not returned
}

// trimmer decides, tick by tick, when to give memory back.
type trimmer struct {
	last      uint64 // bytes allocated at the last tick
	sinceTrim uint64 // bytes allocated since the last trim
}

// tick says whether to trim now.
func (t *trimmer) tick(h heapState) bool {
	d := h.allocated - t.last
	t.last = h.allocated
	t.sinceTrim += d
	if h.held < h.live || h.held-h.live < max(trimMin, h.live/4) || d >= max(quietBytes, t.sinceTrim/slowdown) {
		return false
	}
	t.sinceTrim = 0
	return true
}

// trimWhenQuiet runs the trimmer until ctx ends.
func trimWhenQuiet(ctx context.Context) {
	tk := time.NewTicker(trimEvery)
	defer tk.Stop()
	t := &trimmer{last: readHeap().allocated}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			if t.tick(readHeap()) {
				debug.FreeOSMemory()
			}
		}
	}
}

// heapMetrics are read by readHeap, in heapState's order: allocated,
// live, then the three that make up held.
var heapMetrics = []string{
	"/gc/heap/allocs:bytes",
	"/gc/heap/live:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/unused:bytes",
}

// readHeap reads the runtime's figures.
func readHeap() heapState {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, n := range heapMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return heapState{allocated: v[0], live: v[1], held: v[2] + v[3] + v[4]}
}
