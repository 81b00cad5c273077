package search

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
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
	if b := saved.encode(); !slices.Equal(b, data) {
		t.Fatalf("encode: %d bytes, not the file's %d", len(b), len(data))
	}
	// The file is written a record at a time, never held whole.
	var w largestWrite
	if err := writeNotes(&w, saved.model, saved.dims, saved.snapshot()); err != nil {
		t.Fatal(err)
	}
	if w.total != len(data) || w.largest*2 > len(data) {
		t.Fatalf("wrote %d bytes (file: %d), %d in one write: want the records one by one", w.total, len(data), w.largest)
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
		if got == nil || got.version != n.version || !slices.Equal(got.scale, n.scale) || !slices.Equal(got.chunks, n.chunks) {
			t.Fatalf("%s: not loaded as saved", p)
		}
		was, is := saved.spans[n.span], vs.spans[got.span]
		if !slices.Equal(vs.arena.at(is.block, is.start, is.rows), saved.arena.at(was.block, was.start, was.rows)) {
			t.Fatalf("%s: its rows are not loaded as saved", p)
		}
	}
	// The components saved are recomputed from the rows: loaded, the file
	// saves again to the very same bytes.
	if again := vs.encode(); !slices.Equal(again, data) {
		t.Fatal("the loaded vectors encode to other bytes than the file they were loaded from")
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

// The components a save writes are recomputed from the rows a search
// scans (quantizeRow): for every vector an embedder gives, and far beyond
// (magnitudes from 10⁻⁶ to 10⁶, one-hot, negative, zero), they are the
// components quantize made.
func TestQuantizeRowGivesBackTheComponents(t *testing.T) {
	const dims = 64
	r := rand.New(rand.NewSource(5))
	var vecs [][]float32
	for i := range 3000 {
		v := randomUnit(r, dims)
		f := float32(math.Pow(10, float64(r.Intn(13)-6)))
		for j := range v {
			v[j] *= f
		}
		switch i % 10 {
		case 0:
			clear(v)
		case 1:
			clear(v)
			v[r.Intn(dims)] = -f
		}
		vecs = append(vecs, v)
	}
	scale, q := quantize(vecs, dims)
	row := make([]float32, dims)
	got := make([]byte, dims)
	for i := range vecs {
		dequantize(row, scale[i:i+1], q[i:i+1], dims)
		quantizeRow(got, row, scale[i])
		if !slices.Equal(got, q[i]) {
			t.Fatalf("vector %d (scale %g): components %v, quantized %v", i, scale[i], got, q[i])
		}
	}
}

// A save encodes without the lock while notes are put, replaced and
// removed (the race detector watches): every file saved loads, and each
// note in it has the rows that were put for its version.
func TestSaveWhileNotesChange(t *testing.T) {
	defer func(b, c int) { arenaBlock, compactMin = b, c }(arenaBlock, compactMin)
	const dims = 8
	arenaBlock, compactMin = 16*dims, 4
	vs := newVectors("test", dims)
	vecsOf := func(version int) [][]float32 { // a version's vectors, the same every time
		r := rand.New(rand.NewSource(int64(version)))
		vecs := make([][]float32, 1+version%5)
		for i := range vecs {
			vecs[i] = randomUnit(r, dims)
		}
		return vecs
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := rand.New(rand.NewSource(9))
		for step := range 3000 {
			p := fmt.Sprintf("n%d.md", r.Intn(30))
			if r.Intn(5) == 0 {
				vs.remove(p)
				continue
			}
			vecs := vecsOf(step)
			vs.put(p, fmt.Sprint(step), make([]Chunk, len(vecs)), vecs, nil)
		}
	}()
	file := filepath.Join(t.TempDir(), "vectors.bin")
	for saves := 0; ; saves++ {
		select {
		case <-done:
			if saves == 0 {
				t.Fatal("no save ran while the notes changed")
			}
			return
		default:
		}
		vs.mu.Lock()
		vs.dirty = true
		vs.mu.Unlock()
		if err := vs.save(file); err != nil {
			t.Fatal(err)
		}
		got, err := loadVectors(file, "test", dims)
		if err != nil {
			t.Fatalf("save %d: %v", saves, err)
		}
		for p, n := range got.notes {
			var version int
			fmt.Sscan(n.version, &version)
			scale, q := quantize(vecsOf(version), dims)
			want := make([]float32, len(scale)*dims)
			dequantize(want, scale, q, dims)
			sp := got.spans[n.span]
			if !slices.Equal(got.arena.at(sp.block, sp.start, sp.rows), want) {
				t.Fatalf("save %d: %s (version %s): rows not those put", saves, p, n.version)
			}
		}
	}
}

// encode is the file's bytes, as a save writes them (the caller holds mu).
func (vs *vectors) encode() []byte { return encodeNotes(vs.model, vs.dims, vs.snapshot()) }

// encodeNotes is the file writeNotes writes, in memory.
func encodeNotes(model string, dims int, notes []savedNote) []byte {
	var buf bytes.Buffer
	if err := writeNotes(&buf, model, dims, notes); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return buf.Bytes()
}

// largestWrite keeps the size of the largest write made to it, and the
// total.
type largestWrite struct{ largest, total int }

func (w *largestWrite) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	w.total += len(p)
	return len(p), nil
}
