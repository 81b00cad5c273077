package teamsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// commitFiles writes several files of a vault in one commit.
func commitFiles(t *testing.T, v *vault.Vault, files map[string]string) {
	t.Helper()
	var changes []gitstore.Change
	for p, c := range files {
		changes = append(changes, gitstore.Change{Path: p, Content: []byte(c)})
	}
	if _, err := v.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "agent", Email: "agent@cairn.local"}, Message: "write", Changes: changes}); err != nil {
		t.Fatal(err)
	}
}

func TestARenameAgainstAnEditKeepsBoth(t *testing.T) {
	a, b := team(t)
	moved := "acme/infra/decisions/Decision CDN vendor.md"
	body := read(t, a, cdn)
	if _, err := a.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "agent", Email: "agent@cairn.local"}, Message: "rename",
		Changes: []gitstore.Change{{Path: cdn, Delete: true}, {Path: moved, Content: []byte(body)}}}); err != nil {
		t.Fatal(err)
	}
	edit(t, b, cdn, func(s string) string { return s + "\nEdited while it was renamed.\n" })
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if got := read(t, v, moved); !strings.Contains(got, "Edited while it was renamed.") {
			t.Fatalf("%s: the renamed note lacks the edit:\n%s", v.Root(), got)
		}
		if _, err := os.Stat(filepath.Join(v.Root(), cdn)); !os.IsNotExist(err) {
			t.Fatalf("%s: the old name is back", v.Root())
		}
	}
}

func TestBothSidesCreatingTheSameNoteKeepBoth(t *testing.T) {
	a, b := team(t)
	p := "acme/infra/Launch checklist.md"
	commitFiles(t, a, map[string]string{p: "# Launch checklist\n\n- Alice's item\n"})
	commitFiles(t, b, map[string]string{p: "# Launch checklist\n\n- Bob's item\n"})
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Copy == "" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	both := read(t, a, p) + read(t, a, rep.Conflicts[0].Copy)
	if !strings.Contains(both, "Alice's item") || !strings.Contains(both, "Bob's item") {
		t.Fatalf("a side is lost:\n%s", both)
	}
}

func TestOtherFilesNeverBlockASync(t *testing.T) {
	a, b := team(t)
	ws := ".obsidian/workspace.json"
	commitFiles(t, a, map[string]string{ws: `{"active":"alice"}`, "pics/diagram.svg": "<svg>a</svg>"})
	commitFiles(t, b, map[string]string{ws: `{"active":"bob"}`, "pics/diagram.svg": "<svg>b</svg>"})
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 2 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	for _, c := range rep.Conflicts {
		if c.Copy == "" || read(t, a, c.Path) == read(t, a, c.Copy) {
			t.Fatalf("both versions of %s are not kept: %+v", c.Path, c)
		}
	}
	// cairn doctor names each copy on both sides until it is deleted.
	for _, v := range []*vault.Vault{a, b} {
		found := strings.Join(conflictFindings(v), "\n")
		for _, c := range rep.Conflicts {
			if !strings.Contains(found, c.Copy+" is the other version of "+c.Path) {
				t.Fatalf("doctor on %s does not name %s:\n%s", v.Root(), c.Copy, found)
			}
		}
	}
	var gone []gitstore.Change
	for _, c := range rep.Conflicts {
		gone = append(gone, gitstore.Change{Path: c.Copy, Delete: true})
	}
	if _, err := b.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "bob", Email: "bob@x"}, Message: "resolved", Changes: gone}); err != nil {
		t.Fatal(err)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if found := conflictFindings(v); len(found) != 0 {
			t.Fatalf("doctor on %s after the copies were deleted: %v", v.Root(), found)
		}
	}
}

// 500 notes changed on each side, some of them the same notes in
// different places: everything arrives on both sides.
func TestFiveHundredNotesOnEachSide(t *testing.T) {
	a, b := team(t)
	fa, fb := map[string]string{}, map[string]string{}
	for i := range 500 {
		fa[fmt.Sprintf("bulk/alice/Note %d.md", i)] = fmt.Sprintf("# Alice %d\n\ntext\n", i)
		fb[fmt.Sprintf("bulk/bob/Note %d.md", i)] = fmt.Sprintf("# Bob %d\n\ntext\n", i)
	}
	commitFiles(t, a, fa)
	commitFiles(t, b, fb)
	edit(t, a, cdn, func(s string) string { return "Top line by Alice.\n" + s })
	edit(t, b, cdn, func(s string) string { return s + "\nBottom line by Bob.\n" })
	sync(t, a)
	if rep := sync(t, b); len(rep.Conflicts) != 0 || len(rep.Incoming) != 501 {
		t.Fatalf("b's sync: %d conflicts, %d incoming", len(rep.Conflicts), len(rep.Incoming))
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		for p := range fa {
			read(t, v, p)
		}
		for p := range fb {
			read(t, v, p)
		}
		if got := read(t, v, cdn); !strings.Contains(got, "Top line by Alice.") || !strings.Contains(got, "Bottom line by Bob.") {
			t.Fatalf("%s:\n%s", v.Root(), got)
		}
	}
}

