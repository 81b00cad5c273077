package teamsync

import (
	"context"
	"strings"
	"testing"
)

// A team whose repository committed Obsidian's workspace.json before cairn
// ignored it: ignoring a tracked file changes nothing for git, so a sync
// still commits and merges it like any other file, and never stops on it
// (git status in a clone where Obsidian rewrote it must not block the
// next sync forever).
func TestATrackedWorkspaceFileStillTravelsAndNeverBlocks(t *testing.T) {
	a, b := team(t)
	commitFiles(t, a, map[string]string{".obsidian/workspace.json": `{"lastOpenFiles":[]}`})
	sync(t, a)
	sync(t, b)
	if !strings.Contains(read(t, b, ".gitignore"), ".obsidian/workspace.json") {
		t.Fatal("the vault does not ignore workspace.json")
	}
	// a member outside cairn (obsidian-git) commits it; Obsidian rewrites
	// it on b meanwhile.
	commitFiles(t, a, map[string]string{".obsidian/workspace.json": `{"lastOpenFiles":["a.md"]}`})
	writeByHand(t, b, ".obsidian/workspace.json", []byte(`{"lastOpenFiles":["b.md"]}`))
	sync(t, a)
	rep, err := Sync(context.Background(), b, Options{})
	if err != nil || !rep.Pushed {
		t.Fatalf("b's sync: %+v %v", rep, err)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != ".obsidian/workspace.json" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
}
