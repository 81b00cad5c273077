package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// procState is the state letter of process pid in /proc (T: stopped).
func procState(t *testing.T, pid int) byte {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	return b[i+2]
}

// waitStopped waits until pid is stopped (want) or runs (!want).
func waitStopped(t *testing.T, pid int, want bool, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // bounds a failure only
	for (procState(t, pid) == 'T') != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: state %c, want stopped %v", what, procState(t, pid), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// While a read's ask of git runs, the map's walk is stopped, and goes on
// once no ask runs; a walk started while one runs starts stopped; when
// the build stops, the walk goes on and is never stopped again. The walk
// still gives the whole walk's map.
func TestTheWalkStopsWhileAnAskRuns(t *testing.T) {
	dir, paths, head, whole := wholeWalk(t, 50)
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The walk's git waits behind a wrapper until the test lets it go.
	wrapper := filepath.Join(tmp, "git")
	script := "#!/bin/sh\ncase \" $* \" in *\" --name-only \"*) read x < \"" + fifo + "\";; esac\nexec \"" + bin + "\" \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	was := gitCommand
	gitCommand = wrapper
	t.Cleanup(func() { gitCommand = was })

	var progress walkProgress
	first := progress.pauseFor() // an ask runs as the walk starts
	type result struct {
		vm  *versionMap
		err error
	}
	done := make(chan result, 1)
	go func() {
		vm, err := gitVersions(dir, head, &atomic.Bool{}, &progress)
		done <- result{vm, err}
	}()
	pid, deadline := 0, time.Now().Add(time.Minute)
	for pid == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the walk's git never started")
		}
		time.Sleep(time.Millisecond)
		progress.mu.Lock()
		pid = progress.pause.pgid
		progress.mu.Unlock()
	}
	waitStopped(t, pid, true, "a walk started during an ask")
	first()
	waitStopped(t, pid, false, "the walk once the ask is done")

	second := progress.pauseFor()
	waitStopped(t, pid, true, "the walk during a second ask")
	third := progress.pauseFor()
	second()
	progress.mu.Lock()
	stopped := progress.pause.stopped
	progress.mu.Unlock()
	if !stopped {
		t.Fatal("the walk went on while an ask still ran")
	}
	progress.release() // the build stops
	waitStopped(t, pid, false, "the walk once the build stops")
	fourth := progress.pauseFor()
	progress.mu.Lock()
	stopped = progress.pause.stopped
	progress.mu.Unlock()
	if stopped {
		t.Fatal("the walk was stopped again after the build stopped")
	}
	third()
	fourth()

	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // bounds a failure only
		t.Fatal("the walk never ended")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, p := range paths {
		if r.vm.paths[p] != whole.paths[p] {
			t.Fatalf("%s: the walk says %s, the whole one %s", p, r.vm.paths[p], whole.paths[p])
		}
	}
}
