package search

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// pairDocs are documents whose text fields reach every case of the
// pairing: real prose (web passages, the sample vault's notes), the
// analysis's corner texts, aliases and meta values in arrays (some sharing
// terms), a title equal to the context, texts in no language's ASCII
// (accents, ideographs).
func pairDocs(t *testing.T) []*Doc {
	texts := append(cacheTexts(t), webTexts(t)[:400]...)
	docs := make([]*Doc, len(texts))
	for i, text := range texts {
		prev := texts[(i+len(texts)-1)%len(texts)]
		d := &Doc{Path: fmt.Sprintf("n/%04d.md", i), Version: "1", Title: fmt.Sprintf("Note %d %.30s", i, prev),
			Body: text, Scope: "root", Date: time.Unix(int64(i), 0), Tags: []string{"t"}}
		switch i % 4 {
		case 0:
			d.Aliases = []string{"Réunion d'été", "L'été", strings.ToUpper(prev[:min(len(prev), 20)])}
		case 1:
			d.Meta = []string{"Caroline", "Lançons la réunion", ""}
			d.Context = prev
		case 2:
			d.Context = d.Title // the same text in two fields of a language
		case 3:
			// Values of one field sharing terms: Bleve adds each later
			// value's counts to the first value's frequency objects.
			d.Aliases = []string{"Budget review", "Budget reviews 2024", "review"}
		}
		docs[i] = d
	}
	return docs
}

// fieldView is what the index takes of an analysed field, whose value
// was mapped as value.
func fieldView(f document.Field, value string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v %v %c %q plain=%d len=%d\n", f.Name(), f.ArrayPositions(), f.Options(), f.EncodedFieldType(), value, f.NumPlainTextBytes(), f.AnalyzedLength())
	freqs := f.AnalyzedTokenFrequencies()
	for _, term := range slices.Sorted(maps.Keys(freqs)) {
		tf := freqs[term]
		// The term is the map's key; a frequency object shared between
		// fields (sharedCounts) holds none of its own.
		if tf.Term != nil && string(tf.Term) != term {
			fmt.Fprintf(&b, "  %q holds the term %q\n", term, tf.Term)
		}
		fmt.Fprintf(&b, "  %q %d %d\n", term, tf.Frequency(), len(tf.Locations))
	}
	return b.String()
}

// docView is a document as Bleve's scorch analyses it: every indexed
// field, then the composite fields.
func docView(doc *document.Document) string {
	values := map[document.Field]string{} // as mapped: Bleve's filters lower-case a text in place
	for _, f := range doc.Fields {
		values[f] = string(f.Value())
	}
	doc.VisitFields(func(f index.Field) {
		if f.Options().IsIndexed() {
			f.Analyze()
		}
	})
	var fields []string // in the order of the names: a map's fields come in any order
	for _, f := range doc.Fields {
		fields = append(fields, fieldView(f, values[f]))
	}
	for _, f := range doc.CompositeFields {
		fields = append(fields, fieldView(f, ""))
	}
	slices.Sort(fields)
	return strings.Join(fields, "")
}

// Every field of a paired document is, once analysed, what Bleve's own
// mapping and TextField give: the same fields in the same order, names,
// places, options, values, lengths, and terms with their counts. With
// word caches so small that words keep taking each other's places.
func TestPairedFieldsEqualBleves(t *testing.T) {
	im, err := indexMapping()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		im.AnalyzerNamed(langAnalyzer[l]).(*wordAnalyzer).words = newWordCache(5)
	}
	paired := 0
	for round := range 2 {
		for _, d := range pairDocs(t) {
			data := bleveDocAt(d, 7)
			ref := document.NewDocument(d.Path)
			if err := im.MapDocument(ref, data); err != nil {
				t.Fatal(err)
			}
			got, err := mapDoc(im, d.Path, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range got.Fields {
				if _, ok := f.(*wordField); ok {
					paired++
				}
			}
			if g, w := docView(got), docView(ref); g != w {
				t.Fatalf("round %d, %s:\npaired:\n%s\nBleve:\n%s", round, d.Path, g, w)
			}
		}
	}
	if paired == 0 {
		t.Fatal("no field was paired")
	}
}

