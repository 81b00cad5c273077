package teamsync

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/note"
)

// byHand writes a note as a person would, long enough ago to be
// committed as their edit, and lets the vault see it (as its watcher
// would).
func byHand(t *testing.T, v *vault.Vault, p, content string) {
	t.Helper()
	full := filepath.Join(v.Root(), p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	os.Chtimes(full, past, past)
	if _, err := v.Reconcile(); err != nil {
		t.Fatal(err)
	}
}

// carriers lists the tracked files whose frontmatter carries id.
func carriers(t *testing.T, v *vault.Vault, id string) string {
	t.Helper()
	out, _ := exec.Command("git", "-C", v.Root(), "grep", "-l", "^id: "+id+"$").Output() // status 1: none
	return strings.TrimSpace(string(out))
}

// Two members made a note from one template, id included, in different
// folders: the sync that brings them together gives the later one its own
// id, and both clones end with one note per id.
func TestAnIDThatArrivesTwiceIsGivenToOneNote(t *testing.T) {
	a, b := team(t)
	id := note.NewID()
	infra, handbook := "acme/infra/Standup notes.md", "acme/handbook/Standup notes.md"
	byHand(t, a, infra, "---\nid: "+id+"\ntype: meeting\n---\n# Standup notes\n\nAlice's copy.\n")
	byHand(t, b, handbook, "---\nid: "+id+"\ntype: meeting\n---\n# Standup notes (handbook)\n\nBob's copy.\n")
	if rep := sync(t, a); len(rep.IDs) != 0 {
		t.Fatalf("a had no copy: %+v", rep.IDs)
	}
	rep := sync(t, b)
	want := vault.IDCopy{ID: id, Kept: handbook, Path: infra, NewID: note.DerivedID(infra), Repaired: true}
	if len(rep.IDs) != 1 || rep.IDs[0] != want {
		t.Fatalf("b's sync reported %+v, want %+v", rep.IDs, want)
	}
	if rep := sync(t, a); len(rep.IDs) != 0 || len(rep.Conflicts) != 0 {
		t.Fatalf("a's sync after the repair: %+v", rep)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if got := carriers(t, v, id); got != handbook {
			t.Fatalf("%s: %s carried by %q", v.Root(), id, got)
		}
		if got := carriers(t, v, want.NewID); got != infra {
			t.Fatalf("%s: %s carried by %q", v.Root(), want.NewID, got)
		}
		if d := v.DuplicateIDs(); len(d) != 0 {
			t.Fatalf("%s: still %+v", v.Root(), d)
		}
	}
	if !strings.Contains(read(t, a, infra), "Alice's copy.") {
		t.Fatal("the repair lost the body")
	}
}

// Both members copied the same note to the same place: each sync repairs
// its own copy before it fetches, the same way, so the two copies meet as
// one and merge without a conflict on their id.
func TestTwoClonesRepairingTheSameCopyAgree(t *testing.T) {
	a, b := team(t)
	copyPath := strings.TrimSuffix(cdn, ".md") + " 1.md"
	orig := read(t, a, cdn)
	byHand(t, a, copyPath, orig)
	byHand(t, b, copyPath, orig)
	repA := sync(t, a)
	repB := sync(t, b)
	for _, rep := range []*Report{repA, repB} {
		if len(rep.IDs) != 1 || !rep.IDs[0].Repaired || rep.IDs[0].Path != copyPath || rep.IDs[0].Kept != cdn {
			t.Fatalf("ids: %+v", rep.IDs)
		}
	}
	if len(repB.Conflicts) != 0 {
		t.Fatalf("the two repairs conflicted: %+v", repB.Conflicts)
	}
	settled(t, a, b)
	if read(t, a, copyPath) != read(t, b, copyPath) || !strings.Contains(read(t, a, copyPath), "id: "+note.DerivedID(copyPath)) {
		t.Fatalf("the copies differ or lack their id:\n%s", read(t, a, copyPath))
	}
}
