package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	if !strings.Contains(out, "out:  pushed (1 files changed there)") || !strings.Contains(out, "Synced note.md") || !strings.Contains(errOut, "syncing in the server that hosts the vault") {
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
	// The same line changed on both sides, by hand: the conflict and where
	// the other version went are printed.
	note := "acme/infra/decisions/Decision CDN provider.md"
	for _, side := range []struct{ dir, says string }{{a, "Alice says yes."}, {b, "Bob says no."}} {
		p := filepath.Join(side.dir, note)
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(old), "\n")
		lines[len(lines)-2] = side.says
		os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
		past := time.Now().Add(-time.Minute)
		os.Chtimes(p, past, past)
	}
	run(t, true, "sync", "--vault", a)
	srv.stop()
	out, _ = run(t, true, "sync", "--vault", b)
	if !strings.Contains(out, "conflict: "+note) || !strings.Contains(out, "the other version is kept in acme/infra/decisions/Decision CDN provider (conflict ") {
		t.Fatalf("the conflict is not printed:\n%s", out)
	}
	git(t, a, "fsck", "--strict")
	if st := git(t, a, "status", "--porcelain"); st != "" {
		t.Fatalf("a not clean:\n%s", st)
	}
}

// cairn sync takes the remote and branch that background sync uses, from
// .cairn/config.yaml's sync section, when no flag names them; a bad one is
// refused, naming the key, unless both flags are given.
func TestSyncTakesTheRemoteFromTheConfig(t *testing.T) {
	base := t.TempDir()
	remote, a := filepath.Join(base, "team.git"), filepath.Join(base, "a")
	git(t, base, "init", "-q", "--bare", "-b", "shared", remote)
	run(t, true, "init", "--from", "../../sample-vault", a)
	git(t, a, "remote", "add", "team", remote) // no origin
	cfg := filepath.Join(a, ".cairn", "config.yaml")
	if err := os.WriteFile(cfg, []byte("sync:\n  remote: team\n  branch: shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, true, "sync", "--vault", a)
	if !strings.Contains(out, "out:  pushed") {
		t.Fatalf("sync with the config's remote:\n%s", out)
	}
	if got, want := git(t, remote, "rev-parse", "refs/heads/shared"), git(t, a, "rev-parse", "HEAD"); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Fatalf("the remote's shared branch is %s, HEAD %s", got, want)
	}
	if err := os.WriteFile(cfg, []byte("sync:\n  remote: \"-x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := git(t, a, "rev-parse", "HEAD")
	_, errOut := run(t, false, "sync", "--vault", a)
	if !strings.Contains(errOut, "sync.remote") || !strings.Contains(errOut, "nothing changed") {
		t.Fatalf("a bad sync.remote: %s", errOut)
	}
	if now := git(t, a, "rev-parse", "HEAD"); now != head {
		t.Fatalf("a refused sync committed something: %s → %s", head, now)
	}
	out, _ = run(t, true, "sync", "--vault", a, "--remote", "team", "--branch", "shared")
	if !strings.Contains(out, "out:  pushed") || !strings.Contains(git(t, remote, "show", "shared:.cairn/config.yaml"), "-x") {
		// The settings edited by hand are shared, as any file is.
		t.Fatalf("sync with both flags despite the bad config:\n%s", out)
	}
}

// A sync killed at any moment (SIGKILL) leaves a vault that passes git
// fsck, has lost nothing, and syncs again to the same end.
func TestASyncKilledAnywhereSyncsAgain(t *testing.T) {
	base := t.TempDir()
	remote, a, b := filepath.Join(base, "remote.git"), filepath.Join(base, "a"), filepath.Join(base, "b")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	run(t, true, "init", "--from", "../../sample-vault", a)
	git(t, a, "remote", "add", "origin", remote)
	run(t, true, "sync", "--vault", a)
	git(t, base, "clone", "-q", remote, b)
	// 300 notes on each side, so the sync has work to be cut short in.
	for i := range 300 {
		os.MkdirAll(filepath.Join(a, "bulk-a"), 0o755)
		os.MkdirAll(filepath.Join(b, "bulk-b"), 0o755)
		os.WriteFile(filepath.Join(a, "bulk-a", fmt.Sprintf("A %d.md", i)), []byte(fmt.Sprintf("# A %d\n", i)), 0o644)
		os.WriteFile(filepath.Join(b, "bulk-b", fmt.Sprintf("B %d.md", i)), []byte(fmt.Sprintf("# B %d\n", i)), 0o644)
	}
	for _, d := range []string{a, b} {
		git(t, d, "add", "-A")
		git(t, d, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "bulk")
	}
	run(t, true, "sync", "--vault", a)
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	for round := range 8 {
		cmd := exec.Command(bin, "sync", "--vault", b)
		cmd.Env = append(os.Environ(), "CAIRN_VAULT=")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		git(t, b, "fsck", "--strict")
		if round%2 == 1 {
			// Now and then the vault is opened by something else between
			// two killed syncs: it recovers what the last one left.
			run(t, true, "doctor", "--vault", b, "--fix")
		}
	}
	run(t, true, "sync", "--vault", b)
	run(t, true, "sync", "--vault", a)
	if ha, hb := git(t, a, "rev-parse", "HEAD"), git(t, b, "rev-parse", "HEAD"); ha != hb {
		t.Fatalf("the clones differ after the killed syncs: %s %s", ha, hb)
	}
	for _, d := range []string{a, b} {
		for i := range 300 {
			for _, f := range []string{filepath.Join("bulk-a", fmt.Sprintf("A %d.md", i)), filepath.Join("bulk-b", fmt.Sprintf("B %d.md", i))} {
				if _, err := os.Stat(filepath.Join(d, f)); err != nil {
					t.Fatalf("%s lost %s", d, f)
				}
			}
		}
		if st := git(t, d, "status", "--porcelain"); st != "" {
			t.Fatalf("%s not clean:\n%s", d, st)
		}
		git(t, d, "fsck", "--strict")
	}
}
