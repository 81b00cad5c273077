package indexing

import (
	"math"
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's setting (SetGCPercent is its only
// reader).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// withGC runs a test of the collector's setting from the default, with
// no build running and a small heap, and puts everything back after.
func withGC(t *testing.T) {
	orig, origLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	origBig, origPerson, origPersonLimit := bigHeap, personGC, personLimit
	lean.mu.Lock()
	lean.big, lean.cur, lean.curLimit = false, 100, math.MaxInt64
	lean.mu.Unlock()
	personGC, personLimit = false, false
	t.Cleanup(func() {
		bigHeap, personGC, personLimit = origBig, origPerson, origPersonLimit
		lean.mu.Lock()
		lean.big, lean.cur, lean.curLimit = false, 0, 0
		lean.total, lean.looks, lean.limit = 0, nil, 0
		lean.mu.Unlock()
		debug.SetGCPercent(orig)
		debug.SetMemoryLimit(origLimit)
	})
}

// memoryLimit reads the memory limit (a negative one reads it only).
func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

func wantLimit(t *testing.T, when string, want int64) {
	t.Helper()
	if got := memoryLimit(); got != want {
		t.Fatalf("%s: memory limit %d, want %d", when, got, want)
	}
}

func wantPercent(t *testing.T, when string, want int) {
	t.Helper()
	if got := gcPercent(); got != want {
		t.Fatalf("%s: GOGC %d, want %d", when, got, want)
	}
}

// Builds collect at 40 % growth while any runs, and the setting comes
// back to SmallGCPercent (75 %) after the last; a person's GOGC is left alone.
func TestLeanGCDuringBuilds(t *testing.T) {
	withGC(t)
	bigHeap = 1 << 62 // no heap is that big
	a := LeanGC()
	b := LeanGC()
	wantPercent(t, "during two builds", BuildGCPercent)
	a()
	a() // a second call changes nothing
	wantPercent(t, "one build still running", BuildGCPercent)
	b()
	wantPercent(t, "after the builds", SmallGCPercent)
	personGC = true
	debug.SetGCPercent(200)
	c := LeanGC()
	wantPercent(t, "a person's GOGC=200 during a build", 200)
	c()
	wantPercent(t, "a person's GOGC=200 after a build", 200)
}

// A build collects at 25 % once the live heap passes bigHeap, until the
// last build ends; a big heap outside builds collects at 50 % until it
// falls under three quarters of bigHeap, and then at SmallGCPercent; a
// person's GOGC is left alone.
func TestLeanGCInABigVault(t *testing.T) {
	withGC(t)
	bigHeap = 1000
	lookAtHeap(999)
	wantPercent(t, "a small heap, no build", SmallGCPercent)
	done := LeanGC()
	lookAtHeap(999)
	wantPercent(t, "a small heap, a build", BuildGCPercent)
	lookAtHeap(1000)
	wantPercent(t, "a big heap, a build", BigBuildGCPercent)
	again := LeanGC() // a second build meanwhile keeps the setting
	lookAtHeap(1200)
	wantPercent(t, "a second build in a big heap", BigBuildGCPercent)
	again()
	done()
	wantPercent(t, "a big heap after the builds", BigGCPercent)
	lookAtHeap(750)
	wantPercent(t, "a heap fallen to three quarters of the line", BigGCPercent)
	lookAtHeap(749)
	wantPercent(t, "a heap fallen under three quarters of the line", SmallGCPercent)
	lookAtHeap(999)
	wantPercent(t, "a heap back near the line", SmallGCPercent)
	lookAtHeap(5000)
	wantPercent(t, "a heap past the line again", BigGCPercent)
	lookAtHeap(0)
	personGC = true
	debug.SetGCPercent(200)
	mine := LeanGC()
	lookAtHeap(5000)
	wantPercent(t, "a person's GOGC=200 in a big heap, a build", 200)
	mine()
	lookAtHeap(5000)
	wantPercent(t, "a person's GOGC=200 in a big heap", 200)
}

// followHeap reads the process's own live heap: past bigHeap, a server
// collects at 50 %.
func TestFollowHeapReadsTheLiveHeap(t *testing.T) {
	withGC(t)
	bigHeap = 1 // every heap is that big
	FollowHeap()
	wantPercent(t, "a live heap past the line", BigGCPercent)
	bigHeap = 1 << 62
	FollowHeap()
	wantPercent(t, "a live heap far under the line", SmallGCPercent)
}

const mib = 1 << 20

// A lone build collects under the percentages until a fifth of its notes
// are indexed; then at LimitedBuildGCPercent under a memory limit of
// BuildPeakPercent of the live heap it is foreseen to end with, plus the
// runtime's other memory; the limit goes when the build ends.
func TestALoneBuildCollectsUnderAMemoryLimit(t *testing.T) {
	withGC(t)
	bigHeap = 1 << 62
	done := LeanGC()
	// 100 MiB, then 0.2 MiB more per 100 notes of 10,000.
	at := func(n int) heapLook { return heapLook{live: uint64(100*mib + n*mib/500), other: 30 * mib} }
	for n := 0; n < 2000; n += 250 {
		lookAtBuild(at(n), n, 10000)
		wantPercent(t, "before a fifth", BuildGCPercent)
		wantLimit(t, "before a fifth", math.MaxInt64)
	}
	lookAtBuild(at(2000), 2000, 10000)
	wantPercent(t, "at a fifth", LimitedBuildGCPercent)
	// Live 104 MiB, 8,000 notes left at 0.002 MiB each: an end of 120 MiB,
	// 150 MiB at 125 %, between 145.6 (140 % of 104) and 166.4 (160 %).
	nearLimit(t, "at a fifth", memoryLimit(), 120*mib*BuildPeakPercent/100+30*mib)
	done()
	wantPercent(t, "after the build", SmallGCPercent)
	wantLimit(t, "after the build", math.MaxInt64)
}

// The foresight reads the latter half of the looks only, and is bounded:
// never less room than the percentages give, never more than
// CeilingGCPercent over the live heap now.
func TestABuildsMemoryLimitIsBounded(t *testing.T) {
	withGC(t)
	bigHeap = 50 * mib
	steep := []look{{0, 10 * mib}, {1000, 90 * mib}, {2000, 100 * mib}, {3000, 101 * mib}, {4000, 102 * mib}}
	h := heapLook{live: 102 * mib, other: mib}
	// 1 MiB per 1,000 notes from 2,000 on (the ramp before is not read):
	// an end of 102+6 MiB, at 125 % 135 MiB, over the 127.5 of a big
	// build's 125 % of the live heap now.
	nearLimit(t, "a ramp then a slope", buildLimit(steep, h, 4000, 10000), 108*mib*BuildPeakPercent/100+mib)
	bigHeap = 1 << 62 // a small heap's 140 %
	flat := []look{{0, 100 * mib}, {2000, 100 * mib}, {4000, 90 * mib}}
	h.live = 90 * mib
	nearLimit(t, "a heap that shrank (the percentage's)", buildLimit(flat, h, 4000, 10000), 90*mib*(100+BuildGCPercent)/100+mib)
	fast := []look{{2000, 50 * mib}, {4000, 100 * mib}}
	h.live = 100 * mib
	nearLimit(t, "a fast growth (the ceiling's)", buildLimit(fast, h, 4000, 10000), 100*mib*(100+CeilingGCPercent)/100+mib)
	if got := buildLimit(fast, heapLook{other: mib}, 4000, 10000); got != 0 {
		t.Errorf("no collection yet (no live heap read): limit %d, want none", got)
	}
}

// Two builds at once, a person's GOGC or a person's GOMEMLIMIT: no limit
// is set (nor, with GOMEMLIMIT, the room it would bound).
func TestNoBuildLimitForTwoBuildsOrAPersonsSetting(t *testing.T) {
	withGC(t)
	bigHeap = 1 << 62
	at := func(n int) heapLook { return heapLook{live: uint64(100*mib + n*mib/500)} }
	steps := func() {
		for n := 0; n <= 5000; n += 250 {
			lookAtBuild(at(n), n, 10000)
		}
	}
	a, b := LeanGC(), LeanGC()
	steps()
	wantPercent(t, "two builds", BuildGCPercent)
	wantLimit(t, "two builds", math.MaxInt64)
	b()
	a()
	personLimit = true
	debug.SetMemoryLimit(1 << 40)
	c := LeanGC()
	steps()
	wantPercent(t, "a person's GOMEMLIMIT", BuildGCPercent)
	wantLimit(t, "a person's GOMEMLIMIT", 1<<40)
	c()
	wantLimit(t, "a person's GOMEMLIMIT after the build", 1<<40)
	personLimit, personGC = false, true
	debug.SetGCPercent(200)
	debug.SetMemoryLimit(math.MaxInt64)
	d := LeanGC()
	steps()
	wantPercent(t, "a person's GOGC", 200)
	wantLimit(t, "a person's GOGC", math.MaxInt64)
	d()
}

// nearLimit fails t unless a limit is want, to a kibibyte (the foresight
// computes in floating point).
func nearLimit(t *testing.T, when string, got int64, want float64) {
	t.Helper()
	if math.Abs(float64(got)-want) > 1024 {
		t.Fatalf("%s: memory limit %d, want %.0f", when, got, want)
	}
}
