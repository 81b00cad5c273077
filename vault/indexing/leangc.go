package indexing

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's setting follows what the process holds and does.
//
// While an index is built from nothing (a fresh clone's first open, a
// Rebuild), the heap holds the notes of a step, their analysis and the
// in-memory segments besides what stays, and the collector lets it grow
// to twice what is live before collecting: the build's peak was 1.8×
// the steady state at 10,000 notes and 2.5× at 100,000 (issue 16 asks
// 1.5×). Collecting at 50 % growth instead cut the peak from 236 to
// 199–207 MiB at 10,000 notes and from 1,555 to 1,072 MiB at 100,000.
// The build costs more collections: no difference could be told from the
// noise at 10,000 notes, 159 → 207 s at 100,000 in one back-to-back run
// (docs/benchmarks-history.md, "Nothing slower"); at 25 % the 10,000-note build
// took 11.7–13.8 s. Once the other cuts had lowered the steady state, 50 %
// left the 10,000-note peak at 1.42–1.58× it; 40 % gives 1.38–1.50× for a
// build no slower (8.2–9.1 s against 8.1–9.4 s, interleaved runs); 35 %
// was 0.4–0.9 s slower than 40 % for a ratio within the runs' spread
// (docs/benchmarks-history.md, "The end of a build").
//
// In a big vault 40–50 % is still hundreds of MiB of headroom on top of the
// build's working set: at 100,000 notes the peak was 1.65–1.80× the
// steady state. Once the live heap passes bigHeap, a build collects at
// 25 %: 1.42× at 100,000 notes, for a build 11–37 % longer
// (docs/benchmarks-history.md, "The arena in blocks, and a big vault's build at
// 25 %"). A 10,000-note build's live heap stays under 100 MiB, so it
// keeps 40 % and its speed.
//
// Outside builds the default, 100 %, let a 10,000-note server's heap grow
// to twice its live heap under a burst of writes: 75–85 MB live on a
// fresh clone, goals of 155–172 MB, and VmRSS 214–223 MiB after 1,000
// writes in three runs of four (servebench; issue 34 asks 200). At
// SmallGCPercent, 75 %, the same burst ended at 193–198 MiB
// (docs/benchmarks-history.md, "The collector outside builds at 75 %"),
// writes and searches no slower within the runs' spread.
//
// The default, 100 %, also lets a big server's heap grow to
// twice its live heap under a burst of writes: 1.2–1.6 GiB at 100,000
// notes for a live heap of 430 MiB, 962 MiB at 50 % (membench -writes,
// docs/benchmarks-history.md, "A burst of writes in a big vault"). A
// heap past bigHeap collects at BigGCPercent; it
// is small again under three quarters of bigHeap, so a heap near the line
// does not flip at every look. FollowHeap looks at the live heap between
// a build's steps and every few seconds in the background upkeep.
//
// A person's own GOGC wins: with GOGC in the environment the setting is
// never touched.
const (
	BuildGCPercent    = 40 // while a build runs
	BigBuildGCPercent = 25 // while a build runs in a heap past bigHeap
	BigGCPercent      = 50 // a heap past bigHeap, no build running
	SmallGCPercent    = 75 // no build running, a heap under bigHeap
)

// bigHeap is the live heap past which the collector runs tighter (a
// variable for tests).
var bigHeap uint64 = 256 << 20

// personGC says the person set GOGC (a variable for tests).
var personGC = os.Getenv("GOGC") != ""

var lean struct {
	mu     sync.Mutex
	builds int  // builds running
	big    bool // the live heap passed bigHeap at the last look, and has not fallen under ¾ of it since
	cur    int  // the setting made here last (0: none yet)
}

// wantGC is the setting for the state (the caller holds lean.mu).
func wantGC() int {
	switch {
	case lean.builds > 0 && lean.big:
		return BigBuildGCPercent
	case lean.builds > 0:
		return BuildGCPercent
	case lean.big:
		return BigGCPercent
	}
	return SmallGCPercent
}

// applyGC makes the setting wantGC, unless the person holds it (the
// caller holds lean.mu).
func applyGC() {
	if want := wantGC(); !personGC && want != lean.cur {
		debug.SetGCPercent(want)
		lean.cur = want
	}
}

// LeanGC sets the collector for a build until every restore returned by
// the calls made meanwhile has been called.
func LeanGC() (restore func()) {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	lean.builds++
	applyGC()
	return sync.OnceFunc(func() {
		lean.mu.Lock()
		defer lean.mu.Unlock()
		lean.builds--
		applyGC()
	})
}

// FollowHeap looks at the live heap and sets the collector for it.
func FollowHeap() { lookAtHeap(liveHeap()) }

// lookAtHeap sets the collector for a live heap of live bytes.
func lookAtHeap(live uint64) {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	switch {
	case live >= bigHeap:
		lean.big = true
	case live < bigHeap/4*3:
		lean.big = false
	}
	applyGC()
}

// liveHeap is the heap marked live by the last collection.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
