package search

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// analyzersT gives Bleve's stock analyser and ours for each language.
func analyzersT(t testing.TB) map[string][2]analysis.Analyzer {
	t.Helper()
	im, err := indexMapping()
	if err != nil {
		t.Fatal(err)
	}
	stock := registry.NewCache()
	out := map[string][2]analysis.Analyzer{}
	for _, l := range langs {
		s, err := stock.AnalyzerNamed(l)
		if err != nil {
			t.Fatal(err)
		}
		ours := im.AnalyzerNamed(langAnalyzer[l])
		if ours == nil {
			t.Fatalf("no analyser %s in the mapping", langAnalyzer[l])
		}
		out[l] = [2]analysis.Analyzer{s, ours}
	}
	return out
}

// Words of up to maxTokenRunes runes are analysed exactly as Bleve's own
// "en" and "fr" analyse them: terms, positions and offsets, over every
// note of the sample vault (English and French) and words made to sit at
// the limit.
func TestAnalysersMatchBleveOnOrdinaryText(t *testing.T) {
	var texts []string
	err := filepath.WalkDir("../sample-vault", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		texts = append(texts, string(b))
		return err
	})
	if err != nil || len(texts) < 20 {
		t.Fatalf("sample vault: %d notes, %v", len(texts), err)
	}
	texts = append(texts,
		"L'école d'ingénieurs, les écoles, aujourd'hui; the children's decisions were DECIDED",
		strings.Repeat("é", maxTokenRunes)+" "+strings.Repeat("ab", maxTokenRunes/2-1)+"'s l'"+strings.Repeat("x", maxTokenRunes-2))
	for l, a := range analyzersT(t) {
		for _, text := range texts {
			want, got := a[0].Analyze([]byte(text)), a[1].Analyze([]byte(text))
			if len(want) != len(got) {
				t.Fatalf("%s: %d tokens, Bleve's analyser gives %d, for %.60q", l, len(got), len(want), text)
			}
			for i := range want {
				w, g := want[i], got[i]
				if string(w.Term) != string(g.Term) || w.Position != g.Position || w.Start != g.Start || w.End != g.End {
					t.Fatalf("%s: token %d is %q@%d [%d:%d], Bleve's %q@%d [%d:%d]", l, i, g.Term, g.Position, g.Start, g.End, w.Term, w.Position, w.Start, w.End)
				}
			}
		}
	}
}

// A longer word is analysed as its first maxTokenRunes runes, so it is
// still found by itself, and its cost no longer grows with its length.
func TestLongWordsAreCutBeforeStemming(t *testing.T) {
	as := analyzersT(t)
	long := strings.Repeat("ab", 5000)
	for l, a := range as {
		got := a[1].Analyze([]byte("start " + long + " end"))
		cut := a[1].Analyze([]byte(long[:maxTokenRunes]))
		if len(got) != 3 || len(cut) != 1 || string(got[1].Term) != string(cut[0].Term) {
			t.Fatalf("%s: %d tokens; the long word gives %q, its first %d runes %q", l, len(got), got[1].Term, maxTokenRunes, cut[0].Term)
		}
	}
	// The word: 1 MiB of one letter, and the stemmer's worst
	// pattern. Minutes before; a hang check, not a timing.
	for _, word := range []string{strings.Repeat("y", 1<<20), strings.Repeat("ab", 1<<19)} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, a := range as {
				a[1].Analyze([]byte(word))
			}
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("analysing a 1 MiB word did not finish in 60 s")
		}
	}
}
