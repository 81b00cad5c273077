package search

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
)

// analyzersT gives our analyser of each language.
func analyzersT(t testing.TB) map[string]analysis.Analyzer {
	t.Helper()
	im, err := indexMapping()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]analysis.Analyzer{}
	for _, l := range langs {
		a := im.AnalyzerNamed(langAnalyzer[l])
		if a == nil {
			t.Fatalf("no analyser %s in the mapping", langAnalyzer[l])
		}
		out[l] = a
	}
	return out
}

// sampleTexts are the notes of the sample vault (English and French).
func sampleTexts(t testing.TB) []string {
	t.Helper()
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
	return texts
}

// A longer word is analysed as its first maxTokenRunes runes, so it is
// still found by itself, and its cost no longer grows with its length.
func TestLongWordsAreCutBeforeStemming(t *testing.T) {
	as := analyzersT(t)
	long := strings.Repeat("ab", 5000)
	for l, a := range as {
		got := a.Analyze([]byte("start " + long + " end"))
		cut := a.Analyze([]byte(long[:maxTokenRunes]))
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
				a.Analyze([]byte(word))
			}
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("analysing a 1 MiB word did not finish in 60 s")
		}
	}
}
