package search

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
)

// webTexts are the passages of the held-out web set (bench/heldout/web):
// 3,070 texts of real prose, code names and numbers, English mostly.
func webTexts(t testing.TB) []string {
	t.Helper()
	f, err := os.Open("../bench/heldout/web/passages.tsv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if _, text, ok := strings.Cut(sc.Text(), "\t"); ok {
			texts = append(texts, text)
		}
	}
	if err := sc.Err(); err != nil || len(texts) < 3000 {
		t.Fatalf("web passages: %d, %v", len(texts), err)
	}
	return texts
}

// chainOf is a language's analyser as a plain Bleve chain: the same
// tokenizer and filters, each filter run over every text.
func chainOf(t testing.TB, lang string) *analysis.DefaultAnalyzer {
	w, ok := analyzersT(t)[lang].(*wordAnalyzer)
	if !ok {
		t.Fatalf("%s: not a wordAnalyzer", lang)
	}
	return w.chain
}

// With a cache so small that words keep taking each other's places,
// analysed on several goroutines in random orders, every text's stream is
// the chain's own, token for token (terms, places, positions, types):
// on real prose, on the texts that reach the analysis's corners, and on
// words that differ only in case, accents or type.
func TestWordAnalysisEqualsTheChain(t *testing.T) {
	texts := append(cacheTexts(t), webTexts(t)[:600]...)
	texts = append(texts, "Lançons lançons LANÇONS lancons maisons", "2024 2024a a2024 ２０２４", "l'Été L'ÉTÉ l'ete")
	for _, l := range langs {
		chain := chainOf(t, l)
		want := make([]string, len(texts))
		for i, text := range texts {
			want[i] = stream(chain.Analyze([]byte(text)))
		}
		small := &wordAnalyzer{chain: chain, words: newWordCache(7)}
		big := &wordAnalyzer{chain: chain, words: newWordCache(wordSlots)}
		concurrently(t, 4, 11, func(g int, r *rand.Rand) string {
			for range 2 * len(texts) {
				i := r.IntN(len(texts))
				a := small
				if r.IntN(2) == 0 {
					a = big
				}
				if got := stream(a.Analyze([]byte(texts[i]))); got != want[i] {
					return fmt.Sprintf("goroutine %d, %s, text %d %.60q:\nwords:\n%s\nchain:\n%s", g, l, i, texts[i], got, want[i])
				}
			}
			return ""
		})
	}
}

// echoes is a filter that follows each token with two copies of it,
// marked: a chain that gives a word more terms than ours ever do.
type echoes struct{}

func (echoes) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, 3*len(in))
	for _, t := range in {
		a, b := *t, *t
		a.Term = append([]byte("a:"), t.Term...)
		b.Term = append([]byte("b:"), t.Term...)
		out = append(out, t, &a, &b)
	}
	return out
}

// A chain that gives a word three terms is still analysed as the chain
// analyses it, from the cache too; and a word too long to be kept in the
// cache is analysed all the same.
func TestWordAnalysisOfThreeTerms(t *testing.T) {
	chain := chainOf(t, "fr")
	three := &analysis.DefaultAnalyzer{Tokenizer: chain.Tokenizer, TokenFilters: append(slices.Clone(chain.TokenFilters), echoes{})}
	a := &wordAnalyzer{chain: three, words: newWordCache(64)}
	long := strings.Repeat("mot", maxCachedWord)
	for _, text := range []string{"Nous lançons la réunion, lançons-la !", "lançons " + long, "lançons " + long} {
		want := stream(three.Analyze([]byte(text)))
		for round := range 2 {
			if got := stream(a.Analyze([]byte(text))); got != want {
				t.Fatalf("round %d, %q:\nwords:\n%s\nchain:\n%s", round, text, got, want)
			}
		}
	}
}
