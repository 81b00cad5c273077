package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two members' vaults through a bare remote: one with a server running
// (cairn sync runs in it), one without.
func TestSyncTranscript(t *testing.T) {
	base := t.TempDir()
	remote, a, b := filepath.Join(base, "remote.git"), filepath.Join(base, "a"), filepath.Join(base, "b")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	run(t, true, "init", "--from", "../../sample-vault", a)
	git(t, a, "remote", "add", "origin", remote)
	out, _ := run(t, true, "sync", "--vault", a)
	if !strings.Contains(out, "in:   nothing new") || !strings.Contains(out, "out:  pushed") {
		t.Fatalf("first sync:\n%s", out)
	}
	git(t, base, "clone", "-q", remote, b)

	srv := startStdio(t, b)
	defer srv.stop()
	srv.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Synced note\n\nwritten on b through its server"}}}`, `"versionToken`)
	out, errOut := run(t, true, "sync", "--vault", b)
	if !strings.Contains(out, "out:  pushed") || !strings.Contains(errOut, "syncing in the server that hosts the vault") {
		t.Fatalf("sync through b's server:\n%s\n%s", out, errOut)
	}
	out, _ = run(t, true, "sync", "--vault", a)
	if !strings.Contains(out, "fast-forward") || !strings.Contains(out, "Synced note.md") {
		t.Fatalf("a's sync:\n%s", out)
	}
	synced := strings.TrimSpace(git(t, b, "ls-files", "*Synced note.md"))
	if _, err := os.Stat(filepath.Join(a, synced)); synced == "" || err != nil {
		t.Fatalf("the note %q did not reach a: %v", synced, err)
	}
	out, _ = run(t, true, "search", "--vault", a, "synced note")
	if !strings.Contains(out, "Synced note") {
		t.Fatalf("search on a:\n%s", out)
	}
	_, errOut = run(t, false, "sync", "--vault", a, "--remote", "nowhere")
	if !strings.Contains(errOut, "nowhere") || !strings.Contains(errOut, "nothing changed here") {
		t.Fatalf("sync with a missing remote: %s", errOut)
	}
	git(t, a, "fsck", "--strict")
	if st := git(t, a, "status", "--porcelain"); st != "" {
		t.Fatalf("a not clean:\n%s", st)
	}
}
