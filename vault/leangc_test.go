package vault

import (
	"os"
	"runtime/debug"
	"testing"
	"time"
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
// back after the last; a person's GOGC is left alone.
func TestLeanGCDuringBuilds(t *testing.T) {
	withGC(t)
	bigHeap = 1 << 62 // no heap is that big
	a := leanGC()
	b := leanGC()
	wantPercent(t, "during two builds", buildGCPercent)
	a()
	a() // a second call changes nothing
	wantPercent(t, "one build still running", buildGCPercent)
	b()
	wantPercent(t, "after the builds", 100)
	personGC = true
	debug.SetGCPercent(200)
	c := leanGC()
	wantPercent(t, "a person's GOGC=200 during a build", 200)
	c()
	wantPercent(t, "a person's GOGC=200 after a build", 200)
}

// A build collects at 25 % once the live heap passes bigHeap, until the
// last build ends; a big heap outside builds collects at 50 % until it
// falls under three quarters of bigHeap; a person's GOGC is left alone.
func TestLeanGCInABigVault(t *testing.T) {
	withGC(t)
	bigHeap = 1000
	lookAtHeap(999)
	wantPercent(t, "a small heap, no build", 100)
	done := leanGC()
	lookAtHeap(999)
	wantPercent(t, "a small heap, a build", buildGCPercent)
	lookAtHeap(1000)
	wantPercent(t, "a big heap, a build", bigBuildGCPercent)
	again := leanGC() // a second build meanwhile keeps the setting
	lookAtHeap(1200)
	wantPercent(t, "a second build in a big heap", bigBuildGCPercent)
	again()
	done()
	wantPercent(t, "a big heap after the builds", bigGCPercent)
	lookAtHeap(750)
	wantPercent(t, "a heap fallen to three quarters of the line", bigGCPercent)
	lookAtHeap(749)
	wantPercent(t, "a heap fallen under three quarters of the line", 100)
	lookAtHeap(999)
	wantPercent(t, "a heap back near the line", 100)
	lookAtHeap(5000)
	wantPercent(t, "a heap past the line again", bigGCPercent)
	lookAtHeap(0)
	personGC = true
	debug.SetGCPercent(200)
	mine := leanGC()
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
	followHeap()
	wantPercent(t, "a live heap past the line", bigGCPercent)
	bigHeap = 1 << 62
	followHeap()
	wantPercent(t, "a live heap far under the line", 100)
}

// A first build's collector setting lasts until the open has saved what it
// built and returned the freed heap: restored before the save, it let the
// heap grow into the wider headroom there, the build's highest point at
// 100,000 notes.
func TestAFirstBuildCollectsLeanUntilItsOpenEnds(t *testing.T) {
	withGC(t)
	bigHeap = 1 << 62 // a small vault: the build's 40 %
	v, dir := sampleVault(t)
	v.Close()
	if err := os.RemoveAll(v.indexDir()); err != nil {
		t.Fatal(err)
	}
	atEnd := make(chan int, 1)
	openedHook = func() { atEnd <- gcPercent() }
	t.Cleanup(func() { openedHook = nil })
	v2, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-atEnd:
		if got != buildGCPercent {
			t.Errorf("GOGC %d at the end of a first build's open, want the build's %d", got, buildGCPercent)
		}
	case <-time.After(time.Minute):
		t.Fatal("the index's open never ended")
	}
	// The open restores the setting after the hook; Close (deferred, before
	// withGC's cleanup) waits for it.
}

// A Rebuild's collector setting lasts to its end: through the save of the
// new index, the swap and the vectors after it, where a 100,000-note
// rebuild reached its highest point when the setting came back with the
// build's last step.
func TestARebuildCollectsLeanUntilItEnds(t *testing.T) {
	withGC(t)
	bigHeap = 1 << 62 // a small vault: the build's 40 %
	v, _ := sampleVault(t)
	atEnd := -1
	rebuiltHook = func() { atEnd = gcPercent() }
	t.Cleanup(func() { rebuiltHook = nil })
	if err := v.Rebuild(nil); err != nil {
		t.Fatal(err)
	}
	if atEnd != buildGCPercent {
		t.Errorf("GOGC %d at the end of a Rebuild, want the build's %d", atEnd, buildGCPercent)
	}
	wantPercent(t, "after the Rebuild", 100)
}
