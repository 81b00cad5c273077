// Package personsfiles is what the tests of an adopted vault hold a
// person's files to: every file outside .git and .cairn, its bytes and the
// file itself, then the same bytes in the same file with the same
// modification time after cairn has run. Package vault's internal tests
// and vault/doctor's both use it (it imports nothing of cairn's, so vault
// can). Tests only.
package personsfiles

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// State is what a person's file is: its bytes and the file itself (a
// file written back, even with the same bytes, is another file: a new
// inode, a new creation time, which Obsidian shows and sorts by).
type State struct {
	Data []byte
	Info os.FileInfo
}

// Read reads every file of dir but .git and .cairn, by slash-separated
// path.
func Read(t testing.TB, dir string) map[string]State {
	t.Helper()
	out := map[string]State{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == ".cairn" {
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
		out[rel] = State{Data: data, Info: fi}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Same asserts every file of before is still there, the same file with
// the same bytes and modification time.
func Same(t testing.TB, dir string, before map[string]State, when string) {
	t.Helper()
	after := Read(t, dir)
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Fatalf("%s: %s is gone", when, p)
		case string(a.Data) != string(b.Data):
			t.Fatalf("%s: %s changed:\n%q\nwas\n%q", when, p, a.Data, b.Data)
		case !os.SameFile(a.Info, b.Info) || !a.Info.ModTime().Equal(b.Info.ModTime()) || a.Info.Mode() != b.Info.Mode():
			t.Fatalf("%s: %s was written again (same bytes, another file, time or mode)", when, p)
		}
	}
}

// CopyDated copies the folder src (the Obsidian test vault) to "My vault"
// in a temporary folder, with modification times in the past, as a vault
// in use has them, and returns the copy.
func CopyDated(t testing.TB, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "My vault")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
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
