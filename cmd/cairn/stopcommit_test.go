package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A note edited while no server ran, then a server that answers one call
// and is stopped at once, well within the edit's quiet period: the server
// commits the edit it has seen on its way out, as the person's.
func TestAServerStoppedAtOnceCommitsTheEditItSaw(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	note := filepath.Join(v, "acme", "launch", "Pricing.md")
	data, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(note, append(data, []byte("\nEdited while no server ran.\n")...), 0o644)
	// A second before the server starts: inside the 3 s quiet period.
	past := time.Now().Add(-time.Second)
	os.Chtimes(note, past, past)
	before := git(t, v, "rev-parse", "HEAD")

	s := startStdio(t, v)
	s.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, `"principal"`)
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()

	if got := git(t, v, "rev-parse", "HEAD"); got == before {
		t.Fatal("the edit was not committed")
	}
	if body := git(t, v, "show", "HEAD:acme/launch/Pricing.md"); !strings.Contains(body, "Edited while no server ran.") {
		t.Fatalf("HEAD's Pricing.md:\n%s", body)
	}
	if st := git(t, v, "status", "--porcelain", "--", "acme"); st != "" {
		t.Fatalf("left uncommitted:\n%s", st)
	}
}
