package teamsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
)

// Writes landing without a pause while a sync merges never make the sync
// fail: the merge is made under the write lock on the HEAD it moves from,
// and the writes wait for it. Every write is on both clones afterwards.
func TestSteadyWritesDuringMergesNeverFailASync(t *testing.T) {
	a, b := team(t)
	stop := make(chan struct{})
	var wg gosync.WaitGroup
	var written []string // the writer's alone until wg.Wait
	wg.Add(1)
	go func() { // an agent writing into b as fast as it can
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := fmt.Sprintf("steady/b %d.md", i)
			if _, err := b.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "agent", Email: "agent@cairn.local"}, Message: "w",
				Changes: []gitstore.Change{{Path: p, Content: []byte("# " + p + "\n")}}}); err != nil {
				t.Errorf("write %s: %v", p, err)
				return
			}
			written = append(written, p)
		}
	}()
	for round := range 4 {
		commitFiles(t, a, map[string]string{fmt.Sprintf("steady/a %d.md", round): "# a\n"})
		sync(t, a)
		rep, err := Sync(context.Background(), b, Options{})
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("round %d: a sync under steady writes failed: %v", round, err)
		}
		if rep.Merge == "" {
			t.Errorf("round %d: b wrote meanwhile, so the histories diverged, but no merge: %+v", round, rep)
		}
	}
	close(stop)
	wg.Wait()
	settled(t, a, b)
	if len(written) == 0 {
		t.Fatal("nothing was written during the syncs")
	}
	for _, p := range written {
		read(t, a, p)
		read(t, b, p)
	}
}

// Two conflict copies of one note made in the same second keep both: the
// second is "… 2)", never written over the first.
func TestConflictCopiesOfTheSameSecondKeepTheirOwnNames(t *testing.T) {
	a, _ := team(t)
	g := gitIn(a.Root())
	ctx := context.Background()
	const stamp = "2026-12-01 101500"
	first := vault.ConflictCopyName(cdn, stamp, 1)
	if !strings.HasSuffix(first, "Decision CDN provider (conflict 2026-12-01 101500).md") {
		t.Fatalf("copy name %q", first)
	}
	commitFiles(t, a, map[string]string{first: "# an earlier conflict copy\n"})
	tree := gitT(t, a.Root(), "rev-parse", "HEAD^{tree}")
	taken := map[string]bool{}
	second := freeCopyName(ctx, g, tree, cdn, stamp, taken)
	if second != vault.ConflictCopyName(cdn, stamp, 2) || !strings.HasSuffix(second, "(conflict 2026-12-01 101500 2).md") {
		t.Fatalf("second copy %q", second)
	}
	if third := freeCopyName(ctx, g, tree, cdn, stamp, taken); third != vault.ConflictCopyName(cdn, stamp, 3) {
		t.Fatalf("third copy in one merge %q", third)
	}
	other := "acme/other.md"
	if got := freeCopyName(ctx, g, tree, other, stamp, taken); got != vault.ConflictCopyName(other, stamp, 1) {
		t.Fatalf("another note's copy %q", got)
	}
}

// A clone of a repository whose branch is master syncs master: no main
// appears on the remote beside it.
func TestSyncFollowsTheCheckedOutBranch(t *testing.T) {
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	gitT(t, base, "init", "-q", "--bare", "-b", "master", remote)
	dirA := filepath.Join(base, "a")
	if _, err := vault.Init(dirA, vault.InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	gitT(t, dirA, "branch", "-m", "master")
	gitT(t, dirA, "remote", "add", "origin", remote)
	a := open(t, dirA)
	if rep, err := Sync(context.Background(), a, Options{}); err != nil || !rep.Pushed {
		t.Fatalf("first sync: %+v %v", rep, err)
	}
	dirB := filepath.Join(base, "b")
	gitT(t, base, "clone", "-q", remote, dirB)
	b := open(t, dirB)
	commitFiles(t, b, map[string]string{"from b.md": "# from b\n"})
	sync(t, b)
	sync(t, a)
	read(t, a, "from b.md")
	if heads := gitT(t, remote, "for-each-ref", "--format=%(refname)", "refs/heads"); heads != "refs/heads/master" {
		t.Fatalf("the remote's branches: %q", heads)
	}
}

// A note saved by hand a moment before the sync goes out with it: the
// sync waits for the save to be quiet instead of leaving it behind.
func TestASaveJustBeforeTheSyncGoesOut(t *testing.T) {
	a, b := team(t)
	p := filepath.Join(b.Root(), cdn)
	old, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(old, "\nSaved a moment before the sync.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := sync(t, b)
	if len(rep.Settling) != 0 || rep.UpToDate {
		t.Fatalf("the save did not go out: %+v", rep)
	}
	sync(t, a)
	if !strings.Contains(read(t, a, cdn), "Saved a moment before the sync.") {
		t.Fatal("the save did not reach the other clone")
	}
}
