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
// as long as it then sat idle beside the editor (issue 16). Once the
// process has allocated more than its live heap (or trimMin) since the
// last trim and then a whole tick passes with little allocated (under
// quietBytes, the background upkeep's own work, or under a sixteenth of
// what was allocated since the last trim), the freed heap is returned to
// the system at once (debug.FreeOSMemory: one collection). An idle server
// costs nothing; a busy one pays one collection every 16 ticks at most.
const (
	trimEvery  = 5 * time.Second
	trimMin    = 64 << 20
	quietBytes = 16 << 20
	// slowdown: a tick that allocates under 1/slowdown of what was
	// allocated since the last trim counts as quiet too. After a burst
	// of writes Bleve merges its small segments for a while, which
	// allocates more than quietBytes a tick; under a steady load, this
	// trims once every slowdown ticks at most.
	slowdown = 16
)

// trimmer decides, tick by tick, when to give memory back.
type trimmer struct {
	last      uint64 // bytes allocated at the last tick
	sinceTrim uint64 // bytes allocated since the last trim
}

// tick takes the bytes allocated so far and the live heap, and says
// whether to trim now.
func (t *trimmer) tick(allocated, live uint64) bool {
	d := allocated - t.last
	t.last = allocated
	t.sinceTrim += d
	if t.sinceTrim < max(trimMin, live) || d >= max(quietBytes, t.sinceTrim/slowdown) {
		return false
	}
	t.sinceTrim = 0
	return true
}

// trimWhenQuiet runs the trimmer until ctx ends.
func trimWhenQuiet(ctx context.Context) {
	tk := time.NewTicker(trimEvery)
	defer tk.Stop()
	t := &trimmer{}
	t.last, _ = heapNumbers()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			if t.tick(heapNumbers()) {
				debug.FreeOSMemory()
			}
		}
	}
}

// heapNumbers reads the bytes allocated since the process began and the
// live heap as of the last collection.
func heapNumbers() (allocated, live uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		allocated = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		live = s[1].Value.Uint64()
	}
	return allocated, live
}
