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
var cores struct {
	mu   sync.Mutex
	asks int // asks running
	was  int // GOMAXPROCS before the first of them
}

// personProcs says the person set GOMAXPROCS: it is restored as it was,
// rather than to the runtime's default.
var personProcs = os.Getenv("GOMAXPROCS") != ""

// leaveACore takes a core from this process for an ask's git until
// restore is called.
func leaveACore() (restore func()) {
	cores.mu.Lock()
	defer cores.mu.Unlock()
	if cores.asks == 0 {
		cores.was = runtime.GOMAXPROCS(0)
	}
	cores.asks++
	runtime.GOMAXPROCS(max(1, cores.was-cores.asks))
	return sync.OnceFunc(func() {
		cores.mu.Lock()
		defer cores.mu.Unlock()
		cores.asks--
		switch {
		case cores.asks > 0:
			runtime.GOMAXPROCS(max(1, cores.was-cores.asks))
		case personProcs:
			runtime.GOMAXPROCS(cores.was)
		default:
			runtime.SetDefaultGOMAXPROCS() // and its following of the machine's limits
		}
	})
}
