package notefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadAt reads what is there, says when it was stamped, and refuses what
// a note cannot be: a symbolic link, a folder, a file over the bound.
func TestReadAtReadsRegularFilesOnly(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "f", "sub"), 0o755)
	body := strings.Repeat("a line of a note\n", 100)
	if err := os.WriteFile(filepath.Join(root, "f", "n.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "big.md"), make([]byte, 2000), 0o644)
	os.WriteFile(filepath.Join(root, "outside.md"), []byte("secret"), 0o644)
	if err := os.Symlink(filepath.Join(root, "outside.md"), filepath.Join(root, "f", "link.md")); err != nil {
		t.Fatal(err)
	}
	dir, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer CloseDir(dir)

	buf := make([]byte, 0, 8) // too small: ReadAt makes its own
	data, st, err := ReadAt(dir, "f/n.md", buf, 1000_000)
	if err != nil || string(data) != body {
		t.Fatalf("f/n.md: %q, %v", data, err)
	}
	fi, _ := os.Stat(filepath.Join(root, "f", "n.md"))
	if st.Size != fi.Size() || !st.Mtime.Equal(fi.ModTime()) {
		t.Errorf("stamp %+v, the file's %d %v", st, fi.Size(), fi.ModTime())
	}
	// A buffer large enough is used.
	again, _, err := ReadAt(dir, "outside.md", data[:0], 1000_000)
	if err != nil || string(again) != "secret" || &again[0] != &data[0] {
		t.Errorf("outside.md into the last buffer: %q, %v (same buffer: %v)", again, err, err == nil && &again[0] == &data[0])
	}
	for p, want := range map[string]string{"f/link.md": "read f/link.md", "f/sub": "not a regular file", "big.md": "larger than the bound", "nothere.md": "no such file"} {
		if _, _, err := ReadAt(dir, p, nil, 1000); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", p, err, want)
		}
	}
	if _, _, err := ReadAt(dir, "big.md", nil, 1000); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big.md: %v is not ErrTooLarge", err)
	}
}

// ReadAt reads every size whole, the empty file and sizes around the
// buffers it is given included.
func TestReadAtReadsEverySizeWhole(t *testing.T) {
	root := t.TempDir()
	dir, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer CloseDir(dir)
	var buf []byte
	for size := range 5000 {
		want := strings.Repeat("x", size)
		if err := os.WriteFile(filepath.Join(root, "n.md"), []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		data, st, err := ReadAt(dir, "n.md", buf, 1<<20)
		if err != nil || string(data) != want || st.Size != int64(size) {
			t.Fatalf("size %d: read %d bytes, stamp %+v, %v", size, len(data), st, err)
		}
		buf = data[:0]
	}
}

// BenchmarkReadAt reads 2,000 notes of 3 KB: `go test
// ./internal/notefile -run '^$' -bench ReadAt`.
func BenchmarkReadAt(b *testing.B) {
	root := b.TempDir()
	body := []byte(strings.Repeat("a line of a note, about as long as any\n", 80))
	for i := range 2000 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("n%04d.md", i)), body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	dir, err := OpenDir(root)
	if err != nil {
		b.Fatal(err)
	}
	defer CloseDir(dir)
	var buf []byte
	b.SetBytes(2000 * int64(len(body)))
	for b.Loop() {
		for i := range 2000 {
			data, _, err := ReadAt(dir, fmt.Sprintf("n%04d.md", i), buf, 1<<20)
			if err != nil {
				b.Fatal(err)
			}
			buf = data[:0]
		}
	}
}
