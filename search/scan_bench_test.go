package search

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkScan is one search's scan of notes the index does not hold,
// as during a fresh clone's first build: the held-out web passages as
// notes read from memory (as a serve keeps the texts for those
// searches), an index holding none of them, four queries in turn. Each
// op is one Scan: every note read and looked at, the most promising
// analysed.
// go test ./search -run '^$' -bench 'Scan$' -benchmem
func BenchmarkScan(b *testing.B) {
	texts := webTexts(b)
	docs := map[string]*Doc{}
	byPath := map[string]string{}
	u := &Unindexed{}
	for i, text := range texts {
		title, _, _ := strings.Cut(text, ".")
		p := fmt.Sprintf("web/%04d.md", i)
		docs[p] = &Doc{Path: p, Title: title, Scope: "root"}
		byPath[p] = text
		u.Paths = append(u.Paths, p)
	}
	u.Read = func(p string, buf []byte) ([]byte, error) { return append(buf[:0], byPath[p]...), nil }
	u.Doc = func(p string, data []byte) *Doc {
		d := *docs[p]
		d.Body = string(data)
		return &d
	}
	ix, _ := openT(b, b.TempDir(), nil, nil)
	defer ix.Close()
	queries := []string{
		"what did the city council decide about the budget",
		"history of the railway station",
		"climate change effects on agriculture",
		"who won the championship final",
	}
	b.ResetTimer()
	for i := range b.N {
		q := Query{Text: queries[i%len(queries)], Mode: Lexical, Limit: 10, Filter: Filter{Scopes: []string{"root"}}}
		sc, err := ix.Scan(context.Background(), q, u)
		if err != nil {
			b.Fatal(err)
		}
		if sc.Report.Scored == 0 {
			b.Fatalf("%q: nothing scored (%+v)", q.Text, sc.Report)
		}
	}
}