// An index built from paired documents answers as one built by
// Batch.Index: the same hits with the same scores. Both are scorch
// indexes, as the vault's is (bleve.NewMemOnly is upside_down, which
// reads a frequency object's term where scorch reads the map's key).
func TestPairedIndexAnswersAsBleves(t *testing.T) {
	docs := pairDocs(t)
	build := func(paired bool) bleve.Index {
		im, err := indexMapping()
		if err != nil {
			t.Fatal(err)
		}
		b, err := bleve.NewUsing(t.TempDir(), im, scorch.Name, scorch.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		batch := b.NewBatch()
		for _, d := range docs {
			if paired {
				doc, err := mapDoc(b.Mapping(), d.Path, bleveDocAt(d, 1))
				if err == nil {
					err = batch.IndexAdvanced(doc)
				}
				if err != nil {
					t.Fatal(err)
				}
			} else if err := batch.Index(d.Path, bleveDocAt(d, 1)); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Batch(batch); err != nil {
			t.Fatal(err)
		}
		return b
	}
	ref, got := build(false), build(true)
	for _, q := range []string{"archive tar format", "réunion d'été", "lançons", "the dog's bones", "electrique", "東京", "2024", "package implements", "note 12 caroline"} {
		for _, l := range langs {
			for _, field := range []string{fBody, fTitle, fAliases, fMeta, fContext} {
				mq := bleve.NewMatchQuery(q)
				mq.SetField(field + "_" + l)
				req := bleve.NewSearchRequestOptions(mq, len(docs), 0, false)
				a, err := ref.Search(req)
				if err != nil {
					t.Fatal(err)
				}
				b, err := got.Search(req)
				if err != nil {
					t.Fatal(err)
				}
				if hitsView(a) != hitsView(b) {
					t.Fatalf("%q in %s_%s:\npaired:\n%s\nBleve:\n%s", q, field, l, hitsView(b), hitsView(a))
				}
			}
		}
	}
}

// An Index applying the documents a few at a time (Apply: paired
// fields, a segment per batch, merges) holds what Bleve's Batch.Index of
// them all holds: in every text field, the same terms, each in the same
// documents with the same count and norm. No term or count of one
// document reaches another's fields, and none is dropped. (Scores are not
// compared: over the same postings they differ between the two kinds of
// index, and with how the documents were cut into segments.)
func TestAppliedBatchesIndexAsBleves(t *testing.T) {
	docs := pairDocs(t)
	im, err := indexMapping()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := bleve.NewUsing(t.TempDir(), im, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	batch := ref.NewBatch()
	for _, d := range docs {
		if err := batch.Index(d.Path, bleveDocAt(d, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ref.Batch(batch); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, base := range textFields {
		for _, l := range langs {
			fields = append(fields, base+"_"+l)
		}
	}
	want := postingsOf(t, ref, fields, true)
	if !strings.Contains(want, " body_en:") || !strings.Contains(want, " aliases_fr:") {
		t.Fatal("Bleve's index holds no body or alias term")
	}
	t.Run("batches", func(t *testing.T) {
		ix, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		for i := 0; i < len(docs); i += 7 {
			if err := ix.Apply(docs[i:min(i+7, len(docs))], nil); err != nil {
				t.Fatal(err)
			}
		}
		samePostings(t, want, postingsOf(t, ix.bleve, fields, true))
	})
	// As a build applies them: each step prepared (mapped and analysed)
	// while the one before is not yet applied.
	t.Run("prepared steps", func(t *testing.T) {
		ix, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		var prev *Prepared
		for i := 0; i < len(docs); i += 7 {
			st, err := ix.Prepare(docs[i:min(i+7, len(docs))])
			if err != nil {
				t.Fatal(err)
			}
			if prev != nil {
				if err := ix.ApplyPrepared(prev); err != nil {
					t.Fatal(err)
				}
			}
			prev = st
		}
		if err := ix.ApplyPrepared(prev); err != nil {
			t.Fatal(err)
		}
		samePostings(t, want, postingsOf(t, ix.bleve, fields, true))
	})
}

// samePostings fails t where got, postingsOf an index, differs from want,
// Bleve's own.
func samePostings(t *testing.T, want, got string) {
	t.Helper()
	for i := range sharedCounts {
		if f := &sharedCounts[i]; f.Frequency() != i+1 || f.Term != nil || f.Locations != nil {
			t.Fatalf("the shared frequency object of count %d was changed: %+v", i+1, *f)
		}
	}
	if got != want {
		g, w := strings.Fields(got), strings.Fields(want)
		doc := ""
		for i := range min(len(g), len(w)) {
			if !strings.Contains(w[i], ":") {
				doc = w[i]
			}
			if g[i] != w[i] {
				t.Fatalf("in %s, the index holds %s, Bleve %s", doc, g[i], w[i])
			}
		}
		t.Fatalf("the index's lists hold %d documents and terms, Bleve's %d", len(g), len(w))
	}
}

// hitsView is every hit with its score, those of the same score by id: a
// scorch index orders ties by the place a batch gave each document.
func hitsView(r *bleve.SearchResult) string {
	hits := slices.Clone(r.Hits)
	slices.SortStableFunc(hits, func(a, b *bsearch.DocumentMatch) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.ID, b.ID)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d hits\n", r.Total)
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %.9g\n", h.ID, h.Score)
	}
	return b.String()
}

// BenchmarkAnalyzeDocs maps and analyses the held-out web passages as a
// build does each document: by Bleve's mapping and TextField, each
// field in each language by the analyser's chain of filters ("bleve"),
// or with the fields paired (what the index does).
// go test ./search -run '^$' -bench AnalyzeDocs -benchmem
func BenchmarkAnalyzeDocs(b *testing.B) {
	texts := webTexts(b)
	docs := make([]map[string]any, len(texts))
	size := 0
	for i, text := range texts {
		title, _, _ := strings.Cut(text, ".")
		docs[i] = bleveDocAt(&Doc{Path: fmt.Sprintf("n/%04d.md", i), Title: title, Body: text, Scope: "root", Date: time.Unix(int64(i), 0)}, 1)
		size += len(text) + len(title)
	}
	im, err := indexMapping()
	if err != nil {
		b.Fatal(err)
	}
	chains := map[string]*analysis.DefaultAnalyzer{}
	for _, l := range langs {
		chains[langAnalyzer[l]] = im.AnalyzerNamed(langAnalyzer[l]).(*wordAnalyzer).chain
	}
	run := func(b *testing.B, mapDoc func(i int) *document.Document) {
		b.SetBytes(int64(size))
		for range b.N {
			for i := range docs {
				mapDoc(i).VisitFields(func(f index.Field) {
					if f.Options().IsIndexed() {
						f.Analyze()
					}
				})
			}
		}
	}
	b.Run("bleve", func(b *testing.B) {
		run(b, func(i int) *document.Document {
			doc := document.NewDocument("x")
			if err := im.MapDocument(doc, docs[i]); err != nil {
				b.Fatal(err)
			}
			for j, f := range doc.Fields {
				if tf, ok := f.(*document.TextField); ok {
					if c := chains[analyzerName(tf)]; c != nil {
						doc.Fields[j] = document.NewTextFieldCustom(tf.Name(), tf.ArrayPositions(), tf.Value(), tf.Options(), c)
					}
				}
			}
			return doc
		})
	})
	b.Run("paired", func(b *testing.B) {
		run(b, func(i int) *document.Document {
			doc, err := mapDoc(im, "x", docs[i])
			if err != nil {
				b.Fatal(err)
			}
			return doc
		})
	})
}

// analyzerName is the name of the analyser of a language's text field.
func analyzerName(f *document.TextField) string {
	for _, l := range langs {
		if strings.HasSuffix(f.Name(), "_"+l) {
			return langAnalyzer[l]
		}
	}
	return ""
}

// An index built before the word analysers (the same format, its two
// languages' analysers Bleve's "custom" chains) is kept, not rebuilt, and
// what is written into it later is analysed by its own chains, unpaired:
// it still finds a word by its stem and a French verb by its noun.
func TestIndexOfTheChainAnalysersIsKept(t *testing.T) {
	dir := t.TempDir()
	m0, err := indexMapping()
	if err != nil {
		t.Fatal(err)
	}
	im := m0.(*mapping.IndexMappingImpl)
	for _, name := range []string{analyzerEN, analyzerFR} {
		im.CustomAnalysis.Analyzers[name]["type"] = custom.Name
	}
	b, err := bleve.New(filepath.Join(dir, "bleve"), im) // each batch on disk before it returns
	if err != nil {
		t.Fatal(err)
	}
	old := &Doc{Path: "w/launch.md", Version: "1", Scope: "s", Title: "Launch", Body: "Nous lançons d'abord auprès de vingt clients pilotes."}
	if err := b.Index(old.Path, bleveDocAt(old, 1)); err != nil {
		t.Fatal(err)
	}
	if err := b.SetInternal([]byte(seqKey), []byte("1")); err != nil {
		t.Fatal(err)
	}
	b.Close()
	m, _ := json.Marshal(map[string]any{"format": manifestFormat, "seq": 1, "docs": map[string]any{old.Path: map[string]any{"v": "1", "s": "s", "a": 1}}})
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), m, 0o644); err != nil {
		t.Fatal(err)
	}

	ix, lb := openT(t, dir, nil, nil)
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Len() != 1 {
		t.Fatalf("rebuilt %q with %d documents; log %q", ix.Rebuilt(), ix.Len(), lb)
	}
	if _, ok := ix.bleve.Mapping().AnalyzerNamed(analyzerFR).(*wordAnalyzer); ok {
		t.Fatal("the kept index analyses with word analysers its mapping does not name")
	}
	added := &Doc{Path: "w/cats.md", Version: "1", Scope: "s", Title: "Cats", Body: "The cats' toys were running everywhere."}
	if err := ix.Apply([]*Doc{added}, nil); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"pilotes": old.Path, "lancement": old.Path, "run toy": added.Path} {
		r, err := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
		if err != nil || len(r.Hits) != 1 || r.Hits[0].Path != want {
			t.Fatalf("%q: %+v, %v; want %s; log %q, reconciled %d", q, r, err, want, lb, ix.reconciled)
		}
	}
}
