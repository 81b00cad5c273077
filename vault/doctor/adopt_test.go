package doctor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/personsfiles"
	"github.com/cairn-dev/cairn/vault"
)

// A person's files, held to what they were (internal/personsfiles).
type fileState = personsfiles.State

var (
	personsFiles = personsfiles.Read
	sameFiles    = personsfiles.Same
)

// obsidianCopy copies the Obsidian test vault to a temporary folder, with
// modification times in the past, as a vault in use has them.
func obsidianCopy(t testing.TB) string {
	return personsfiles.CopyDated(t, "../testdata/obsidian-vault")
}

// The first open of an adopted vault, and what a server does at its start
// (reading, searching, committing hand edits, watching), write no note:
// a note without an id is known by one derived from its path, saved in it
// only when cairn next writes to that note.
func TestOpeningAnAdoptedVaultRewritesNoNote(t *testing.T) {
	dir := obsidianCopy(t)
	if _, err := vault.Init(dir, vault.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := personsFiles(t, dir)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	v, err := vault.Open(dir, vault.Options{Exclusive: true, Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	go v.Watch(ctx, vault.WatchOptions{Debounce: 20 * time.Millisecond, Quiet: testQuiet, Ready: ready, Report: func(err error) { t.Log("watch:", err) }})
	<-ready
	if committed, _, err := v.CommitStrayEdits(); err != nil || len(committed) != 0 {
		t.Fatalf("stray edits: %v %v", committed, err)
	}
	for _, ref := range []string{"Welcome", "Project X", "Zettel", "Réunion", "With BOM", "Old plan", "2024-01-02"} {
		n, err := v.GetNote(owner, ref, true, "")
		if err != nil {
			t.Fatalf("get %s: %v", ref, err)
		}
		if n.Path == "Projects/Zettel.md" && n.ID != "202301011200" {
			t.Fatalf("a note's own id property is its id: %q", n.ID)
		}
	}
	if _, err := v.StartSession(owner, ""); err != nil {
		t.Fatal(err)
	}
	r := searchT(t, v, owner, vault.SearchArgs{Query: "Obsidian trash", Mode: "lexical"})
	for _, h := range r.Results {
		if strings.HasPrefix(h.Path, ".") {
			t.Fatalf("search found %s", h.Path)
		}
	}
	if v.NoteCount() != 7 {
		t.Fatalf("%d notes; Obsidian's trash holds no note of the vault", v.NoteCount())
	}
	for _, f := range Check(v) {
		if strings.Contains(f.Message, ".trash") {
			t.Fatalf("doctor on Obsidian's trash: %+v", f)
		}
	}
	cancel()
	sameFiles(t, dir, before, "after open, reads and the watcher")
	unchanged(t, dir, head)
}
