package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostileDoc is a document past every bound at once.
func hostileDoc() *Doc {
	var aliases, tags, seq, meta []string
	for i := 0; i < 200; i++ {
		aliases = append(aliases, fmt.Sprintf("alias%d %s", i, strings.Repeat("a", 2000)))
		tags = append(tags, fmt.Sprintf("tag%d", i))
		seq = append(seq, fmt.Sprintf("seq/%d.md", i))
		meta = append(meta, fmt.Sprintf("meta%d %s", i, strings.Repeat("m", 190)))
	}
	tags = append([]string{strings.Repeat("t", 500<<10)}, tags...)
	return &Doc{
		Path: "acme/hostile.md", Version: "1", Scope: "p:acme",
		Title:    "Hostile " + strings.Repeat("title ", 100000),
		Aliases:  aliases,
		Tags:     tags,
		Type:     strings.Repeat("k", 1000),
		Who:      []string{strings.Repeat("w", 1000), "Ann"},
		Meta:     meta,
		Sequence: seq,
		Context:  strings.Repeat("context ", 100000),
		Body:     "banana marker\n\n" + strings.Repeat("y", 2<<20) + "\n\nbeyond the cap\n",
	}
}

// A document past every bound is indexed within them: found by its words
// and by its long word, its short tags usable as filters, the long ones
// not indexed; the caller's document is left as it was.
func TestHostileDocumentIsIndexedWithinBounds(t *testing.T) {
	d := hostileDoc()
	// Its text is too long to wait in the embedding queue: it is read
	// again through Load.
	ix, _ := openT(t, t.TempDir(), builtinT(t), load([]*Doc{d}))
	defer ix.Close()
	before := *d
	done := make(chan error, 1)
	go func() { done <- ix.Apply([]*Doc{d}, nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("indexing one hostile document did not finish in 60 s")
	}
	if d.Body != before.Body || len(d.Tags) != len(before.Tags) || len(d.Sequence) != 200 {
		t.Fatal("Apply changed the caller's document")
	}
	acme := Filter{Scopes: []string{"p:acme"}}
	find := func(q string, f Filter) bool {
		t.Helper()
		r, err := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(paths(r), d.Path)
	}
	for _, q := range []string{"banana", "hostile", "alias5", "meta3", strings.Repeat("y", 300)} {
		if !find(q, acme) {
			t.Errorf("%.40q does not find the document", q)
		}
	}
	if find("beyond", acme) {
		t.Error("text past MaxBodyBytes was indexed")
	}
	if f := (Filter{Scopes: acme.Scopes, Tags: []string{"tag3"}}); !find("banana", f) {
		t.Error("a short tag must filter")
	}
	if f := (Filter{Scopes: acme.Scopes, Tags: []string{"tag100"}}); find("banana", f) {
		t.Errorf("tags past the first %d were indexed", maxKeywords)
	}
	if got := len(ix.Sequence(d.Path)); got != MaxSequence {
		t.Errorf("%d sequence neighbours kept, want %d", got, MaxSequence)
	}
	if !ix.WaitVectors(60 * time.Second) {
		t.Fatal("vectors not made in 60 s")
	}
	ix.vec.mu.RLock()
	n := ix.vec.notes[d.Path]
	ix.vec.mu.RUnlock()
	if n == nil || len(n.chunks) == 0 || len(n.chunks) > maxChunks {
		t.Fatalf("vectors of the hostile document: %+v", n)
	}
}
