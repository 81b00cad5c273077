package search

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A step prepared and never applied (a build that stops early drops the
// step it read ahead) leaves the index as it was: no document, no
// manifest entry, nothing found; the steps applied around it are whole.
// A step too large for one batch is refused, naming its size.
func TestAStepPreparedAndDroppedChangesNothing(t *testing.T) {
	dir := t.TempDir()
	ix, _ := openT(t, dir, nil, nil)
	docs := versioned(corpus)
	first, err := ix.Prepare(docs[:2])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Prepare(docs[2:4]); err != nil { // read ahead, then dropped
		t.Fatal(err)
	}
	last, err := ix.Prepare(docs[4:])
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Prepared{first, last} {
		if err := ix.ApplyPrepared(st); err != nil {
			t.Fatal(err)
		}
	}
	found := func(ix *Index, query string) string {
		r, err := ix.Search(context.Background(), Query{Text: query, Mode: Lexical, Filter: Filter{Scopes: []string{"p:acme", "p:secret", "u:ann"}}})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, h := range r.Hits {
			paths = append(paths, h.Path)
		}
		return strings.Join(paths, " ")
	}
	check := func(ix *Index) {
		t.Helper()
		if ix.Len() != 3 || ix.Version("acme/cats.md") != "" || ix.Version("secret/salaries.md") != "" || ix.Version("people/ann/profile.md") != "1" {
			t.Fatalf("the index holds %d notes (%v); want the first and last steps' 3", ix.Len(), ix.Versions())
		}
		if got := found(ix, "kitten salaries"); got != "" {
			t.Fatalf("the dropped step's notes are found: %s", got)
		}
		if got := found(ix, "école"); got != "acme/ecole.md" {
			t.Fatalf("the first step's note: found %q", got)
		}
		if got := found(ix, "migration"); got != "people/ann/profile.md" {
			t.Fatalf("the last step's note: found %q", got)
		}
	}
	check(ix)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, _ = openT(t, dir, nil, nil)
	defer ix.Close()
	check(ix) // and so after a restart: nothing to reconcile

	big := make([]*Doc, batchSize+1)
	for i := range big {
		big[i] = &Doc{Path: fmt.Sprintf("n/%d.md", i), Version: "1", Scope: "root", Body: "x"}
	}
	if _, err := ix.Prepare(big); err == nil || !strings.Contains(err.Error(), fmt.Sprint(batchSize+1)) {
		t.Fatalf("a step of %d documents: %v", len(big), err)
	}
}
