package search

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scanCorpus has every text field the index knows, in both languages,
// and words repeated, so that frequencies, lengths and coordination vary.
var scanCorpus = []*Doc{
	{Path: "acme/decisions/cdn.md", Title: "Decision CDN provider", Aliases: []string{"CDN choice"}, Scope: "p:acme", Tags: []string{"infra", "decision"}, Type: "decision",
		Body: "We chose Bunny as our content delivery network after comparing latency and price. Bunny's price was the lowest; latency was fine.", Date: day("2026-05-10")},
	{Path: "acme/ecole.md", Title: "Partenariat avec l'école", Scope: "p:acme", Tags: []string{"partners"}, Type: "note",
		Body: "Nous travaillons avec une école d'ingénieurs de Lyon pour les stages. Les écoles de Lyon appellent chaque printemps.", Date: day("2026-03-01")},
	{Path: "acme/cats.md", Title: "Office pets", Scope: "p:acme", Meta: []string{"Camille"},
		Body: "The cat sat on the mat near the kitchen. Everyone likes the kitten, and the kitten likes the cat.", Date: day("2026-06-01")},
	{Path: "acme/meetings/Meeting 12.md", Title: "Meeting 12", Scope: "p:acme", Context: "The previous meeting chose the CDN.",
		Body: "# Meeting 12\n\nWe reviewed the provider contract and the delivery dates. The decision on pricing waits.", Date: day("2026-07-02")},
	{Path: "secret/salaries.md", Title: "Salaries decision", Scope: "p:secret", Type: "decision",
		Body: "Decision: salaries rise by four percent. The decision is final, and hiring happily resumes.", Date: day("2026-05-12")},
	{Path: "people/ann/profile.md", Title: "Profile", Scope: "u:ann",
		Body: "Ann prefers short answers and works on the CDN migration; she is happy with the durability of the new provider.", Date: day("2026-01-01")},
}

var scanScopes = []string{"p:acme", "p:secret", "u:ann"}

// A note the index does not hold, scanned and analysed, scores exactly as
// Bleve scores it once indexed: the scan's hits merge with the index's on
// one scale.
func TestScannedNotesScoreAsIndexedOnes(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	if err := ix.Apply(versioned(scanCorpus), nil); err != nil {
		t.Fatal(err)
	}
	sc := &Scanned{byPath: map[string]*scannedDoc{}}
	for _, d := range scanCorpus {
		sd := ix.analyseDoc(d)
		sc.docs = append(sc.docs, sd)
		sc.byPath[d.Path] = sd
	}
	ctx := context.Background()
	f := Filter{Scopes: scanScopes}
	for _, q := range []string{
		"CDN provider", "which CDN did we choose", "école", "ecoles lyon", "appelle", "decision", "infra",
		"Bunny latency price", "kitten cat", "meeting 12", "camille", "happy durability", "salaries decision final", "zzzz",
	} {
		lex, _, err := ix.lexical(ctx, q, f, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		scored, required, err := ix.textQuery(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		scan, err := ix.mergeScanned(ctx, nil, scored, required, 50, sc, ix.bm25Stats())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for _, h := range lex {
			want[h.Path] = h.Score
		}
		if len(scan) != len(lex) {
			t.Errorf("%q: the index finds %v, the scan %v", q, lex, scan)
			continue
		}
		for _, h := range scan {
			w, ok := want[h.Path]
			if !ok || math.Abs(h.Score-w) > 1e-9*math.Abs(w) {
				t.Errorf("%q: %s scores %v scanned, %v indexed", q, h.Path, h.Score, w)
			}
		}
	}
}

// unindexedFiles writes docs' bodies under dir (the path's own words are the
// title's source) and returns a reader of them as the vault reads notes.
func unindexedFiles(t *testing.T, dir string, docs []*Doc) *Unindexed {
	t.Helper()
	byPath := map[string]*Doc{}
	u := &Unindexed{}
	for _, d := range docs {
		full := filepath.Join(dir, filepath.FromSlash(d.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(d.Body), 0o644); err != nil {
			t.Fatal(err)
		}
		byPath[d.Path] = d
		u.Paths = append(u.Paths, d.Path)
	}
	u.Read = func(p string, _ []byte) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	}
	u.Doc = func(p string, data []byte) *Doc {
		d := *byPath[p]
		d.Body = string(data)
		return &d
	}
	return u
}

// A search finds the notes the index does not hold yet, read from their
// files, and merges them with what the index finds; a note outside the
// caller's scopes is never among them, whoever passed it.
func TestSearchFindsNotesNotIndexedYet(t *testing.T) {
	for _, indexed := range []int{0, 3} { // an empty index: the scan's own statistics
		ix, _ := openT(t, t.TempDir(), nil, nil)
		if err := ix.Apply(versioned(scanCorpus[:indexed]), nil); err != nil {
			t.Fatal(err)
		}
		u := unindexedFiles(t, t.TempDir(), scanCorpus[indexed:])
		f := Filter{Scopes: []string{"p:acme", "u:ann"}}
		q := Query{Text: "CDN provider decision", Mode: Lexical, Limit: 10, Filter: f}
		r := scanAndSearch(t, ix, q, u)
		got := strings.Join(paths(r), " ")
		for _, p := range []string{"acme/decisions/cdn.md", "acme/meetings/Meeting 12.md", "people/ann/profile.md"} {
			if !strings.Contains(got, p) {
				t.Errorf("%d indexed: %s is not found: %s", indexed, p, got)
			}
		}
		if strings.Contains(got, "secret/") {
			t.Errorf("%d indexed: a note outside the scopes is found: %s", indexed, got)
		}
		if r.Hits[0].Path != "acme/decisions/cdn.md" || r.Hits[0].Lexical == nil {
			t.Errorf("%d indexed: the note holding every word comes first, with its lexical rank: %+v", indexed, r.Hits[0])
		}
		rep := r.Scan
		if rep == nil || rep.Notes != len(scanCorpus)-indexed || rep.Read != rep.Notes || rep.Cut || rep.Matched < 2 || rep.Found < 2 {
			t.Errorf("%d indexed: the scan's report: %+v", indexed, rep)
		}
		ix.Close()
	}
}

// Filters apply to the notes scanned as to the indexed ones.
func TestScanAppliesTheFilter(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	u := unindexedFiles(t, t.TempDir(), scanCorpus)
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{Scopes: scanScopes, Tags: []string{"Infra"}}, "acme/decisions/cdn.md"},
		{Filter{Scopes: scanScopes, Type: "decision"}, "acme/decisions/cdn.md secret/salaries.md"},
		{Filter{Scopes: scanScopes, PathPrefix: "acme/meetings/"}, "acme/meetings/Meeting 12.md"},
		{Filter{Scopes: scanScopes, After: day("2026-05-11"), Before: day("2026-07-01")}, "secret/salaries.md"},
		{Filter{Scopes: []string{"u:ann"}}, "people/ann/profile.md"},
	} {
		q := Query{Text: "decision provider CDN salaries", Mode: Lexical, Limit: 10, Filter: c.f}
		r := scanAndSearch(t, ix, q, u)
		got := paths(r)
		if strings.Join(got, " ") != c.want && !(len(got) == 2 && got[1]+" "+got[0] == c.want) {
			t.Errorf("%+v: got %v, want %s", c.f, got, c.want)
		}
	}
}

