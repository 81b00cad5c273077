package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// While a read's ask of git runs, the process runs on one core fewer
// (two asks, two fewer, never under one), and on what it had once the
// asks are done: the runtime's default, which follows the machine.
func TestAnAskLeavesGitACore(t *testing.T) {
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(3)
	t.Cleanup(runtime.SetDefaultGOMAXPROCS)

	one := leaveACore()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("one ask: GOMAXPROCS %d, want 2", got)
	}
	two := leaveACore()
	three := leaveACore()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("three asks on 3: GOMAXPROCS %d, want 1", got)
	}
	three()
	three() // once only
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("two asks left: GOMAXPROCS %d, want 1", got)
	}
	two()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("one ask left: GOMAXPROCS %d, want 2", got)
	}
	one()
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Fatalf("no ask left: GOMAXPROCS %d, want the default %d", got, def)
	}
}

// A read during the version map's build takes the core while its git
// runs, and gives it back when git is done.
func TestAReadsGitRunsWithACoreLeftToIt(t *testing.T) {
	dir := onDemandHistory(t)
	runtime.GOMAXPROCS(2)
	t.Cleanup(runtime.SetDefaultGOMAXPROCS)

	// git behind a wrapper that holds a read's ask (`log -1`) until the
	// test lets it go.
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(tmp, "git")
	script := "#!/bin/sh\ncase \" $* \" in *\" -1 \"*) read x < \"" + fifo + "\";; esac\nexec \"" + bin + "\" \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := openHeld(t, dir) // the map's build held: reads ask git
	was := gitCommand
	gitCommand = wrapper
	t.Cleanup(func() { gitCommand = was })
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
	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if got, want := runtime.GOMAXPROCS(0), defaultProcs(); got != want {
		t.Fatalf("after the ask: GOMAXPROCS %d, want the default %d", got, want)
	}
}

// defaultProcs is the runtime's default GOMAXPROCS, which it then keeps.
func defaultProcs() int {
	runtime.SetDefaultGOMAXPROCS()
	return runtime.GOMAXPROCS(0)
}
