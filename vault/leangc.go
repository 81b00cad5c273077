package vault

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// While an index is built from nothing (a fresh clone's first open, a
// Rebuild), the heap holds the notes of a step, their analysis and the
// in-memory segments besides what stays, and the collector lets it grow
// to twice what is live before collecting: the build's peak was 1.8×
// the steady state at 10,000 notes and 2.5× at 100,000 (issue 16 asks
// 1.5×). Collecting at 50 % growth instead cut the peak from 236 to
// 199–207 MiB at 10,000 notes and from 1,555 to 1,072 MiB at 100,000.
// The build costs more collections: no difference could be told from the
// noise at 10,000 notes, 159 → 207 s at 100,000 in one back-to-back run
// (docs/benchmarks.md, "Nothing slower"); at 25 % the 10,000-note build
// took 11.7–13.8 s. Only a build pays it; a person's own GOGC (anything
// but the default 100) wins.
//
// In a big vault 50 % is still hundreds of MiB of headroom on top of the
// build's working set: at 100,000 notes the peak was 1.65–1.80× the
// steady state. Once the live heap passes bigBuildHeap, a build collects
// at 25 %: 1.42× at 100,000 notes, for a build 11–37 % longer
// (docs/benchmarks.md, "The arena in blocks, and a big vault's build at
// 25 %"). A 10,000-note build's live heap stays under 100 MiB, so it
// keeps 50 % and its speed.
const (
	buildGCPercent    = 50
	bigBuildGCPercent = 25
)

// bigBuildHeap is the live heap past which a build collects at
// bigBuildGCPercent (a variable for tests).
var bigBuildHeap uint64 = 256 << 20

var lean struct {
	mu    sync.Mutex
	count int // builds running
	prev  int // the setting before the first of them
	cur   int // the setting the builds chose
}

// leanGC sets the collector to buildGCPercent until every restore
// returned by the calls made meanwhile has been called.
func leanGC() (restore func()) {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	if lean.count == 0 {
		lean.prev = debug.SetGCPercent(buildGCPercent)
		lean.cur = buildGCPercent
		if lean.prev != 100 {
			debug.SetGCPercent(lean.prev)
		}
	}
	lean.count++
	return sync.OnceFunc(func() {
		lean.mu.Lock()
		defer lean.mu.Unlock()
		if lean.count--; lean.count == 0 {
			debug.SetGCPercent(lean.prev)
		}
	})
}

// leanStep is called between a build's steps: it moves the collector to
// bigBuildGCPercent once the live heap has passed bigBuildHeap. It does
// nothing when no build runs or the person set GOGC.
func leanStep() {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	if lean.count == 0 || lean.prev != 100 || lean.cur == bigBuildGCPercent {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() >= bigBuildHeap {
		lean.cur = bigBuildGCPercent
		debug.SetGCPercent(bigBuildGCPercent)
	}
}
