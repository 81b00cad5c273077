package gitstore

import (
	"os"
	"runtime"
	"sync"
)

// While a read's ask of git runs (ondemand.go), this process runs on one
// core fewer, so that git has one to itself. A first search-index build
// waits before its next step while an ask runs (indexing.Config.Yield),
// but what it started goes on meanwhile on every core: the step's
// analysis, Bleve's merges, the collector. Beside a fresh 100,000-note
// clone's build on 2 cores, an ask that takes 0.6 s of CPU alone took
// 0.8-1.35 s (docs/benchmarks.md, "Reads while the version map is
// built"). Asks come only while the version map is built, a few seconds
// at the start of a fresh clone's first serve.
//
// The count is changed off the ask's path: runtime.GOMAXPROCS stops the
// world, and waits first for the collector's cycle in progress to end,
// which beside a big build took 0.2-0.3 s, each time an ask began and
// again when it ended. So leaveACore and its restore only record the asks
// and hand the change to a goroutine (applyCores); git starts at once.
var cores struct {
	mu      sync.Mutex
	asks    int  // asks running
	was     int  // GOMAXPROCS before the first of them
	lowered bool // the count applied may differ from was (was is kept)
	// changes are those handed to applyCores: tests wait for them.
	changes sync.WaitGroup
	// applying serializes the changes: each reads the asks when it runs,
	// so the last one applies the last count.
	applying sync.Mutex
}

// personProcs says the person set GOMAXPROCS: it is restored as it was,
// rather than to the runtime's default.
var personProcs = os.Getenv("GOMAXPROCS") != ""

// leaveACore takes a core from this process for an ask's git until
// restore is called. Neither waits for the change.
func leaveACore() (restore func()) {
	cores.mu.Lock()
	if !cores.lowered {
		cores.was = runtime.GOMAXPROCS(0) // a query: no stop
		cores.lowered = true
	}
	cores.asks++
	cores.mu.Unlock()
	cores.changes.Go(applyCores)
	return sync.OnceFunc(func() {
		cores.mu.Lock()
		cores.asks--
		cores.mu.Unlock()
		cores.changes.Go(applyCores)
	})
}

// applyCores sets GOMAXPROCS for the asks running now: one core fewer
// for each (never under one), or, once none runs, what it was before
// them: the person's GOMAXPROCS, else the runtime's default (which goes
// on following the machine's limits).
func applyCores() {
	cores.applying.Lock()
	defer cores.applying.Unlock()
	cores.mu.Lock()
	asks, was := cores.asks, cores.was
	cores.mu.Unlock()
	switch {
	case asks > 0:
		runtime.GOMAXPROCS(max(1, was-asks))
	case personProcs:
		runtime.GOMAXPROCS(was)
	default:
		runtime.SetDefaultGOMAXPROCS()
	}
	cores.mu.Lock()
	if asks == 0 && cores.asks == 0 { // else an ask began meanwhile: was still holds
		cores.lowered = false
	}
	cores.mu.Unlock()
}
