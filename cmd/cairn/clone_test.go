package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bad clones are refused with the argument named, and leave nothing.
func TestCloneRefusesBadInputAndLeavesNothing(t *testing.T) {
	base := t.TempDir()
	remote, empty, plain := filepath.Join(base, "remote.git"), filepath.Join(base, "empty.git"), filepath.Join(base, "plain")
	a := filepath.Join(base, "a")
	run(t, true, "init", "--from", "../../sample-vault", a)
	git(t, base, "clone", "-q", "--bare", a, remote)
	git(t, base, "init", "-q", "--bare", "-b", "main", empty)
	git(t, base, "init", "-q", "-b", "main", plain)
	os.WriteFile(filepath.Join(plain, "Note.md"), []byte("# Note\n"), 0o644)
	git(t, plain, "add", "-A")
	git(t, plain, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "a plain repository")

	b := filepath.Join(base, "b")
	full := filepath.Join(base, "full")
	os.MkdirAll(full, 0o755)
	os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"clone", "--owner", "Bob Smith", remote, b}, "--owner"},
		{[]string{"clone", " ", b}, "URL"},
		{[]string{"clone", remote, full}, "DIR"},
		{[]string{"clone", filepath.Join(base, "nowhere.git"), b}, "nowhere.git"},
		{[]string{"clone", empty, b}, "empty repository"},
		{[]string{"clone", plain, b}, "not a cairn vault"},
		{[]string{"clone", remote}, "accepts 2 arg"},
	} {
		_, errOut := run(t, false, c.args...)
		if !strings.Contains(errOut, c.want) {
			t.Fatalf("cairn %s: the error does not name %q:\n%s", strings.Join(c.args, " "), c.want, errOut)
		}
		if _, err := os.Stat(b); err == nil {
			t.Fatalf("cairn %s left %s", strings.Join(c.args, " "), b)
		}
	}
	if items, _ := os.ReadDir(full); len(items) != 1 {
		t.Fatalf("a refused clone changed a folder that was not empty: %v", items)
	}
	// An empty folder is fine to clone into, and stays empty when refused.
	os.MkdirAll(b, 0o755)
	run(t, false, "clone", plain, b)
	if items, err := os.ReadDir(b); err != nil || len(items) != 0 {
		t.Fatalf("the empty folder after a refused clone: %v %v", items, err)
	}
}

// Joining a team: alice's vault pushed to a bare remote; bob clones it,
// serves his clone and writes through MCP; both sync both ways.
func TestCloneServeAndSyncBothWaysTranscript(t *testing.T) {
	base := t.TempDir()
	remote, a, b := filepath.Join(base, "remote.git"), filepath.Join(base, "a"), filepath.Join(base, "b")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	run(t, true, "init", "--from", "../../sample-vault", "--owner", "alice", a)
	git(t, a, "remote", "add", "origin", remote)
	run(t, true, "sync", "--vault", a)

	out, _ := run(t, true, "clone", "--owner", "bob", remote, b)
	for _, want := range []string{"Cloned " + remote + " into " + b, "62 notes", "the owner here is bob", "Nothing was committed", "cairn serve --vault " + b} {
		if !strings.Contains(out, want) {
			t.Fatalf("clone said (no %q):\n%s", want, out)
		}
	}
	if git(t, b, "rev-parse", "HEAD") != git(t, a, "rev-parse", "HEAD") || git(t, b, "status", "--porcelain") != "" || git(t, b, "remote") != "origin" {
		t.Fatal("the clone is not alice's HEAD, clean, with its remote origin")
	}
	git(t, b, "check-ignore", "-q", ".cairn/local.yaml")
	if !strings.Contains(readFileT(t, filepath.Join(b, ".cairn/local.yaml")), "owner: bob") || !strings.Contains(git(t, b, "show", "HEAD:.cairn/access.yaml"), "owner: alice") {
		t.Fatal("bob's owner is not kept locally, or the committed owner changed")
	}
	if out, _ := run(t, true, "doctor", "--vault", b); !strings.Contains(out, "the owner here is bob") {
		t.Fatalf("doctor on bob's clone:\n%s", out)
	}

	// Bob writes through his server, as its owner; the sync carries it to alice.
	srv := startStdio(t, b)
	defer srv.stop()
	srv.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Written on bob's clone\n\nthrough bob's server"}}}`, `"versionToken`)
	if out, _ := run(t, true, "sync", "--vault", b); !strings.Contains(out, "out:  pushed") {
		t.Fatalf("bob's sync:\n%s", out)
	}
	if out, _ := run(t, true, "sync", "--vault", a); !strings.Contains(out, "Written on bob's clone.md") {
		t.Fatalf("alice's sync:\n%s", out)
	}
	if got := git(t, a, "log", "-1", "--format=%(trailers:key=Cairn-Principal,valueonly,separator=)", "--", "*Written on bob's clone.md"); got != "bob" {
		t.Fatalf("the note reached alice as %q's", got)
	}

	// Alice copies a note by hand and writes one; her sync gives the copy
	// its own id; bob's server takes both in and finds them.
	cdn := filepath.Join(a, "acme/infra/decisions/Decision CDN provider.md")
	copied := strings.Replace(readFileT(t, cdn), "# Decision CDN provider", "# CDN provider, second look", 1)
	handWrite(t, filepath.Join(a, "acme/infra/decisions/Decision CDN provider 1.md"), copied)
	handWrite(t, filepath.Join(a, "acme/infra/Written on alice's vault.md"), "# Written on alice's vault\n\nby hand, about zanzibar\n")
	out, _ = run(t, true, "sync", "--vault", a)
	if !strings.Contains(out, "id:   acme/infra/decisions/Decision CDN provider 1.md repeated the id 01M39VMBG8ED2PHA0GFKB0TKNC of acme/infra/decisions/Decision CDN provider.md") {
		t.Fatalf("alice's sync after the copy:\n%s", out)
	}
	out, errOut := run(t, true, "sync", "--vault", b)
	if !strings.Contains(errOut, "syncing in the server that hosts the vault") || !strings.Contains(out, "Written on alice's vault.md") || !strings.Contains(out, "Decision CDN provider 1.md") {
		t.Fatalf("bob's sync through his server:\n%s\n%s", out, errOut)
	}
	if out, _ := run(t, true, "search", "--vault", b, "zanzibar"); !strings.Contains(out, "Written on alice's vault") {
		t.Fatalf("search on bob's clone:\n%s", out)
	}
	srv.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"ref":"01M39VMBG8ED2PHA0GFKB0TKNC"}}}`, `Decision CDN provider.md`)
	for _, dir := range []string{a, b} {
		git(t, dir, "fsck", "--strict")
		if st := git(t, dir, "status", "--porcelain"); st != "" {
			t.Fatalf("%s not clean:\n%s", dir, st)
		}
	}
	if git(t, a, "rev-parse", "HEAD") != git(t, b, "rev-parse", "HEAD") {
		t.Fatal("the clones differ")
	}
}

// handWrite writes a file as a person did a while ago: quiet, so a sync
// commits it as their edit.
func handWrite(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	os.Chtimes(p, past, past)
}
