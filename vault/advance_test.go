package vault

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A sync's advance re-reads the changed notes only, and the vault answers
// from them at once: the new note, its links both ways.
func TestAdvanceRereadsTheChangedNotesOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	gitOut(t, filepath.Dir(clone), "clone", "-q", dir, clone)
	os.WriteFile(filepath.Join(clone, "acme", "Arrived by sync.md"), []byte("# Arrived by sync\n\nSee [[Decision CDN provider]].\n"), 0o644)
	gitOut(t, clone, "add", "-A")
	gitOut(t, clone, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "from the clone")
	gitOut(t, dir, "fetch", "-q", clone, "main")
	to := gitOut(t, dir, "rev-parse", "FETCH_HEAD")

	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	scanned := func() time.Time {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.scannedAt
	}
	before := scanned()
	paths, err := v.Advance(to)
	if err != nil || len(paths) != 1 || paths[0] != "acme/Arrived by sync.md" {
		t.Fatalf("advance: %v %v", paths, err)
	}
	n, err := v.GetNote(owner, "Arrived by sync", true, "")
	if err != nil {
		t.Fatal(err)
	}
	if n.VersionToken != to {
		t.Fatalf("version token %s, want the commit that brought it %s", n.VersionToken, to)
	}
	cdn, err := v.GetNote(owner, "Decision CDN provider", true, "")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range cdn.Links.Incoming {
		found = found || l.From.Path == "acme/Arrived by sync.md"
	}
	if !found {
		t.Fatalf("the backlink from the arrived note is missing: %+v", cdn.Links.Incoming)
	}
	if !scanned().Equal(before) {
		t.Fatal("the vault walked every file for a sync that changed one")
	}
}
