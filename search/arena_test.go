package search

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestArenaKeepsEveryNotesRows sets and removes notes of 0 to 12 rows at
// random in an arena of 5-row blocks (so notes fill blocks, overflow into
// new ones, and some need a block of their own), compacting as it goes.
// After every step each live note's rows in the arena are its own vectors,
// no block holds more than its notes need, and the semantic scan finds
// each note by its own first vector.
func TestArenaKeepsEveryNotesRows(t *testing.T) {
	defer func(b, c int) { arenaBlock, compactMin = b, c }(arenaBlock, compactMin)
	const dims = 4
	arenaBlock, compactMin = 5*dims, 6
	r := rand.New(rand.NewSource(16))
	vs := newVectors("test", dims)
	sawOwnBlock, compacted, spans := false, 0, 0
	own := map[string][]float32{} // each note's rows: its vectors, quantized
	for step := 0; step < 3000; step++ {
		p := fmt.Sprintf("n%d.md", r.Intn(40))
		if r.Intn(4) == 0 {
			vs.remove(p)
			delete(own, p)
		} else {
			rows := r.Intn(13)
			vecs := make([][]float32, rows)
			for i := range vecs {
				vecs[i] = randomUnit(r, dims)
			}
			chunks := make([]Chunk, rows)
			vs.put(p, fmt.Sprint(step), chunks, vecs, &docMeta{Version: fmt.Sprint(step), scope: 0})
			scale, q := quantize(vecs, dims)
			own[p] = make([]float32, rows*dims)
			dequantize(own[p], scale, q, dims)
		}
		if len(vs.spans) < spans { // spans only shrink in a compaction
			compacted++
		}
		spans = len(vs.spans)
		live := 0
		for path, n := range vs.notes {
			sp := vs.spans[n.span]
			if sp.note != n || int(sp.rows) != len(n.chunks) {
				t.Fatalf("step %d: %s: span %+v", step, path, sp)
			}
			live += len(n.chunks)
			if sp.rows > 0 && !slices.Equal(vs.arena.at(sp.block, sp.start, sp.rows), own[path]) {
				t.Fatalf("step %d: %s: rows in the arena are not its vectors", step, path)
			}
			if len(n.chunks) > 5 {
				sawOwnBlock = true
			}
		}
		if vs.arena.rows-vs.dead != live {
			t.Fatalf("step %d: arena counts %d rows, %d dead, for %d live", step, vs.arena.rows, vs.dead, live)
		}
		for i, b := range vs.arena.blocks {
			if cap(b) > arenaBlock && len(b) != cap(b) {
				t.Fatalf("step %d: block %d: %d floats of %d used, past the block size %d", step, i, len(b), cap(b), arenaBlock)
			}
		}
	}
	if !sawOwnBlock || compacted == 0 || len(vs.arena.blocks) < 3 {
		t.Fatalf("the walk missed a case: own block %v, compactions %d, blocks %d", sawOwnBlock, compacted, len(vs.arena.blocks))
	}
	// The scan's score of each note is its best row against the query, as
	// computed here from the note's own vectors.
	f := vfilter{scopeOK: []bool{true}, only: true}
	q := randomUnit(r, dims)
	hits, scored := vs.search(q, f, len(vs.notes))
	want := map[string]float64{}
	for path, n := range vs.notes {
		rows := own[path]
		for i := 0; i < len(n.chunks); i++ {
			s := float64(dot(q, rows[i*dims:(i+1)*dims]))
			if best, ok := want[path]; !ok || s > best {
				want[path] = s
			}
		}
	}
	if len(hits) != len(want) || scored != len(want) {
		t.Fatalf("%d hits, %d scored, want %d notes with rows", len(hits), scored, len(want))
	}
	for _, h := range hits {
		if w, ok := want[h.Path]; !ok || w != h.Sim {
			t.Fatalf("%s scored %v, want %v", h.Path, h.Sim, w)
		}
	}
}
