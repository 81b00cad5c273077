package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/search"
)

// searchDoc reads a note relative to the vault's folder as it read it by
// path: the size and mtime of its file, a symbolic link, a folder and a
// file over maxReadBytes refused with their path named; after Close, by
// path.
func TestSearchDocReadsRegularNotesOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("n/a.md", "---\ntags: [x]\n---\n# A\n\nthe body\n")
	write("outside.md", "# Outside\n")
	write("n/big.md", strings.Repeat("x", maxReadBytes+1))
	os.MkdirAll(filepath.Join(dir, "n", "folder.md"), 0o755)
	if err := os.Symlink(filepath.Join(dir, "outside.md"), filepath.Join(dir, "n", "link.md")); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		d, err := v.searchDoc("n/a.md")
		if err != nil {
			t.Fatalf("%s: n/a.md: %v", when, err)
		}
		fi, _ := os.Lstat(filepath.Join(dir, "n", "a.md"))
		if want := stampVersion(&catEntry{Size: fi.Size(), Mtime: fi.ModTime()}); d.Version != want || d.Title != "A" || d.Body != "# A\n\nthe body\n" || len(d.Tags) != 1 {
			t.Errorf("%s: n/a.md read as %+v, want version %s", when, d, want)
		}
		for _, p := range []string{"n/link.md", "n/folder.md", "n/big.md", "n/gone.md"} {
			if _, err := v.searchDoc(p); err == nil || !strings.Contains(err.Error(), p[2:]) {
				t.Errorf("%s: %s: %v, want an error naming it", when, p, err)
			}
		}
	}
	check("open")
	if !v.rootDir.open {
		t.Error("the vault's folder is not held open after a read")
	}
	v.Close()
	if v.rootDir.open {
		t.Error("the vault's folder is held open after Close")
	}
	check("closed")
}

// benchNotes is a vault of n notes of about 2 KB in bench/, open; with
// their paths.
func benchNotes(b *testing.B, n int) (*Vault, []string) {
	dir := filepath.Join(b.TempDir(), "vault")
	if err := os.MkdirAll(filepath.Join(dir, "bench"), 0o755); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("A line of a note, about as long as most lines are.\n", 38)
	paths := make([]string, n)
	for i := range n {
		paths[i] = fmt.Sprintf("bench/Note %03d.md", i)
		text := fmt.Sprintf("---\nid: bench-%03d\ntype: note\ntags: [bench]\ndate: 2026-01-%02d\n---\n# Note %03d\n\n%s", i, i%28+1, i, body)
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(paths[i])), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := Init(dir, InitOptions{}); err != nil {
		b.Fatal(err)
	}
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v, paths
}

// BenchmarkSearchDoc reads 500 notes of about 2 KB as the index does
// (searchDoc: the file read, parsed, its scope and sequence found): the
// cost of the read beside the rest.
//
//	go test ./vault -run '^$' -bench SearchDoc -benchmem -count 3
func BenchmarkSearchDoc(b *testing.B) {
	v, paths := benchNotes(b, 500)
	for b.Loop() {
		for _, p := range paths {
			if _, err := v.searchDoc(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkHitViews makes a search's ten hits into what it answers
// (hitView: the note read, its body found, its snippet made).
//
//	go test ./vault -run '^$' -bench HitViews -benchmem -count 3
func BenchmarkHitViews(b *testing.B) {
	v, paths := benchNotes(b, 10)
	ix, err := v.SearchIndex()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, p := range paths {
			h := search.Hit{Path: p, Score: 1}
			if sh, ok := v.hitView(owner, ix, h, "most lines", false); !ok || sh.Snippet == "" {
				b.Fatalf("%s: %+v", p, sh)
			}
		}
	}
}
