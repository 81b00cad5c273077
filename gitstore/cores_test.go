package gitstore

import (
	"runtime"
	"testing"
	"time"
)

// While a read's ask of git runs, the process runs on one core fewer
// (two asks, two fewer, never under one), and on what it had once the
// asks are done: the runtime's default, which follows the machine.
func TestAnAskLeavesGitACore(t *testing.T) {
	settleCores(t)
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(3)
	t.Cleanup(runtime.SetDefaultGOMAXPROCS)

	procs := func(what string, want int) {
		t.Helper()
		settleCores(t)
		if got := runtime.GOMAXPROCS(0); got != want {
			t.Fatalf("%s: GOMAXPROCS %d, want %d", what, got, want)
		}
	}
	one := leaveACore()
	procs("one ask on 3", 2)
	two := leaveACore()
	three := leaveACore()
	procs("three asks on 3", 1)
	three()
	three() // once only
	procs("two asks left", 1)
	two()
	procs("one ask left", 2)
	one()
	procs("no ask left (the default)", def)
}

// An ask does not wait for the count to change: runtime.GOMAXPROCS waits
// for the collector's cycle in progress, 0.2-0.3 s beside a big build,
// before git starts and again after it ends. Here the change is held (as
// by a long cycle) while an ask begins and ends; the count follows once
// it goes.
func TestAnAskDoesNotWaitForTheCountToChange(t *testing.T) {
	settleCores(t)
	runtime.GOMAXPROCS(2)
	t.Cleanup(runtime.SetDefaultGOMAXPROCS)

	cores.applying.Lock() // held: no change can be applied
	done := make(chan struct{})
	go func() {
		restore := leaveACore()
		restore()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // bounds a failure only
		cores.applying.Unlock()
		t.Fatal("an ask waited for GOMAXPROCS to change")
	}
	cores.applying.Unlock()
	settleCores(t)
	if got, want := runtime.GOMAXPROCS(0), 2; got != want {
		t.Fatalf("after an ask begun and ended: GOMAXPROCS %d, want %d (it had before)", got, want)
	}
}

// settleCores waits until every change of the count handed over is
// applied.
func settleCores(t *testing.T) {
	t.Helper()
	settled := make(chan struct{})
	go func() {
		cores.changes.Wait()
		close(settled)
	}()
	select {
	case <-settled:
	case <-time.After(time.Minute): // bounds a failure only
		t.Fatal("changes of GOMAXPROCS never applied")
	}
}

// A read during the version map's build takes the core while its git
// runs, and gives it back when git is done.
func TestAReadsGitRunsWithACoreLeftToIt(t *testing.T) {
	dir := onDemandHistory(t)
	settleCores(t)
	runtime.GOMAXPROCS(2)
	t.Cleanup(runtime.SetDefaultGOMAXPROCS)

	s := openHeld(t, dir) // the map's build held: reads ask git
	// A read's ask (`log -1`) is held until the test lets it go.
	release := holdGit(t, "-1")
	read := make(chan error, 1)
	go func() {
		_, _, err := s.Version("edited.md")
		read <- err
	}()
	deadline := time.Now().Add(time.Minute) // bounds a failure only
	for runtime.GOMAXPROCS(0) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the ask's git runs on a process still on 2 cores")
		}
		time.Sleep(time.Millisecond)
	}
	release()
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	settleCores(t)
	if got, want := runtime.GOMAXPROCS(0), defaultProcs(); got != want {
		t.Fatalf("after the ask: GOMAXPROCS %d, want the default %d", got, want)
	}
}

// defaultProcs is the runtime's default GOMAXPROCS, which it then keeps.
func defaultProcs() int {
	runtime.SetDefaultGOMAXPROCS()
	return runtime.GOMAXPROCS(0)
}
