package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"golang.org/x/text/unicode/norm"
)

// The words of issue 15 that were not found without their accents (four
// letters or fewer, or ë, ï, œ), each with its plain spelling.
var accentPairs = [][2]string{
	{"café", "cafe"}, {"été", "ete"}, {"près", "pres"}, {"août", "aout"},
	{"Noël", "Noel"}, {"maïs", "mais"}, {"cœur", "coeur"}, {"œufs", "oeufs"},
	{"électeurs", "electeurs"},
}

// accentCorpus holds each word twice: once with its accents, once
// without (as a note typed on a keyboard without them), in sentences
// that share nothing else with the other words.
func accentCorpus() []*Doc {
	var docs []*Doc
	for i, p := range accentPairs {
		for j, w := range p {
			docs = append(docs, &Doc{Path: fmt.Sprintf("w/%d-%d.md", i, j), Version: "1", Scope: "s",
				Title: fmt.Sprintf("Carnet %d", 2*i+j), Body: "Aujourd'hui : " + w + "."})
		}
	}
	return docs
}

// Every word is found with and without its accents, by a query with or
// without them: both notes, before any other.
func TestAccentsFoldForEveryWord(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	if err := ix.Apply(accentCorpus(), nil); err != nil {
		t.Fatal(err)
	}
	for i, p := range accentPairs {
		want := []string{fmt.Sprintf("w/%d-0.md", i), fmt.Sprintf("w/%d-1.md", i)}
		for _, q := range []string{p[0], p[1], strings.ToUpper(p[0])} {
			r, err := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
			if err != nil {
				t.Fatal(err)
			}
			got := paths(r)
			if len(got) < 2 || !slices.Contains(got[:2], want[0]) || !slices.Contains(got[:2], want[1]) {
				t.Errorf("%q: got %v, want %v first", q, got, want)
			}
		}
	}
}

// Folding does not make unrelated words meet: électeur (voter) and
// électrique (electric) stay apart, with accents or without, singular or
// plural, while each still finds its own forms.
func TestVotersAreNotElectric(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	docs := []*Doc{
		{Path: "electeurs.md", Title: "Bureau de vote", Body: "Les électeurs votent dimanche.", Scope: "s"},
		{Path: "chauffage.md", Title: "Chauffage", Body: "Le chauffage électrique de la maison.", Scope: "s"},
		{Path: "voiture.md", Title: "Voiture", Body: "Deux voitures électriques, rechargées électriquement.", Scope: "s"},
	}
	if err := ix.Apply(versioned(docs), nil); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"électeur": "electeurs.md", "electeur": "electeurs.md", "Électeurs": "electeurs.md",
		"électrique": "chauffage.md voiture.md", "electriques": "chauffage.md voiture.md", "électriquement": "chauffage.md voiture.md",
	}
	for q, want := range cases {
		r, err := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
		if err != nil {
			t.Fatal(err)
		}
		got := paths(r)
		slices.Sort(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%q: got %v, want %s", q, got, want)
		}
	}
}

// A verb's forms find each other: the seed's capture "Nous lançons…"
// is found by "lancement", "lancer", "lancé" and "lançons", with accents
// or without, while a plural in -ons still finds its singular and the
// singular its plural.
func TestAVerbsFormsFindEachOther(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	docs := []*Doc{
		{Path: "pilotes.md", Title: "Pilotes", Body: "Nous lançons d'abord auprès de vingt clients pilotes.", Scope: "s"},
		{Path: "maisons.md", Title: "Quartier", Body: "Trois maisons neuves au bout de la rue.", Scope: "s"},
		{Path: "maison.md", Title: "Achat", Body: "Une maison ancienne à rénover.", Scope: "s"},
		{Path: "autre.md", Title: "Budget", Body: "Le budget du trimestre est fixé.", Scope: "s"},
	}
	if err := ix.Apply(versioned(docs), nil); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"lancement": "pilotes.md", "lancer": "pilotes.md", "lancé": "pilotes.md", "lance": "pilotes.md",
		"lançons": "pilotes.md", "lancons": "pilotes.md",
		"maison": "maison.md maisons.md", "maisons": "maison.md maisons.md",
	} {
		r, err := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
		if err != nil {
			t.Fatal(err)
		}
		got := paths(r)
		slices.Sort(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%q: got %v, want %s", q, got, want)
		}
	}
}

