//go:build unix

package teamsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// preReceive installs hook as the bare remote's pre-receive hook. It runs
// after git has told the pusher where the branch is and before the branch
// is updated: a hook that moves the branch there is another member's push
// landing first, and git itself then refuses the push (the branch is no
// longer where the pusher was told it is).
func preReceive(t *testing.T, remote, hook string) {
	t.Helper()
	// The repository's own hooks, whatever the user's git config says.
	gitT(t, remote, "config", "core.hooksPath", filepath.Join(remote, "hooks"))
	p := filepath.Join(remote, "hooks", "pre-receive")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+hook), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
}

// outOfQuarantine lets a pre-receive hook write objects and refs of the
// repository itself (git keeps the pushed objects apart until the hook
// accepts them, and refuses ref updates meanwhile).
const outOfQuarantine = "unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES\n"

func countLines(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A push rejected because a third member pushed between this member's
// fetch and its push: the sync fetches again, integrates that too, and
// pushes; every member's note ends on every clone.
func TestARejectedPushIsIntegratedAndPushedAgain(t *testing.T) {
	a, b := team(t)
	remote := remoteOf(t, a)
	alice, bob, carol := "acme/infra/From Alice.md", "acme/infra/From Bob.md", "acme/infra/From Carol.md"
	commitFiles(t, a, map[string]string{alice: "# From Alice\n\naardvark\n"})
	sync(t, a)
	// Carol's commit is on the remote already, on a branch of its own: the
	// hook moves main to it while Bob's push is being received.
	c := filepath.Join(t.TempDir(), "c")
	gitT(t, filepath.Dir(c), "clone", "-q", remote, c)
	os.WriteFile(filepath.Join(c, carol), []byte("# From Carol\n\ncapybara\n"), 0o644)
	gitT(t, c, "add", "-A")
	gitT(t, c, "commit", "-qm", "Carol's note")
	gitT(t, c, "push", "-q", "origin", "HEAD:refs/heads/carol")
	carolsCommit := gitT(t, c, "rev-parse", "HEAD")

	commitFiles(t, b, map[string]string{bob: "# From Bob\n\nbandicoot\n"})
	dir := t.TempDir()
	marker, pushes := filepath.Join(dir, "carol-pushed"), filepath.Join(dir, "pushes")
	preReceive(t, remote, fmt.Sprintf("cat >/dev/null\necho push >> '%s'\nif [ ! -e '%s' ]; then\n: > '%s'\n%sgit update-ref refs/heads/main refs/heads/carol\nfi\nexit 0\n",
		pushes, marker, marker, outOfQuarantine))

	rep, err := Sync(context.Background(), b, Options{})
	if err != nil || !rep.Pushed {
		t.Fatalf("b's sync: %+v %v", rep, err)
	}
	if n := countLines(t, pushes); n != 2 {
		t.Fatalf("the remote received %d pushes, want 2: one refused, one after integrating Carol's", n)
	}
	// Carol's note was not on main when b first fetched: it came in by
	// the second fetch, after the refused push.
	if !slices.Contains(rep.Incoming, carol) || !slices.Contains(rep.Incoming, alice) {
		t.Fatalf("incoming: %v", rep.Incoming)
	}
	head := gitT(t, b.Root(), "rev-parse", "HEAD")
	if served := gitT(t, remote, "rev-parse", "main"); served != head {
		t.Fatalf("the remote has %s, b %s", served, head)
	}
	gitT(t, b.Root(), "merge-base", "--is-ancestor", carolsCommit, head)
	gitT(t, remote, "fsck", "--strict", "--no-progress")
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		for p, word := range map[string]string{alice: "aardvark", bob: "bandicoot", carol: "capybara"} {
			if got := read(t, v, p); !strings.Contains(got, word) {
				t.Fatalf("%s: %s:\n%s", v.Root(), p, got)
			}
		}
	}
}

// A remote that moves on at every push (others always first): the sync
// gives up after Options.Retries pushes, says so, and leaves the vault
// sound, with its own commit and what it integrated; once the remote
// calms down the next sync pushes.
func TestPushRejectedEveryTimeGivesUpAfterTheRetries(t *testing.T) {
	a, b := team(t)
	remote := remoteOf(t, a)
	bob := "acme/infra/From Bob.md"
	commitFiles(t, b, map[string]string{bob: "# From Bob\n\nbandicoot\n"})
	mine := gitT(t, b.Root(), "rev-parse", "HEAD")
	pushes := filepath.Join(t.TempDir(), "pushes")
	preReceive(t, remote, fmt.Sprintf("cat >/dev/null\necho push >> '%s'\n%s"+
		"export GIT_AUTHOR_NAME=other GIT_AUTHOR_EMAIL=o@x GIT_COMMITTER_NAME=other GIT_COMMITTER_EMAIL=o@x\n"+
		"c=$(git commit-tree -p refs/heads/main -m 'someone else pushed first' 'refs/heads/main^{tree}') || exit 1\n"+
		"git update-ref refs/heads/main \"$c\"\nexit 0\n", pushes, outOfQuarantine))

	const retries = 4
	rep, err := Sync(context.Background(), b, Options{Retries: retries})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("rejected %d times", retries)) {
		t.Fatalf("sync against a remote that always moves first: %v", err)
	}
	if rep == nil || rep.Pushed {
		t.Fatalf("report: %+v", rep)
	}
	if n := countLines(t, pushes); n != retries {
		t.Fatalf("the sync pushed %d times, want %d (Options.Retries)", n, retries)
	}
	if gitT(t, remote, "ls-tree", "--name-only", "main", bob) != "" {
		t.Fatal("Bob's note is on the remote, yet the sync failed")
	}
	head := gitT(t, b.Root(), "rev-parse", "HEAD")
	gitT(t, b.Root(), "merge-base", "--is-ancestor", mine, head)
	if st := gitT(t, b.Root(), "status", "--porcelain"); st != "" {
		t.Fatalf("not clean:\n%s", st)
	}
	gitT(t, b.Root(), "fsck", "--strict", "--no-progress")
	if !strings.Contains(read(t, b, bob), "bandicoot") {
		t.Fatal("Bob's note is gone")
	}

	os.Remove(filepath.Join(remote, "hooks", "pre-receive"))
	sync(t, b)
	if gitT(t, remote, "rev-parse", "main") != gitT(t, b.Root(), "rev-parse", "HEAD") {
		t.Fatal("the next sync did not push")
	}
	settled(t, a, b)
	if !strings.Contains(read(t, a, bob), "bandicoot") {
		t.Fatal("Bob's note never reached a")
	}
}