// Every word the analysers turn into a term is seen by the term's
// needles (scanneedle.go): the scan never leaves out a note the index
// would find by it. The words are the sample vault's, the French held-out
// questions', and the stemmers' hard cases.
func TestScanNeedlesSeeEveryWordOfTheirTerm(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	var text strings.Builder
	text.WriteString(`dying lying tying skies ski happiness happy hoping hopping durability possibilities
		flexibility agreed using used trying cries indicateur indicateurs créateurs visualisation
		vivement active actif folle molle chevaux appelle appellent lançons lancement l'école
		d'ingénieurs John's naïve cœur Noël straße ÉCOLE Ecole deuxième électrique électriques
		heureuse heureux généralement finissement finissant`)
	for _, glob := range []string{"../sample-vault/*.md", "../sample-vault/*/*.md", "../sample-vault/*/*/*.md", "../sample-vault/*/*/*/*.md", "../bench/heldout/*.tsv"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text.Write(b)
			text.WriteByte('\n')
		}
	}
	words := strings.FieldsFunc(text.String(), func(r rune) bool { return !isWordRune(r) && r != '\'' && r != '’' })
	if len(words) < 2000 {
		t.Fatalf("only %d words to check", len(words))
	}
	var view scanView
	missed := 0
	for _, w := range words {
		for i, l := range langs {
			for _, term := range ix.analyse(w)[i] {
				sw := scanWord{collapsed: l == "fr"}
				ns := enNeedles(term)
				if l == "fr" {
					ns = frNeedles(term)
				}
				for _, n := range ns {
					sw.needles = append(sw.needles, []byte(n))
				}
				if view.count(newScanMatcher([]scanWord{sw}), "", []byte("x "+w+" y")) == nil {
					missed++
					if missed < 20 {
						t.Errorf("%s: %q (term %q, needles %q) is not seen", l, w, term, ns)
					}
				}
			}
		}
	}
}

// Long notes (waiting in the vault's lane) are scored on their start, and
// a search analyses a bounded amount of text: past it, the report says
// the scan was cut, and the notes analysed are the most promising ones.
func TestScanBoundsTheTextItAnalyses(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	var docs []*Doc
	filler := strings.Repeat("plain filler words ", scanDocBytes/8)
	for i := range 20 {
		body := "The sundew report. " + filler
		if i == 7 {
			body = "The sundew report, sundew and sundew again. " + filler
		}
		docs = append(docs, &Doc{Path: fmt.Sprintf("long/%02d.md", i), Scope: "p:acme", Body: body})
	}
	u := unindexedFiles(t, t.TempDir(), docs)
	q := Query{Text: "sundew", Mode: Lexical, Limit: 10, Filter: Filter{Scopes: []string{"p:acme"}}}
	sc, err := ix.Scan(context.Background(), q, u)
	if err != nil {
		t.Fatal(err)
	}
	if rep := sc.Report; !rep.Cut || rep.Read != 20 || rep.Matched != 20 || rep.Scored == 0 || rep.Scored > ScanAnalysedBytes/scanDocBytes {
		t.Errorf("report %+v: want every note read, at most %d analysed, and the cut said", rep, ScanAnalysedBytes/scanDocBytes)
	}
	if sc.doc("long/07.md") == nil {
		t.Error("the note saying the word most often was not analysed")
	}
	for _, d := range sc.docs {
		if n := len(d.doc.Body); n > scanDocBytes {
			t.Errorf("%s: %d bytes of body analysed", d.doc.Path, n)
		}
	}
}

// scanAndSearch scans u for q, then searches with what the scan read.
func scanAndSearch(t *testing.T, ix *Index, q Query, u *Unindexed) *Result {
	t.Helper()
	sc, err := ix.Scan(context.Background(), q, u)
	if err != nil {
		t.Fatal(err)
	}
	q.Scanned = sc
	r, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
