package vault

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

// Builds collect at 50 % growth while any runs, and the setting comes
// back after the last; a setting of the person's own is left alone.
func TestLeanGCDuringBuilds(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	a := leanGC()
	b := leanGC()
	if got := gcPercent(); got != buildGCPercent {
		t.Fatalf("during two builds: GOGC %d, want %d", got, buildGCPercent)
	}
	a()
	a() // a second call changes nothing
	if got := gcPercent(); got != buildGCPercent {
		t.Fatalf("one build still running: GOGC %d, want %d", got, buildGCPercent)
	}
	b()
	if got := gcPercent(); got != 100 {
		t.Fatalf("after the builds: GOGC %d, want 100", got)
	}
	debug.SetGCPercent(200)
	c := leanGC()
	if got := gcPercent(); got != 200 {
		t.Fatalf("a person's GOGC=200 during a build: %d", got)
	}
	c()
	if got := gcPercent(); got != 200 {
		t.Fatalf("a person's GOGC=200 after a build: %d", got)
	}
}

// A build collects at 25 % once the live heap passes bigBuildHeap, until
// the last build ends; without a build, or with a person's GOGC, a step
// changes nothing.
func TestLeanGCInABigVault(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	defer func(b uint64) { bigBuildHeap = b }(bigBuildHeap)
	bigBuildHeap = 1 << 62 // no heap is that big
	leanStep()
	if got := gcPercent(); got != 100 {
		t.Fatalf("a step with no build: GOGC %d, want 100", got)
	}
	done := leanGC()
	leanStep()
	if got := gcPercent(); got != buildGCPercent {
		t.Fatalf("a small heap: GOGC %d, want %d", got, buildGCPercent)
	}
	bigBuildHeap = 1 // every heap is that big
	leanStep()
	if got := gcPercent(); got != bigBuildGCPercent {
		t.Fatalf("a big heap: GOGC %d, want %d", got, bigBuildGCPercent)
	}
	again := leanGC() // a second build meanwhile keeps the setting
	leanStep()
	if got := gcPercent(); got != bigBuildGCPercent {
		t.Fatalf("a second build in a big heap: GOGC %d, want %d", got, bigBuildGCPercent)
	}
	again()
	done()
	if got := gcPercent(); got != 100 {
		t.Fatalf("after the builds: GOGC %d, want 100", got)
	}
	leanStep()
	if got := gcPercent(); got != 100 {
		t.Fatalf("a step after the builds: GOGC %d, want 100", got)
	}
	debug.SetGCPercent(200)
	mine := leanGC()
	leanStep()
	if got := gcPercent(); got != 200 {
		t.Fatalf("a person's GOGC=200 in a big heap: %d", got)
	}
	mine()
}
