//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// processesWith lists the pids whose command line mentions s.
func processesWith(s string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(cmdline), s) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// Ctrl-C (or SIGTERM) on a cairn sync that waits on a remote ends it and
// its git processes: none is left running after cairn has gone (they run
// in sessions of their own, out of the terminal's reach).
func TestAnInterruptedSyncLeavesNoGitBehind(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it, answer nothing
		}
	}()
	url := "http://" + ln.Addr().String() + "/team-" + filepath.Base(t.TempDir()) + ".git"
	a := filepath.Join(t.TempDir(), "a")
	run(t, true, "init", "--from", "../../sample-vault", a)
	git(t, a, "remote", "add", "origin", url)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "sync", "--vault", a)
		cmd.Env = append(os.Environ(), "CAIRN_VAULT=", "GIT_HTTP_LOW_SPEED_TIME=600")
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() }) // after a failure; harmless once it ended
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// The remote helper git runs.
		testwait.Until(t, "a git process fetching "+url, func() bool { return len(processesWith(url)) > 0 })
		cmd.Process.Signal(sig)
		select {
		case err := <-exited:
			if err == nil || !strings.Contains(errb.String(), "sync:") {
				t.Fatalf("%v: cairn sync ended with %v:\n%s", sig, err, errb.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: cairn sync did not end", sig)
		}
		testwait.Until(t, fmt.Sprintf("%v: no git process left running after cairn sync ended", sig),
			func() bool { return len(processesWith(url)) == 0 })
	}
}
