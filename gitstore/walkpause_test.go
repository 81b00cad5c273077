//go:build linux

// The stopped state is read in /proc.

package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"sync/atomic"
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
	release := holdGit(t, "--name-only") // the walk's git, until the test lets it go

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

	release()
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
