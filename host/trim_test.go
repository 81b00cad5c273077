package host

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// The trimmer gives memory back once after a burst, when a quiet tick
// follows it; never while allocation goes on, never twice for one burst,
// never for background upkeep's small allocations.
func TestTrimmerTrimsOnceAfterABurst(t *testing.T) {
	const live = 100 << 20
	tr := &trimmer{}
	steps := []struct {
		allocated uint64
		want      bool
		why       string
	}{
		{10 << 20, false, "upkeep's allocations are no burst"},
		{20 << 20, false, "nor are they together"},
		{120 << 20, false, "a burst in progress"},
		{240 << 20, false, "still busy"},
		{241 << 20, true, "quiet after allocating more than the live heap"},
		{242 << 20, false, "already trimmed"},
		{300 << 20, false, "a small burst: less than the live heap since the trim"},
		{301 << 20, false, "quiet, but too little since the trim"},
		{1300 << 20, false, "a large burst"},
		{1340 << 20, true, "slowing down: 40 MiB is over quietBytes but under a sixteenth of the burst"},
	}
	for _, s := range steps {
		if got := tr.tick(s.allocated, live); got != s.want {
			t.Fatalf("at %d MiB allocated: trim %v, want %v (%s)", s.allocated>>20, got, s.want, s.why)
		}
	}
}

// heapNumbers reads the runtime's figures: what was allocated only grows,
// and a live heap is known once a collection ran.
func TestHeapNumbers(t *testing.T) {
	debug.FreeOSMemory()
	a1, live := heapNumbers()
	sink = make([]byte, 8<<20)
	runtime.KeepAlive(sink)
	a2, _ := heapNumbers()
	if live == 0 || a2 < a1+8<<20 {
		t.Errorf("allocated %d then %d after 8 MiB, live %d", a1, a2, live)
	}
}

var sink []byte
