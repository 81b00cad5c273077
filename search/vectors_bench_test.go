package search

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"testing"
	"time"
)

// benchVectors is n notes of 1 to 6 chunks of 100 random dimensions (3.5
// on average, as bench/corpus notes of ~300 words), all searchable.
func benchVectors(n int) *vectors {
	const dims = 100
	r := rand.New(rand.NewSource(1))
	vs := newVectors("bench", dims)
	for i := 0; i < n; i++ {
		rows := 1 + r.Intn(6)
		vecs := make([][]float32, rows)
		for j := range vecs {
			vecs[j] = randomUnit(r, dims)
		}
		v := fmt.Sprint(i)
		vs.put(fmt.Sprintf("f%d/n%d.md", i%100, i), v, make([]Chunk, rows), vecs, &docMeta{Version: v})
	}
	return vs
}

var benchNotes = []int{10000, 100000}

// The semantic scan of every note (go test ./search -run '^$' -bench VectorScan).
func BenchmarkVectorScan(b *testing.B) {
	for _, n := range benchNotes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			vs := benchVectors(n)
			q := randomUnit(rand.New(rand.NewSource(2)), 100)
			f := vfilter{scopeOK: []bool{true}, only: true}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if hits, _ := vs.search(q, f, 10); len(hits) != 10 {
					b.Fatal(len(hits))
				}
			}
		})
	}
}

// Loading the vector file, as a warm start does.
func BenchmarkLoadVectors(b *testing.B) {
	for _, n := range benchNotes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "vectors.bin")
			vs := benchVectors(n)
			vs.dirty = true
			if err := vs.save(file); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if got, err := loadVectors(file, "bench", 100); err != nil || len(got.notes) != n {
					b.Fatal(err)
				}
			}
		})
	}
}

// randomUnit is a random vector of length 1.
func randomUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var n float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		n += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// Encoding the vector file, as every save does (go test ./search -run '^$'
// -bench EncodeVectors), and the part of it under the lock, which every
// write's Apply waits for (locked-ms).
func BenchmarkEncodeVectors(b *testing.B) {
	for _, n := range benchNotes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			vs := benchVectors(n)
			var locked time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				vs.mu.RLock()
				notes := vs.snapshot()
				vs.mu.RUnlock()
				locked += time.Since(t0)
				var w countingWriter
				if err := writeNotes(&w, vs.model, vs.dims, notes); err != nil || w == 0 {
					b.Fatalf("nothing encoded: %v", err)
				}
			}
			b.ReportMetric(float64(locked.Milliseconds())/float64(b.N), "locked-ms")
		})
	}
}

// countingWriter counts what is written to it, and keeps nothing.
type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}
