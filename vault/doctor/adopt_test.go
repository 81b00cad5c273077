package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault"
)

// fileState is what a person's file is: its bytes and the file itself
// (a file written back, even with the same bytes, is another file: a new
// inode, a new creation time, which Obsidian shows and sorts by).
type fileState struct {
	data []byte
	info os.FileInfo
}

// personsFiles reads every file of dir but .git and .cairn.
func personsFiles(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == vault.CairnDir {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		out[rel] = fileState{data: data, info: fi}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles asserts every file of before is still there, the same file
// with the same bytes and modification time.
func sameFiles(t testing.TB, dir string, before map[string]fileState, when string) {
	t.Helper()
	after := personsFiles(t, dir)
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Fatalf("%s: %s is gone", when, p)
		case string(a.data) != string(b.data):
			t.Fatalf("%s: %s changed:\n%q\nwas\n%q", when, p, a.data, b.data)
		case !os.SameFile(a.info, b.info) || !a.info.ModTime().Equal(b.info.ModTime()) || a.info.Mode() != b.info.Mode():
			t.Fatalf("%s: %s was written again (same bytes, another file, time or mode)", when, p)
		}
	}
}

// obsidianCopy copies the Obsidian test vault to a temporary folder, with
// modification times in the past, as a vault in use has them.
func obsidianCopy(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "My vault")
	if err := os.CopyFS(dir, os.DirFS("../testdata/obsidian-vault")); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return err
	})
	return dir
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
