package host

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// The trimmer gives memory back when the heap held exceeds the live heap
// by a quarter (32 MiB at least) and the tick was quiet; never while
// allocation goes on, never when what is held is live.
func TestTrimmerTrimsExcessWhenQuiet(t *testing.T) {
	const mib = 1 << 20
	tr := &trimmer{}
	steps := []struct {
		allocated, live, held uint64
		want                  bool
		why                   string
	}{
		{10, 100, 110, false, "10 MiB over the live heap: under a quarter of it"},
		{500, 100, 300, false, "busy: 490 MiB allocated in the tick"},
		{505, 100, 300, true, "quiet, 200 MiB over the live heap"},
		{506, 100, 102, false, "what is held is live"},
		{540, 100, 140, false, "a save allocating 34 MiB in the tick"},
		{541, 100, 140, true, "the next tick is quiet: the save's 40 MiB over the live heap go back"},
		{1540, 100, 600, false, "a large burst"},
		{1580, 100, 600, true, "slowing down: 40 MiB is over quietBytes but under a sixteenth of the burst"},
		{1581, 20, 50, false, "a small process: 30 MiB over its live heap is under trimMin"},
	}
	for _, s := range steps {
		if got := tr.tick(heapState{allocated: s.allocated * mib, live: s.live * mib, held: s.held * mib}); got != s.want {
			t.Fatalf("at %d MiB allocated, %d live, %d held: trim %v, want %v (%s)", s.allocated, s.live, s.held, got, s.want, s.why)
		}
	}
}

// readHeap reads the runtime's figures: what was allocated only grows, a
// live heap is known once a collection ran, and the heap held covers it.
func TestReadHeap(t *testing.T) {
	debug.FreeOSMemory()
	h1 := readHeap()
	sink = make([]byte, 8<<20)
	runtime.KeepAlive(sink)
	h2 := readHeap()
	if h1.live == 0 || h2.allocated < h1.allocated+8<<20 || h2.held < h1.live {
		t.Errorf("before %+v, after 8 MiB %+v", h1, h2)
	}
}

var sink []byte
