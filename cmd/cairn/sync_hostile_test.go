package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The issue's own attack, through the built binary: a commit made with git
// plumbing whose tree holds "..", pushed to the shared remote. cairn sync
// exits non-zero naming the commit and the path, writes nothing beside the
// vault, and syncs again once the remote is clean. Names with control
// characters reach the terminal escaped, from sync and doctor alike.
func TestSyncRefusesAHostileCommitTranscript(t *testing.T) {
	base := t.TempDir()
	remote, a := filepath.Join(base, "remote.git"), filepath.Join(base, "a")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	run(t, true, "init", "--from", "../../sample-vault", a)
	git(t, a, "remote", "add", "origin", remote)
	run(t, true, "sync", "--vault", a)
	clean := git(t, remote, "rev-parse", "main")

	// A file and a note named with an escape sequence and a newline, made
	// by hand: never shared, and printed escaped.
	evil := "evil\x1b[2J\nrefused: x"
	os.WriteFile(filepath.Join(a, evil+".png"), []byte("png"), 0o644)
	os.WriteFile(filepath.Join(a, evil+".md"), []byte("# Evil\n"), 0o644)
	past := time.Now().Add(-time.Minute)
	os.Chtimes(filepath.Join(a, evil+".png"), past, past)
	os.Chtimes(filepath.Join(a, evil+".md"), past, past)
	out, errOut := run(t, true, "sync", "--vault", a)
	if strings.ContainsAny(out+errOut, "\x1b") || strings.Contains(out, "\nrefused: x") {
		t.Fatalf("sync printed a raw control character:\n%q\n%q", out, errOut)
	}
	if !strings.Contains(out, `kept here, not shared: evil\x1b[2J\nrefused: x.png: a name cairn never shares`) {
		t.Fatalf("sync does not say the file stays here:\n%s", out)
	}
	if files := git(t, remote, "ls-tree", "-r", "--name-only", "main"); strings.Contains(files, "evil") {
		t.Fatalf("the file went out:\n%s", files)
	}
	out, _ = run(t, true, "doctor", "--vault", a)
	if strings.ContainsAny(out, "\x1b") || !strings.Contains(out, `"evil\x1b[2J\nrefused: x.md" is a name cairn never shares`) {
		t.Fatalf("doctor:\n%q", out)
	}
	os.Remove(filepath.Join(a, evil+".png"))
	os.Remove(filepath.Join(a, evil+".md"))

	script := `set -e
H=$(git rev-parse main)
b=$(printf '# Pwned\n' | git hash-object -w --stdin)
t=$(printf '100644 blob %s\tPWNED.md\n' "$b" | git mktree)
root=$( (git ls-tree "$H"; printf '040000 tree %s\t..\n' "$t") | git mktree )
git update-ref refs/heads/main "$(git commit-tree "$root" -p "$H" -m x)"
git rev-parse main`
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = remote
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=m", "GIT_AUTHOR_EMAIL=m@x", "GIT_COMMITTER_NAME=m", "GIT_COMMITTER_EMAIL=m@x")
	hostile, err := cmd.Output()
	if err != nil {
		t.Fatalf("the attack's script: %v", err)
	}
	head := git(t, a, "rev-parse", "HEAD")
	out, errOut = run(t, false, "sync", "--vault", a)
	if !strings.Contains(errOut, strings.TrimSpace(string(hostile))) || !strings.Contains(errOut, `.. has a ".." name`) || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("the refusal does not name the commit and the path:\n%s\n%s", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(base, "PWNED.md")); err == nil {
		t.Fatal("PWNED.md was written beside the vault")
	}
	if got := git(t, a, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
	git(t, remote, "update-ref", "refs/heads/main", clean)
	if out, _ := run(t, true, "sync", "--vault", a); !strings.Contains(out, "in:   nothing new") {
		t.Fatalf("the sync after the remote was cleaned:\n%s", out)
	}
}