// Members syncing at the same moment: pushes are rejected and integrated
// again; every write ends on every clone.
func TestConcurrentSyncsLoseNothing(t *testing.T) {
	a, b := team(t)
	var wg gosync.WaitGroup
	errs := make(chan error, 20)
	for _, v := range []*vault.Vault{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				p := fmt.Sprintf("race/%s %d.md", filepath.Base(v.Root()), i)
				if _, err := v.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "agent", Email: "agent@cairn.local"}, Message: "w",
					Changes: []gitstore.Change{{Path: p, Content: []byte("# " + p + "\n")}}}); err != nil {
					errs <- err
					return
				}
				if _, err := Sync(context.Background(), v, Options{Retries: 10}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		for _, who := range []string{"a", "b"} {
			for i := range 5 {
				read(t, v, fmt.Sprintf("race/%s %d.md", who, i))
			}
		}
	}
}

// A note a sync changed has a new versionToken: an agent holding the old
// one gets versionConflict instead of overwriting what came in; with the
// new one, its edit lands.
func TestATokenFromBeforeTheSyncConflicts(t *testing.T) {
	a, b := team(t)
	agent := access.Caller{Principal: b.Owner(), Ceiling: access.RoleWrite, Actor: "agent", Tool: "edit_note"}
	before, err := b.GetNote(agent, cdn, false, "")
	if err != nil {
		t.Fatal(err)
	}
	edit(t, a, cdn, func(s string) string { return s + "\nChanged on a.\n" })
	sync(t, a)
	sync(t, b)
	text := "an agent's line"
	_, err = b.EditNote(agent, vault.EditArgs{Ref: cdn, VersionToken: before.VersionToken, Operation: "append", Content: &text})
	var ce *vault.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("edit with the token from before the sync: %v", err)
	}
	if _, err := b.EditNote(agent, vault.EditArgs{Ref: cdn, VersionToken: ce.Current, Operation: "append", Content: &text}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, b, cdn); !strings.Contains(got, "Changed on a.") || !strings.Contains(got, text) {
		t.Fatalf("b's note:\n%s", got)
	}
}

// What a sync brings is its authors' and stays so: the watcher of the
// receiving vault never commits it again as a person's edit.
func TestTheWatcherDoesNotRecommitWhatASyncBrought(t *testing.T) {
	a, b := team(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	go b.Watch(ctx, vault.WatchOptions{Quiet: 100 * time.Millisecond, Ready: ready})
	<-ready
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("acme/infra/Arrived %d.md", i)] = fmt.Sprintf("# Arrived %d\n", i)
	}
	commitFiles(t, a, files)
	edit(t, a, cdn, func(s string) string { return s + "\nFrom a.\n" })
	sync(t, a)
	sync(t, b)
	// A person's edit after the sync: once the watcher has committed it,
	// it has looked at every file the sync wrote before it.
	hand := filepath.Join(b.Root(), "acme", "infra", "Written by hand.md")
	os.WriteFile(hand, []byte("# Written by hand\n"), 0o644)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(gitT(t, b.Root(), "log", "--format=%s", "-5"), "Written by hand") {
		if time.Now().After(deadline) {
			t.Fatal("the watcher never committed the hand edit")
		}
		time.Sleep(50 * time.Millisecond)
	}
	byHand := gitT(t, b.Root(), "log", "--format=", "--name-only", "--grep", "Edit by hand")
	for p := range files {
		if strings.Contains(byHand, p) {
			t.Fatalf("%s, brought by the sync, was committed again as a hand edit:\n%s", p, byHand)
		}
	}
	if strings.Contains(byHand, cdn) {
		t.Fatal("the synced edit was committed again as a hand edit")
	}
}
