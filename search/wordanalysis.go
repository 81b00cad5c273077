package search

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/registry"
)

// wordsType is an analyser type of ours: Bleve's "custom" analyser (a
// tokenizer, then token filters, the same configuration), which runs its
// filters once per distinct word instead of once per word of every text.
//
// Every filter of the two languages' chains (cut, possessive or elision,
// lower case, composition, stop list, fold, -ons, stem) maps one token's
// term to zero, one or two terms, whatever the tokens around it: a word's
// analysis is a function of the word. A vault's words follow Zipf's law,
// so a few thousand words are most of what a build analyses, and the
// chains' eight or nine passes over every token stream become one lookup
// per word (pairedfields.go: one per distinct word of a text). The
// analysis of a 100,000-note build went from 38.0 to 20.0 s of CPU
// (docs/benchmarks.md, "Each text cut once, each word analysed once").
// wordanalysis_test.go checks that the streams are the chain's own, token
// by token, on real texts and under collisions and concurrency.
//
// An index built before this type names "custom" for its two languages,
// which analyses exactly as this does: it is kept (same manifest format).
// An older binary cannot define "cairn_words", fails to open a newer
// index and rebuilds it.
const wordsType = "cairn_words"

func init() {
	if err := registry.RegisterAnalyzer(wordsType, newWordAnalyzer); err != nil {
		panic(err)
	}
}

// wordSlots is the size of each language's word cache: 65,536 words,
// about 6 MiB when full (about 100 bytes a word: the entry, the word and
// its terms). Over 30,000 notes of the generated 100,000-note vault (66,380
// distinct words, 6.3 million words looked up once per note), 16,384
// slots missed 6.4 % of the words, 32,768 3.7 %, 65,536 2.5 %, 262,144
// 1.4 %; a miss runs the whole chain on the word, 20 to 40 times a hit.
const wordSlots = 1 << 16

func newWordAnalyzer(config map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
	a, err := custom.AnalyzerConstructor(config, cache)
	if err != nil {
		return nil, err
	}
	chain, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || len(chain.CharFilters) > 0 {
		// A char filter sees the whole text: not a function of a word.
		return nil, fmt.Errorf("%s: char filters are not supported", wordsType)
	}
	return &wordAnalyzer{chain: chain, words: newWordCache(wordSlots)}, nil
}

// wordAnalyzer is a tokenizer and token filters that only ever map one
// token's term to terms of its own, with a cache of what the filters made
// of each word.
type wordAnalyzer struct {
	chain *analysis.DefaultAnalyzer
	words *wordCache
}

func (a *wordAnalyzer) Analyze(input []byte) analysis.TokenStream {
	ts := a.chain.Tokenizer.Tokenize(input)
	n := 0                       // tokens kept, in ts[:n], while no word gives two terms
	var out analysis.TokenStream // past that
	for i, t := range ts {
		w := a.word(t.Term, t.Type)
		for j := range w.n {
			term := w.term(j)
			x := t
			if j == 0 {
				setTermString(t, term)
			} else {
				c := *t
				c.Term = []byte(term)
				x = &c
			}
			switch {
			case out != nil:
				out = append(out, x)
			case n > i: // ts[n] is still to be read
				out = append(append(make(analysis.TokenStream, 0, len(ts)+4), ts[:n]...), x)
			default:
				ts[n] = x
				n++
			}
		}
	}
	if out != nil {
		return out
	}
	return ts[:n]
}

// word is what the filters make of a word the tokenizer gave as typ.
func (a *wordAnalyzer) word(term []byte, typ analysis.TokenType) *analysedWord {
	if w := a.words.get(term, typ); w != nil {
		return w
	}
	return a.analyzeWord(term, typ)
}

// analyzeWord runs the filters on the word alone and remembers the terms
// they made of it.
func (a *wordAnalyzer) analyzeWord(term []byte, typ analysis.TokenType) *analysedWord {
	ts := analysis.TokenStream{&analysis.Token{Term: bytes.Clone(term), Position: 1, End: len(term), Type: typ}}
	for _, f := range a.chain.TokenFilters {
		ts = f.Filter(ts)
	}
	w := newAnalysedWord(term, typ, ts)
	if len(term) <= maxCachedWord {
		a.words.put(w)
	}
	return w
}

// maxCachedWord bounds the words the cache keeps: a token is cut to
// maxTokenRunes only by the filters, so the word the tokenizer gave can
// be any length (a line of base64, a URL), and is rare at that length.
const maxCachedWord = 256

// newAnalysedWord lays a word and its terms out in two objects, the
// entry and one string holding the word and the terms end to end: a
// lookup follows two pointers, and the collector, which marks the caches
// at each of a build's hundreds of cycles, finds one pointer in an entry.
func newAnalysedWord(term []byte, typ analysis.TokenType, ts analysis.TokenStream) *analysedWord {
	n := len(term)
	for _, x := range ts {
		n += len(x.Term)
	}
	b := make([]byte, 0, n)
	b = append(b, term...)
	w := &analysedWord{typ: typ, n: len(ts)}
	w.ends[0] = uint32(len(b))
	for i, x := range ts {
		if i >= len(w.ends)-1 {
			w.more = append(w.more, string(x.Term))
			continue
		}
		b = append(b, x.Term...)
		w.ends[i+1] = uint32(len(b))
	}
	w.blob = string(b)
	return w
}

// setTermString makes t's term term, in t's own bytes when it fits (as
// Bleve's lower-case filter does), else in new ones.
func setTermString(t *analysis.Token, term string) {
	if len(term) <= len(t.Term) {
		t.Term = t.Term[:copy(t.Term, term)]
		return
	}
	t.Term = []byte(term)
}

// analysedWord is a word as the tokenizer gave it and the terms the
// filters made of it, never changed once made.
type analysedWord struct {
	blob string    // the word, then its first two terms
	ends [3]uint32 // where the word and those terms end in blob
	n    int       // how many terms
	typ  analysis.TokenType
	more []string // the terms past the second: none in our chains (onsFilter adds one)
}

func (w *analysedWord) word() string { return w.blob[:w.ends[0]] }

// term is the word's i-th term, i < w.n.
func (w *analysedWord) term(i int) string {
	if i >= len(w.ends)-1 {
		return w.more[i-len(w.ends)+1]
	}
	return w.blob[w.ends[i]:w.ends[i+1]]
}

// wordCache is direct-mapped, as the stem caches are: a word's hash picks
// its slot, which holds the last word analysed there. Lock-free: Bleve
// analyses documents on several goroutines.
type wordCache struct {
	seed  maphash.Seed
	slots []atomic.Pointer[analysedWord]
}

func newWordCache(n int) *wordCache {
	return &wordCache{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[analysedWord], n)}
}

func (c *wordCache) slot(w []byte) *atomic.Pointer[analysedWord] {
	return &c.slots[maphash.Bytes(c.seed, w)%uint64(len(c.slots))]
}

// get is what the cache holds for a word and its type, or nil.
func (c *wordCache) get(term []byte, typ analysis.TokenType) *analysedWord {
	if w := c.slot(term).Load(); w != nil && w.word() == string(term) && w.typ == typ {
		return w
	}
	return nil
}

func (c *wordCache) put(w *analysedWord) {
	c.slots[maphash.String(c.seed, w.word())%uint64(len(c.slots))].Store(w)
}
