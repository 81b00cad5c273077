package search

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var openDocs = flag.Int("open-docs", 10000, "documents in BenchmarkOpenIndex's index")

// BenchmarkOpenIndex times Open alone (no vault, no sync, no vectors) on
// an index of -open-docs documents of about 300 words: after a clean stop
// ("clean"), and as a killed process leaves it, its manifest saved before
// the last 30 updates, which Bleve holds ("crashed"). Both compare Bleve
// with the manifest document by document; scan-ms is that comparison's
// listing of Bleve's documents and their update tokens (heldDocs), timed
// on its own.
//
//	go test ./search -run '^$' -bench OpenIndex -benchtime 5x -open-docs 100000
func BenchmarkOpenIndex(b *testing.B) {
	root := b.TempDir()
	clean, crashed := filepath.Join(root, "clean"), filepath.Join(root, "crashed")
	words := strings.Fields(strings.Repeat("harbour boats north south east west tide gull pier rope sail mast keel deck hull anchor buoy dock crane ", 20))
	doc := func(i, v int) *Doc {
		var body strings.Builder
		for k := 0; k < 300; k++ {
			body.WriteString(words[(i*7+k*13+v)%len(words)])
			body.WriteString(" ")
		}
		fmt.Fprintf(&body, "w%dv%d", i, v)
		return &Doc{Path: fmt.Sprintf("f%03d/n%06d.md", i%100, i), Version: fmt.Sprint(v), Scope: "s", Title: fmt.Sprintf("Note %d", i), Body: body.String()}
	}
	ix, _ := openT(b, crashed, nil, nil)
	for i := 0; i < *openDocs; i += batchSize {
		var docs []*Doc
		for k := i; k < min(i+batchSize, *openDocs); k++ {
			docs = append(docs, doc(k, 1))
		}
		if err := ix.Apply(docs, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.Persist(); err != nil {
		b.Fatal(err)
	}
	for k := 0; k < 30; k++ {
		if err := ix.Apply([]*Doc{doc(k*97%*openDocs, 2)}, nil); err != nil {
			b.Fatal(err)
		}
	}
	crash(b, ix)
	copyDir(b, crashed, clean)
	ix, _ = openT(b, clean, nil, nil)
	for k := 0; k < 30; k++ { // what the vault's sync does: as a clean stop leaves it
		if err := ix.Apply([]*Doc{doc(k*97%*openDocs, 2)}, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	for _, state := range []string{"clean", "crashed"} {
		dir := filepath.Join(root, state)
		b.Run(state, func(b *testing.B) {
			var scan time.Duration
			out := 0
			for i := 0; i < b.N; i++ {
				ix, err := Open(dir, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if ix.Rebuilt() != "" {
					b.Fatalf("rebuilt: %s", ix.Rebuilt())
				}
				out = ix.Reconciled()
				t := time.Now()
				if _, _, err := heldDocs(ix.bleve); err != nil {
					b.Fatal(err)
				}
				scan += time.Since(t)
				ix.Discard() // nothing saved: the next iteration opens the same state
				b.StartTimer()
			}
			b.ReportMetric(float64(scan.Milliseconds())/float64(b.N), "scan-ms")
			b.ReportMetric(float64(out), "out-of-step-docs")
		})
	}
}
