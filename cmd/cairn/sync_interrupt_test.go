//go:build linux

package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// waitFor polls cond every 50 ms until it holds or limit passes (a bound
// against a hang, not a timing the test measures).
func waitFor(limit time.Duration, cond func() bool) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
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
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if !waitFor(30*time.Second, func() bool { return len(processesWith(url)) > 0 }) { // the remote helper git runs
			cmd.Process.Kill()
			t.Fatalf("no git process fetching %s appeared", url)
		}
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
		if !waitFor(10*time.Second, func() bool { return len(processesWith(url)) == 0 }) {
			t.Fatalf("%v: git processes left running after cairn sync ended: %v", sig, processesWith(url))
		}
	}
}
