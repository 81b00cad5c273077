package indexing

import (
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
	orig := debug.SetGCPercent(100)
	origBig, origPerson := bigHeap, personGC
	lean.mu.Lock()
	lean.big, lean.cur = false, 100
	lean.mu.Unlock()
	personGC = false
	t.Cleanup(func() {
		bigHeap, personGC = origBig, origPerson
		lean.mu.Lock()
		lean.big, lean.cur = false, 0
		lean.mu.Unlock()
		debug.SetGCPercent(orig)
	})
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