// The analysis of a text is the analysis of its folded text: terms and
// positions alike, over every note of the sample vault (English and
// French) and the words, in both languages. A query typed
// without accents is therefore the same query. The one exception is by
// design: a word whose folded form is a stop word and which is not one
// itself ("maïs", maize, folds to "mais", but) is kept.
func TestAnalysisIsThatOfTheFoldedText(t *testing.T) {
	texts := sampleTexts(t)
	var words []string
	for _, p := range accentPairs {
		words = append(words, p[0])
	}
	texts = append(texts, strings.Join(words, " ")+" deuxième PREMIÈRE fière complète l'été qu'où Straße æther e\u0301te\u0301 à maïs")
	im, err := indexMapping()
	if err != nil {
		t.Fatal(err)
	}
	stops := map[string]map[string]bool{"en": {}, "fr": {}}
	tm := analysis.NewTokenMap()
	tm.LoadBytes(en.EnglishStopWords)
	for w := range tm {
		stops["en"][w] = true
	}
	for _, w := range stopListFR() {
		stops["fr"][w.(string)] = true
	}
	for _, l := range langs {
		a := im.AnalyzerNamed(langAnalyzer[l])
		for _, text := range texts {
			folded := foldWords(text, stops[l])
			want, got := a.Analyze([]byte(folded)), a.Analyze([]byte(text))
			if len(want) != len(got) {
				t.Fatalf("%s: %d tokens, %d for the folded text, in %.60q", l, len(got), len(want), text)
			}
			for i := range want {
				if string(want[i].Term) != string(got[i].Term) || want[i].Position != got[i].Position {
					t.Fatalf("%s: token %d is %q@%d, %q@%d in the folded text", l, i, got[i].Term, got[i].Position, want[i].Term, want[i].Position)
				}
			}
		}
	}
}

// foldWords folds each word of text but those whose folded form alone is
// a stop word (after a French elision too).
func foldWords(text string, stops map[string]bool) string {
	var it norm.Iter
	var b strings.Builder
	last := 0
	isStop := func(w string) bool {
		w = strings.ToLower(w)
		if _, rest, ok := strings.Cut(strings.ReplaceAll(w, "’", "'"), "'"); ok && stops[rest] {
			return true
		}
		return stops[w]
	}
	for _, tk := range unicodetok.NewUnicodeTokenizer().Tokenize([]byte(text)) {
		b.WriteString(text[last:tk.Start])
		w := norm.NFC.String(text[tk.Start:tk.End])
		f := string(foldLatin(nil, []byte(w), &it))
		if isStop(f) && !isStop(w) {
			f = w
		}
		b.WriteString(f)
		last = tk.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// Other scripts keep their marks: only Latin letters fold.
func TestFoldLatinOnly(t *testing.T) {
	var it norm.Iter
	for in, want := range map[string]string{
		"Noël cœur æon straße e\u0301te\u0301": "Noel coeur aeon strasse ete",
		"йод ёлка":                             "йод ёлка",
		"किताब":                                "किताब",
		"한국어":                                  "한국어",
	} {
		if got := string(foldLatin(nil, []byte(in), &it)); got != want {
			t.Errorf("fold %q: got %q, want %q", in, got, want)
		}
	}
}

// An index built by the previous analysis (format 5: Bleve's stock
// analysers, accents kept in short words) is not opened as it is, which
// would mix two analyses in one index: it starts empty, says why, and
// what the caller indexes again is analysed the new way.
func TestIndexOfTheOldAnalysisIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	old := bleve.NewIndexMapping()
	dm := bleve.NewDocumentMapping()
	for _, l := range langs {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = l // Bleve's "en" and "fr", as format 5 had them
		dm.AddFieldMappingsAt(fBody+"_"+l, f)
	}
	old.DefaultMapping = dm
	b, err := bleve.New(filepath.Join(dir, "bleve"), old)
	if err != nil {
		t.Fatal(err)
	}
	d := &Doc{Path: "w/cafe.md", Version: "1", Scope: "s", Body: "Un café."}
	if err := b.Index(d.Path, bleveDoc(d)); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.DocCount(); n != 1 {
		t.Fatalf("old index holds %d documents", n)
	}
	b.Close()
	m, _ := json.Marshal(map[string]any{"format": 5, "seq": 1, "docs": map[string]any{d.Path: map[string]any{"v": "1", "s": "s"}}})
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), m, 0o644); err != nil {
		t.Fatal(err)
	}

	ix, lb := openT(t, dir, nil, nil)
	defer ix.Close()
	if !strings.Contains(ix.Rebuilt(), "format 5") || ix.Len() != 0 || !strings.Contains(lb.String(), "rebuilding") {
		t.Fatalf("rebuilt %q with %d documents; log %q", ix.Rebuilt(), ix.Len(), lb)
	}
	if n, _ := ix.bleve.DocCount(); n != 0 {
		t.Fatalf("the new index kept %d old documents", n)
	}
	if err := ix.Apply([]*Doc{d}, nil); err != nil {
		t.Fatal(err)
	}
	r, err := ix.Search(context.Background(), Query{Text: "cafe", Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
	if err != nil || len(r.Hits) != 1 {
		t.Fatalf("cafe after the rebuild: %v, %v", r, err)
	}
}
