package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// cacheTexts are the sample vault's notes and texts that reach the
// corners: accents written both ways, elisions, possessives, words in
// -ique, numbers, ideographs, a word longer than maxTokenRunes, repeats,
// nothing at all.
func cacheTexts(t *testing.T) []string {
	texts := sampleTexts(t)
	return append(texts,
		"", " ", "électrique électriques ÉLECTRIQUE electrique",
		"L'été dernier, l'hôpital d'Orléans a fermé ses portes.",
		"The cats' toys and the dog's bones; running runners ran.",
		"cafe\u0301 café Noël noe\u0308l cœur coeur straße",
		"東京タワー 2024-05-01 3.14 v1.2.3 #tag @who",
		strings.Repeat("ab", 200)+" "+strings.Repeat("électriquement ", 50),
		"the the the the", "running", "running", "relational generalizations",
	)
}

// concurrently runs check on n goroutines, each with a random source of
// its own, and fails t with what each returns that is not "".
func concurrently(t *testing.T, n int, seed uint64, check func(g int, r *rand.Rand) string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if msg := check(g, rand.New(rand.NewPCG(uint64(g), seed))); msg != "" {
				errs <- msg
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// stream is a token stream as comparable text.
func stream(ts analysis.TokenStream) string {
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "%q %d-%d @%d t%d k%v\n", t.Term, t.Start, t.End, t.Position, t.Type, t.KeyWord)
	}
	return b.String()
}

// uncached is lang's analyser as the mapping defines it, with Bleve's
// own tokenizer and the stemmer without its cache: what the index gave
// before the caches.
func uncached(t *testing.T, lang string) (*analysis.DefaultAnalyzer, analysis.TokenFilter) {
	w, ok := analyzersT(t)[lang].(*wordAnalyzer)
	if !ok {
		t.Fatalf("%s: not a wordAnalyzer", lang)
	}
	a := w.chain
	var stem analysis.TokenFilter = en.NewEnglishStemmerFilter()
	if lang == "fr" {
		stem = frStemmer{fr.NewFrenchLightStemmerFilter()}
	}
	filters := append([]analysis.TokenFilter(nil), a.TokenFilters...)
	filters[len(filters)-1] = stem
	return &analysis.DefaultAnalyzer{CharFilters: a.CharFilters, Tokenizer: unicodetok.NewUnicodeTokenizer(), TokenFilters: filters}, stem
}

// The analysers the index uses, with their caches, give exactly the
// tokens of the same chains without them: the mapping wires the cached
// tokenizer and stemmers in.
func TestCachedAnalysisEqualsBleves(t *testing.T) {
	texts := cacheTexts(t)
	as := analyzersT(t)
	for _, l := range langs {
		ref, _ := uncached(t, l)
		for round := 0; round < 2; round++ { // the second round meets warm caches
			for i, text := range texts {
				want := stream(ref.Analyze([]byte(text)))
				if got := stream(as[l].Analyze([]byte(text))); got != want {
					t.Fatalf("%s, round %d, text %d %.40q:\ncached:\n%s\nBleve:\n%s", l, round, i, text, got, want)
				}
			}
		}
	}
}

// With caches small enough that words and texts keep taking each
// other's places, analysed on several goroutines in random orders, one
// language or both, either first, every analysis still equals Bleve's,
// and the tokenizer's waiting texts stay within their budget.
func TestCachedAnalysisUnderCollisionsAndConcurrency(t *testing.T) {
	texts := cacheTexts(t)
	share := newTokenShare(3, 16<<10)
	type pair struct{ ref, cached *analysis.DefaultAnalyzer }
	pairs := map[string]pair{}
	want := map[string][]string{}
	for _, l := range langs {
		ref, stem := uncached(t, l)
		filters := append([]analysis.TokenFilter(nil), ref.TokenFilters...)
		filters[len(filters)-1] = cachedStemmer{stems: newStemCache(5), stem: stem.Filter}
		pairs[l] = pair{ref, &analysis.DefaultAnalyzer{Tokenizer: share, TokenFilters: filters}}
		for _, text := range texts {
			want[l] = append(want[l], stream(ref.Analyze([]byte(text))))
		}
	}
	concurrently(t, 4, 7, func(g int, r *rand.Rand) string {
		for range 3 * len(texts) {
			i := r.IntN(len(texts))
			order := []string{"en", "fr"}
			if r.IntN(2) == 0 {
				order = []string{"fr", "en"}
			}
			order = order[:1+r.IntN(2)]
			for _, l := range order {
				if got := stream(pairs[l].cached.Analyze([]byte(texts[i]))); got != want[l][i] {
					return fmt.Sprintf("goroutine %d, %s, text %d %.40q:\ncached:\n%s\nBleve:\n%s", g, l, i, texts[i], got, want[l][i])
				}
			}
		}
		return ""
	})
	share.mu.Lock()
	defer share.mu.Unlock()
	held := 0
	for _, w := range share.waiting {
		held += w.size()
	}
	if held != share.held || held > share.budget {
		t.Fatalf("the waiting texts hold %d bytes, counted %d, budget %d", held, share.held, share.budget)
	}
}

// A text's tokens wait for its second analysis, which takes them; a text
// too big for the budget does not wait.
func TestTokenShareHandsTokensOnce(t *testing.T) {
	share := newTokenShare(4, 4096)
	text := []byte("one text, tokenised twice")
	share.Tokenize(text)
	if _, ok := share.take(text); !ok {
		t.Fatal("a text tokenised once does not wait for its second analysis")
	}
	if _, ok := share.take(text); ok {
		t.Fatal("a text's tokens were handed out twice")
	}
	share.Tokenize([]byte(strings.Repeat("word ", 300)))
	if share.held != 0 {
		t.Fatalf("a text past a quarter of the budget is kept (%d bytes held)", share.held)
	}
	for i := range 10 {
		share.Tokenize(fmt.Appendf(nil, "text %d", i))
	}
	if n := len(share.waiting); n != 4 {
		t.Fatalf("%d slots", n)
	}
	if _, ok := share.take([]byte("text 5")); ok {
		t.Fatal("an old text still waits after the ring went round")
	}
	if _, ok := share.take([]byte("text 9")); !ok {
		t.Fatal("the newest text does not wait")
	}
}
