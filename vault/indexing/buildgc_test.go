package indexing_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/indexing"
)

// sampleVault is the sample vault, set up and opened in a folder of the
// test's; the vault closes when the test ends.
func sampleVault(t *testing.T) (*vault.Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vault.Init(dir, vault.InitOptions{From: "../../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{Quiet: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

// A first build's collector setting lasts until the open has saved what it
// built and returned the freed heap: restored before the save, it let the
// heap grow into the wider headroom there, the build's highest point at
// 100,000 notes.
func TestAFirstBuildCollectsLeanUntilItsOpenEnds(t *testing.T) {
	indexing.WithSmallHeap(t)
	v, dir := sampleVault(t)
	v.Close()
	if err := os.RemoveAll(filepath.Join(dir, vault.CacheDir, "search")); err != nil {
		t.Fatal(err)
	}
	atEnd := make(chan int, 1)
	indexing.TestHooks.Opened = func() { atEnd <- indexing.GCPercent() }
	t.Cleanup(func() { indexing.TestHooks.Opened = nil })
	v2, err := vault.Open(dir, vault.Options{Quiet: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-atEnd:
		if got != indexing.BuildGCPercent {
			t.Errorf("GOGC %d at the end of a first build's open, want the build's %d", got, indexing.BuildGCPercent)
		}
	case <-time.After(time.Minute):
		t.Fatal("the index's open never ended")
	}
	// The open restores the setting after the hook; Close (deferred, before
	// withGC's cleanup) waits for it.
}

// A Rebuild's collector setting lasts to its end: through the save of the
// new index, the swap and the vectors after it, where a 100,000-note
// rebuild reached its highest point when the setting came back with the
// build's last step.
func TestARebuildCollectsLeanUntilItEnds(t *testing.T) {
	indexing.WithSmallHeap(t)
	v, _ := sampleVault(t)
	atEnd := -1
	indexing.TestHooks.Rebuilt = func() { atEnd = indexing.GCPercent() }
	t.Cleanup(func() { indexing.TestHooks.Rebuilt = nil })
	if err := v.Rebuild(nil); err != nil {
		t.Fatal(err)
	}
	if atEnd != indexing.BuildGCPercent {
		t.Errorf("GOGC %d at the end of a Rebuild, want the build's %d", atEnd, indexing.BuildGCPercent)
	}
	indexing.WantPercent(t, "after the Rebuild", indexing.SmallGCPercent)
}
