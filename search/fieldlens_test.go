package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Every field the lexical query scores has its length kept, and Bleve is
// told about every field the mapping has.
func TestLenFieldsAreTheScoredOnes(t *testing.T) {
	if len(lenFields) != nLenFields {
		t.Fatalf("lenFields has %d fields, nLenFields says %d", len(lenFields), nLenFields)
	}
	for k := range fieldBoost {
		names := []string{k}
		if slices.Contains(textFields, k) {
			names = nil
			for _, l := range langs {
				names = append(names, k+"_"+l)
			}
		}
		for _, n := range names {
			if _, ok := lenSlot[n]; !ok {
				t.Errorf("the query scores %s, whose length is not kept", n)
			}
		}
	}
	im, err := indexMapping()
	if err != nil {
		t.Fatal(err)
	}
	all := mappingFields(im)
	for _, f := range append(slices.Clone(lenFields), fScope, fPath, fDate, fWho, fOp) {
		if !slices.Contains(all, f) {
			t.Errorf("mappingFields misses %s: %v", f, all)
		}
	}
}

// lensCorpus is scanCorpus and notes of many lengths, some of them
// changed or deleted later.
func lensCorpus() []*Doc {
	words := strings.Fields("garden provider latency kitten decision lyon durability contract pricing delivery tomato harvest winter spring network")
	docs := versioned(slices.Clone(scanCorpus))
	for i := range 24 {
		var b strings.Builder
		for j := range 5 + (i*7)%40 {
			b.WriteString(words[(i*3+j*j)%len(words)])
			b.WriteByte(' ')
		}
		docs = append(docs, &Doc{Path: fmt.Sprintf("gen/n%02d.md", i), Title: fmt.Sprintf("Note %s", words[i%len(words)]), Scope: "p:acme",
			Aliases: words[i%5 : i%5+i%3], Tags: words[(i+5)%8 : (i+5)%8+1+i%4], Body: b.String(), Version: "1", Date: day("2026-02-01")})
	}
	return docs
}

// The lengths kept for each note are those Bleve stores in its norms (a
// field's tokens, the values of a field of many values summed).
func TestKeptLengthsAreBlevesNorms(t *testing.T) {
	docs := lensCorpus()
	ix, _ := openT(t, t.TempDir(), nil, load(docs))
	defer ix.Close()
	if err := ix.Apply(docs, nil); err != nil {
		t.Fatal(err)
	}
	r := readerT(t, ix.bleve)
	defer r.Close()
	seen := map[string]bool{}
	for slot, f := range lenFields {
		dict, err := r.FieldDict(f)
		if err != nil {
			t.Fatal(err)
		}
		for de, err := dict.Next(); de != nil || err != nil; de, err = dict.Next() {
			if err != nil {
				t.Fatal(err)
			}
			tfr, err := r.TermFieldReader(context.Background(), []byte(de.Term), f, true, true, false)
			if err != nil {
				t.Fatal(err)
			}
			for d, err := tfr.Next(nil); d != nil || err != nil; d, err = tfr.Next(nil) {
				if err != nil {
					t.Fatal(err)
				}
				id, err := r.ExternalID(d.ID)
				if err != nil {
					t.Fatal(err)
				}
				want := int32(math.Round(1 / (d.Norm * d.Norm)))
				if got := ix.meta[id].Lens[slot]; got != want {
					t.Errorf("%s %s: length %d kept, Bleve's norm says %d", id, f, got, want)
				}
				seen[id+" "+f] = true
			}
			tfr.Close()
		}
		dict.Close()
	}
	multi := 0
	for p, m := range ix.meta {
		for slot, n := range m.Lens {
			if n > 0 && !seen[p+" "+lenFields[slot]] {
				t.Errorf("%s %s: length %d kept, no term in Bleve", p, lenFields[slot], n)
			}
			if (lenFields[slot] == fTags || lenFields[slot] == fAliases+"_en") && n > 1 {
				multi++
			}
		}
	}
	if multi == 0 {
		t.Fatal("no note has a field of many values: the corpus tests nothing of them")
	}
}

