package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/search"
)

// A server opens the search index beside the catalog (Options.OpenIndex).
// Until the catalog is loaded nothing syncs the index, not even the sync a
// rescan asks for: the open's own full sync comes first, with its
// progress (a fresh clone's searches answer from it). Then the index holds
// every note, an edit made while no server ran included.
func TestIndexOpenedBesideTheCatalog(t *testing.T) {
	v, dir := sampleVault(t)
	v.Close()
	if err := os.WriteFile(filepath.Join(dir, "acme", "Written while stopped.md"), []byte("# Written while stopped\n\nThe quokka census.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(v.index.Dir()); err != nil { // a first build
		t.Fatal(err)
	}
	early := 0
	loadedHook = func(v *Vault) {
		deadline := time.Now().Add(time.Minute)
		for v.index.Current() == nil && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		ix := v.index.Current()
		if ix == nil {
			t.Error("the index was not opened beside the catalog")
			return
		}
		if err := v.index.Sync(false); err != nil {
			t.Error(err)
		}
		early = ix.Len()
	}
	t.Cleanup(func() { loadedHook = nil })
	v2, err := Open(dir, Options{Quiet: testQuiet, Exclusive: true, OpenIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	loadedHook = nil
	if early != 0 {
		t.Errorf("a sync ran before the catalog was loaded: %d documents indexed", early)
	}
	r := searchT(t, v2, owner, SearchArgs{Query: "quokka census", Mode: "lexical"})
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].Path, "Written while stopped") {
		t.Errorf("the note written while stopped is not found: %+v", r.Results)
	}
}

// An Open that fails after the index's open began lets go of the index
// too: the next Open (a host retrying) finds it free, not busy.
func TestFailedOpenLetsGoOfTheIndex(t *testing.T) {
	v, dir := sampleVault(t)
	v.Close()
	access := filepath.Join(dir, AccessFile)
	good, err := os.ReadFile(access)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(access, []byte("owner: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{Quiet: testQuiet, Exclusive: true, OpenIndex: true}); err == nil {
		t.Fatal("a vault whose access file does not parse opened")
	}
	ix, err := search.Open(filepath.Join(dir, CacheDir, "search"), search.Options{})
	if err != nil {
		t.Fatalf("the failed open kept the index: %v", err)
	}
	ix.Close()
	if err := os.WriteFile(access, good, 0o644); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(dir, Options{Quiet: testQuiet, Exclusive: true, OpenIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if r := searchT(t, v2, owner, SearchArgs{Query: "rollback", Mode: "lexical"}); len(r.Results) == 0 {
		t.Error("no result after the open that failed")
	}
}
