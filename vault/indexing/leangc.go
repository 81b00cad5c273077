package indexing

import (
	"math"
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
// A lone build foresees the live heap it will end with, and collects
// under a memory limit instead: see FollowBuild.
//
// A person's own GOGC wins: with GOGC in the environment the setting is
// never touched; nor is the memory limit with GOMEMLIMIT (nor, then, is
// the collector given the room a limit would bound).
const (
	BuildGCPercent    = 40 // while a build runs
	BigBuildGCPercent = 25 // while a build runs in a heap past bigHeap
	BigGCPercent      = 50 // a heap past bigHeap, no build running
	SmallGCPercent    = 75 // no build running, a heap under bigHeap

	// LimitedBuildGCPercent is the setting while a build's memory limit
	// holds: the limit, not the growth, says when to collect.
	LimitedBuildGCPercent = 100
	// BuildPeakPercent is the memory limit of a lone build, in percent of
	// the live heap it is foreseen to end with (plus what the runtime holds
	// besides the heap): the goal a big build's percentage gives at its
	// end, where the peak was, so the peak stays where it was. At 135 %
	// the peak was 1–29 MiB higher (`cairn search`, 100,000 notes) for a
	// build no faster within the runs' spread.
	BuildPeakPercent = 100 + BigBuildGCPercent
	// CeilingGCPercent bounds a build's memory limit by the live heap
	// now: never more room than this growth over it.
	CeilingGCPercent = 60
)

// bigHeap is the live heap past which the collector runs tighter (a
// variable for tests).
var bigHeap uint64 = 256 << 20

// personGC says the person set GOGC, personLimit GOMEMLIMIT (variables
// for tests).
var (
	personGC    = os.Getenv("GOGC") != ""
	personLimit = os.Getenv("GOMEMLIMIT") != ""
)

var lean struct {
	mu       sync.Mutex
	builds   int    // builds running
	big      bool   // the live heap passed bigHeap at the last look, and has not fallen under ¾ of it since
	cur      int    // the setting made here last (0: none yet)
	total    int    // the notes of the lone build
	looks    []look // the live heap at its steps
	limit    int64  // its memory limit (0: none foreseen yet)
	curLimit int64  // the memory limit made here last (0: none yet)
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

// applyGC makes the setting wantGC, or LimitedBuildGCPercent under a
// lone build's memory limit, unless the person holds them (the caller
// holds lean.mu).
func applyGC() {
	want, limit := wantGC(), int64(math.MaxInt64)
	if lean.builds == 1 && lean.limit > 0 {
		want, limit = LimitedBuildGCPercent, lean.limit
	}
	if !personGC && want != lean.cur {
		debug.SetGCPercent(want)
		lean.cur = want
	}
	if !personLimit && limit != lean.curLimit {
		debug.SetMemoryLimit(limit)
		lean.curLimit = limit
	}
}

// LeanGC sets the collector for a build until every restore returned by
// the calls made meanwhile has been called.
func LeanGC() (restore func()) {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	lean.builds++
	lean.total, lean.looks, lean.limit = 0, nil, 0 // a second build ends the first's foresight
	applyGC()
	return sync.OnceFunc(func() {
		lean.mu.Lock()
		defer lean.mu.Unlock()
		lean.builds--
		lean.total, lean.looks, lean.limit = 0, nil, 0
		applyGC()
	})
}

// FollowHeap looks at the live heap and sets the collector for it.
func FollowHeap() { lookAtHeap(readHeap().live) }

// lookAtHeap sets the collector for a live heap of live bytes.
func lookAtHeap(live uint64) {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	seeHeap(live)
	applyGC()
}

// seeHeap notes whether a live heap of live bytes is big (the caller
// holds lean.mu).
func seeHeap(live uint64) {
	switch {
	case live >= bigHeap:
		lean.big = true
	case live < bigHeap/4*3:
		lean.big = false
	}
}

// FollowBuild is FollowHeap between the steps of a build that has
// indexed done notes of total.
//
// A build's live heap grows as it goes (the vectors, the manifest, Bleve's
// segments), and its peak comes at the end, the live heap then and the
// collector's headroom over it. Collecting at 25–40 % growth the whole
// way held that peak to issue 16's 1.5× the steady state, but with a
// live heap half the end's the same percentage is half the room: a
// 100,000-note build collected 336 times, a third of its CPU.
//
// So once a lone build has indexed a fifth of its notes, the live heap it
// will end with is foreseen: the live heap now, and the growth per note
// over the latter half of what is done (least squares over the looks
// there, as the first notes grow the heap faster: caches filling, the
// first segments) times the notes left. The collector then runs at
// LimitedBuildGCPercent under a memory limit of BuildPeakPercent of that
// end, plus what the runtime holds besides the heap's objects: the room
// is wide while the live heap is small and narrows to about the end's
// peak under the percentages. Two bounds hold the guess: never less room
// than the percentages give (the limit is at least that goal), and never
// more than CeilingGCPercent of the live heap now (a guess too high early
// would otherwise raise the peak mid-build).
//
// `cairn search` on a fresh clone, its cache removed, two rounds on a
// quiet machine (docs/benchmarks.md, "A build under a memory limit"): at
// 100,000 notes 66.7 and 61.1 s against 72.0 and 71.6 s, 253–254
// collections against 399–401, at a peak of 546–568 MiB against
// 536–558; at 10,000 notes 5.1–5.8 s against 5.7–6.3 s, at a peak of
// 145 MiB against 141–143.
func FollowBuild(done, total int) { lookAtBuild(readHeap(), done, total) }

// lookAtBuild is FollowBuild for a heap h.
func lookAtBuild(h heapLook, done, total int) {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	seeHeap(h.live)
	switch {
	case lean.builds != 1 || personGC || personLimit:
	case lean.total != total || len(lean.looks) > 0 && done < lean.looks[len(lean.looks)-1].done:
		// another build's steps, or this one's first
		lean.total, lean.looks, lean.limit = total, []look{{done, h.live}}, 0
	default:
		lean.looks = append(lean.looks, look{done, h.live})
		lean.limit = 0
		if done*5 >= total {
			lean.limit = buildLimit(lean.looks, h, done, total)
		}
	}
	applyGC()
}

// look is the live heap at a step of a build.
type look struct {
	done int
	live uint64
}

// buildLimit is the memory limit for a build that has indexed done notes
// of total, its looks so far in looks (FollowBuild); 0 for none.
func buildLimit(looks []look, h heapLook, done, total int) int64 {
	if h.live == 0 { // no collection yet: nothing to foresee from
		return 0
	}
	var n, sx, sy, sxx, sxy float64
	for _, l := range looks {
		if l.done*2 < done {
			continue
		}
		x, y := float64(l.done), float64(l.live)
		n, sx, sy, sxx, sxy = n+1, sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	end := float64(h.live)
	if d := n*sxx - sx*sx; n >= 2 && d > 0 {
		if per := (n*sxy - sx*sy) / d; per > 0 {
			end += per * float64(total-done)
		}
	}
	pct := BuildGCPercent
	if h.live >= bigHeap {
		pct = BigBuildGCPercent
	}
	live := float64(h.live)
	goal := min(max(end*BuildPeakPercent/100, live*float64(100+pct)/100), live*(100+CeilingGCPercent)/100)
	return int64(goal) + int64(h.other)
}

// heapLook is what FollowHeap and FollowBuild read of the runtime.
type heapLook struct {
	live  uint64 // the heap marked live by the last collection
	other uint64 // memory a memory limit counts besides the heap's objects and free pages
}

// readHeap reads the runtime's figures.
func readHeap() heapLook {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	h := heapLook{live: v[0]}
	if held := v[2] + v[3] + v[4]; v[1] > held {
		h.other = v[1] - held
	}
	return h
}