// lexScores are the lexical hits of q, by path.
func lexScores(t *testing.T, ix *Index, q string) map[string]float64 {
	t.Helper()
	hits, _, err := ix.lexical(context.Background(), q, Filter{Scopes: scanScopes}, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, h := range hits {
		out[h.Path] = h.Score
	}
	return out
}

// An index kept up to date note by note, in batches of one (a segment
// each, merged as Bleve likes), scores every note exactly as an index
// built in one batch from the same notes does, before and after a
// restart: the lengths of changed and deleted notes are taken back.
func TestLiveIndexScoresAsARebuild(t *testing.T) {
	docs := lensCorpus()
	liveDir := t.TempDir()
	live, _ := openT(t, liveDir, nil, load(docs))
	for _, d := range docs {
		if err := live.Apply([]*Doc{d}, nil); err != nil {
			t.Fatal(err)
		}
	}
	final := map[string]*Doc{}
	for _, d := range docs {
		final[d.Path] = d
	}
	for i, p := range []string{"gen/n03.md", "gen/n07.md", "acme/cats.md"} {
		d := *final[p]
		d.Body = strings.Repeat("the kitten harvest in spring ", 3+i*9)
		d.Version = "2"
		final[p] = &d
		if err := live.Apply([]*Doc{&d}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"gen/n11.md", "gen/n12.md", "secret/salaries.md"} {
		delete(final, p)
		if err := live.Apply(nil, []string{p}); err != nil {
			t.Fatal(err)
		}
	}
	var rest []*Doc
	for _, d := range docs {
		if f := final[d.Path]; f != nil {
			rest = append(rest, f)
		}
	}
	rebuilt, _ := openT(t, t.TempDir(), nil, load(rest))
	defer rebuilt.Close()
	if err := rebuilt.Apply(rest, nil); err != nil {
		t.Fatal(err)
	}
	queries := []string{"kitten harvest", "garden provider latency", "decision", "école lyon", "network spring delivery", "meeting 12", "tomato"}
	compare := func(when string) {
		t.Helper()
		if live.lens != rebuilt.lens {
			t.Errorf("%s: summed lengths %v, a rebuild's %v", when, live.lens, rebuilt.lens)
		}
		for _, q := range queries {
			got, want := lexScores(t, live, q), lexScores(t, rebuilt, q)
			if len(want) == 0 || len(got) != len(want) {
				t.Errorf("%s, %q: %d hits, a rebuild %d", when, q, len(got), len(want))
			}
			for p, w := range want {
				if g, ok := got[p]; !ok || math.Abs(g-w) > 1e-9*w {
					t.Errorf("%s, %q: %s scores %v, in a rebuild %v", when, q, p, g, w)
				}
			}
		}
	}
	compare("live")
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	live, _ = openT(t, liveDir, nil, load(rest))
	defer live.Close()
	if live.Rebuilt() != "" {
		t.Fatalf("reopened: rebuilt (%s)", live.Rebuilt())
	}
	compare("reopened")
}

// A note's lengths go through the manifest as written, and a damaged
// list is refused (the manifest is then damaged: the index is rebuilt).
func TestFieldLensRoundTrip(t *testing.T) {
	for _, l := range []fieldLens{{}, {2, 2, 0, 0, 150, 282}, {12: 1}, {0: math.MaxInt32, 5: 7, 12: 3}} {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var got fieldLens
		if err := json.Unmarshal(b, &got); err != nil || got != l {
			t.Errorf("%v: written %s, read %v (%v)", l, b, got, err)
		}
	}
	for _, bad := range []string{`[1,2]`, `"1 x"`, `"-1"`, `"1  2"`, `" 1"`, `"1 "`, `"1\u00202"`, `"1 2 3 4 5 6 7 8 9 10 11 12 13 14"`, `"99999999999"`, `3`} {
		var got fieldLens
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s: read as %v", bad, got)
		}
	}
}
