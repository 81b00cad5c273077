package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
)

// An acknowledged note stays found by its id while the vault rescans (the
// watcher's Reconcile every 5 s; a read's syncHead when HEAD moved). With
// 2,000 more notes walked after acme/, a rescan that listed acme/ before a
// create's file existed ends (catalog.sync) after the create put the note
// in the catalog, and removes it: get_note/edit_note by id answer "not
// found" until the next rescan.
func TestCreatedNoteStaysFoundWhileTheVaultRescans(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "zbulk"), 0o755)
	for i := 0; i < 2000; i++ {
		os.WriteFile(filepath.Join(dir, "zbulk", fmt.Sprintf("Bulk %d.md", i)), []byte(fmt.Sprintf("# Bulk %d\n\nx\n", i)), 0o644)
	}
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "bulk")
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				v.Reconcile()
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for i := 0; i < 100; i++ {
		w, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: fmt.Sprintf("# Raced %d\n\nbody\n", i)})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 5; k++ {
			if _, err := v.GetNote(owner, w.ID, false, ""); err != nil {
				t.Fatalf("note %d (%s), acknowledged, is not found at read %d: %v", i, w.ID, k, err)
			}
		}
	}
}

// HEAD moved by this vault's own commit, before the write that made it
// reached noteHead, needs no rescan; a commit made elsewhere does.
func TestOwnCommitsNeedNoRescan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
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
	os.WriteFile(filepath.Join(dir, "own.md"), []byte("# Own\n"), 0o644)
	if _, err := v.store.Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "t", Email: "t@x"}, Message: "own",
		Changes: []gitstore.Change{{Path: "own.md", Content: []byte("# Own\n")}}}); err != nil {
		t.Fatal(err)
	}
	before := scanned()
	if err := v.syncHead(); err != nil {
		t.Fatal(err)
	}
	if !scanned().Equal(before) {
		t.Fatal("the vault rescanned for its own commit")
	}
	os.WriteFile(filepath.Join(dir, "theirs.md"), []byte("# Theirs\n"), 0o644)
	gitOut(t, dir, "add", "theirs.md")
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "theirs")
	if err := v.syncHead(); err != nil {
		t.Fatal(err)
	}
	if scanned().Equal(before) {
		t.Fatal("a commit made elsewhere did not make the vault rescan")
	}
	if _, err := v.GetNote(owner, "Theirs", false, ""); err != nil {
		t.Fatalf("the other commit's note: %v", err)
	}
}
