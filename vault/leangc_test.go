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
