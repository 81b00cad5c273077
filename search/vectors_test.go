package search

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The vector file is read whole and decoded in place: every cut of it,
// and a byte too many, is refused as damaged (never a panic, never a
// partial table), and the whole file gives back what was saved.
func TestVectorFileCutAnywhereIsRefused(t *testing.T) {
	dir := t.TempDir()
	docs := versioned(corpus)
	ix, _ := openT(t, dir, builtinT(t), load(docs))
	ix.Apply(docs, nil)
	if !ix.WaitVectors(10 * time.Second) {
		t.Fatal("vectors not made")
	}
	saved := ix.vec
	ix.Close()
	file := filepath.Join(dir, "vectors.bin")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if b := saved.encode(); len(b) != cap(b) || !slices.Equal(b, data) {
		t.Fatalf("encode: %d bytes in a buffer of %d, file equal: %v (want one buffer of the exact size, the file's bytes)", len(b), cap(b), slices.Equal(b, data))
	}
	id := builtinT(t).ID()
	vs, err := loadVectors(file, id, 100)
	if err != nil {
		t.Fatalf("the file as saved: %v", err)
	}
	if len(vs.notes) != len(docs) || vs.arena.rows != saved.arena.rows {
		t.Fatalf("loaded %d notes and %d rows, saved %d and %d", len(vs.notes), vs.arena.rows, len(saved.notes), saved.arena.rows)
	}
	for p, n := range saved.notes {
		got := vs.notes[p]
		if got == nil || got.version != n.version || !slices.Equal(got.q, n.q) || !slices.Equal(got.chunks, n.chunks) {
			t.Fatalf("%s: not loaded as saved", p)
		}
	}
	cut := filepath.Join(dir, "cut.bin")
	for n := range len(data) {
		if err := os.WriteFile(cut, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if vs, err := loadVectors(cut, id, 100); err == nil || vs != nil || !errors.Is(err, errVecFile) {
			t.Fatalf("cut at %d of %d bytes: %v", n, len(data), err)
		}
	}
	if err := os.WriteFile(cut, append(data, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadVectors(cut, id, 100); err == nil {
		t.Fatal("a trailing byte accepted")
	}
}
