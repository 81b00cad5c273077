package search

import (
	"context"
	"errors"
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

// While a large document is being analysed, other updates and searches
// go on: ApplyLarge holds no lock they take. The test holds the analysis
// at its start (largeHook) until they are done; if they waited for it,
// they would never finish.
func TestLargeDocumentHoldsNothingUp(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), builtinT(t), nil)
	defer ix.Close()
	started, release := make(chan struct{}), make(chan struct{})
	largeHook = func(string) {
		close(started)
		<-release
	}
	defer func() { largeHook = nil }()
	big := &Doc{Path: "acme/big.md", Version: "1", Scope: "p:acme", Title: "Big", Body: strings.Repeat("mango words ", 50000)}
	largeDone := make(chan error, 1)
	go func() { largeDone <- ix.ApplyLarge(big) }()
	<-started
	others := make(chan error, 1)
	go func() {
		if err := ix.Apply(versioned(corpus), nil); err != nil {
			others <- err
			return
		}
		r, err := ix.Search(context.Background(), Query{Text: "kitten", Filter: Filter{Scopes: []string{"p:acme"}}})
		if err == nil && (len(r.Hits) == 0 || r.Hits[0].Path != "acme/cats.md") {
			err = fmt.Errorf("kitten: %v", paths(r))
		}
		if err == nil {
			err = ix.Persist()
		}
		others <- err
	}()
	select {
	case err := <-others:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("an update, a search or a save waited for a large document's analysis")
	}
	close(release)
	if err := <-largeDone; err != nil {
		t.Fatal(err)
	}
	r, _ := ix.Search(context.Background(), Query{Text: "mango", Mode: Lexical, Filter: Filter{Scopes: []string{"p:acme"}}})
	if len(r.Hits) != 1 || r.Hits[0].Path != big.Path || ix.Version(big.Path) != "1" {
		t.Fatalf("the large document once indexed: %v", paths(r))
	}
}

// Close waits for an update in flight and refuses later ones; the index
// reopens with everything that was applied.
func TestCloseWaitsForUpdatesInFlightAndRefusesLaterOnes(t *testing.T) {
	dir := t.TempDir()
	ix, _ := openT(t, dir, nil, nil)
	started, release := make(chan struct{}), make(chan struct{})
	largeHook = func(string) {
		close(started)
		<-release
	}
	defer func() { largeHook = nil }()
	large := make(chan error, 1)
	go func() {
		large <- ix.ApplyLarge(&Doc{Path: "a/big.md", Version: "1", Scope: "s", Title: "Big", Body: "papaya"})
	}()
	<-started
	closed := make(chan error, 1)
	go func() { closed <- ix.Close() }()
	for !ix.closed.Load() {
		time.Sleep(time.Millisecond) // Close has begun; the update is still held
	}
	close(release)
	if err := <-large; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply([]*Doc{{Path: "a/late.md", Version: "1", Scope: "s", Body: "late"}}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("an update after Close: %v", err)
	}
	ix, _ = openT(t, dir, nil, nil)
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Version("a/big.md") != "1" {
		t.Fatalf("reopened: rebuilt %q, big at version %q", ix.Rebuilt(), ix.Version("a/big.md"))
	}
}

// A snippet of a long body made of the query's word costs a bounded scan
// (the window search grew with the square of the matches: seconds per hit
// at 1 MiB), and the scan stops after maxAnalysed words that start like a
// query word.
func TestSnippetScanIsBounded(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	done := make(chan string, 1)
	go func() { done <- ix.Snippet(strings.Repeat("banana ", 150000), "banana", nil) }()
	select {
	case s := <-done:
		if !strings.Contains(s, "**banana**") {
			t.Fatalf("snippet %q", s)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("a snippet of a 1 MiB body did not finish in 60 s")
	}
	near := strings.Repeat("bazooka ", maxAnalysed-1) + "banana"
	if ix.FirstMatch(near, "banana") < 0 {
		t.Error("a match within the scan's bound is found")
	}
	far := strings.Repeat("bazooka ", maxAnalysed) + "banana"
	if ix.FirstMatch(far, "banana") >= 0 {
		t.Error("the scan looks past maxAnalysed words")
	}
}
