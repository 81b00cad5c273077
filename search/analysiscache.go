package search

import (
	"bytes"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

// Analysis is most of what building an index costs: in a profile of a
// 10,000-note build, Bleve's analysis of every text field took 60 % of
// the build's CPU, the two stemmers 4.0 s of it and the word segmenter
// 4.1 s (issue 16 asks the whole index within 10 s). Both do the same
// work again and again: a vault's words follow Zipf's law, so a few
// thousand words are most of what is stemmed, and every text is
// tokenised twice, once per language, by the same segmenter. The caches
// below remember that work. They change no result: a word's stem is a
// function of the word, and a text's tokens a function of the text
// (analysiscache_test.go compares them with Bleve's own, under
// concurrency and with caches small enough to collide).
//
// An index built before these caches names Bleve's "unicode" tokenizer
// and "stemmer_en_snowball" in its mapping, which analyse exactly as
// "cairn_unicode" and "cairn_stem_en" do: it is kept (same manifest
// format) and analyses without the caches until it is rebuilt.
const (
	tokenizerName = "cairn_unicode" // Bleve's unicode tokenizer, shared by the two languages
	stemENName    = "cairn_stem_en" // Snowball's English stemmer, cached
)

func init() {
	err := registry.RegisterTokenizer(tokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return sharedTokens, nil
	})
	if err == nil {
		err = registry.RegisterTokenFilter(stemENName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return cachedStemmer{stems: stemsEN, stem: en.NewEnglishStemmerFilter().Filter}, nil
		})
	}
	if err != nil {
		panic(err)
	}
}

// stemSlots is the size of each language's stem cache: 16,384 words,
// about 1.5 MiB when full. A slot holds the last word whose hash fell in
// it, so a rare word takes a common one's place only until the common
// one comes again.
const stemSlots = 1 << 14

var (
	stemsEN = newStemCache(stemSlots)
	stemsFR = newStemCache(stemSlots)
)

// stemCache maps words to their stems, direct-mapped: a word's hash picks
// its slot, which holds the last word stemmed there. Lock-free: Bleve
// analyses documents on several goroutines.
type stemCache struct {
	seed  maphash.Seed
	slots []atomic.Pointer[stemmed]
}

// stemmed is a word and its stem, never changed once made.
type stemmed struct {
	word string
	stem []byte
}

func newStemCache(n int) *stemCache {
	return &stemCache{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[stemmed], n)}
}

func (c *stemCache) slot(w []byte) *atomic.Pointer[stemmed] {
	return &c.slots[maphash.Bytes(c.seed, w)%uint64(len(c.slots))]
}

// cachedStemmer is a stemmer (a filter that only replaces each token's
// term by a function of that term) with a cache in front of it.
type cachedStemmer struct {
	stems *stemCache
	stem  func(analysis.TokenStream) analysis.TokenStream
}

func (s cachedStemmer) Filter(in analysis.TokenStream) analysis.TokenStream {
	return s.stems.filter(in, s.stem)
}

// filter gives each token of in its stem: from the cache, or from stem,
// called once with the tokens the cache does not know.
func (c *stemCache) filter(in analysis.TokenStream, stem func(analysis.TokenStream) analysis.TokenStream) analysis.TokenStream {
	var miss analysis.TokenStream
	var words []string
	for _, t := range in {
		if p := c.slot(t.Term).Load(); p != nil && p.word == string(t.Term) {
			setTerm(t, p.stem)
			continue
		}
		miss = append(miss, t)
		words = append(words, string(t.Term))
	}
	if len(miss) == 0 {
		return in
	}
	stem(miss)
	for i, t := range miss {
		w := words[i]
		c.slot([]byte(w)).Store(&stemmed{word: w, stem: bytes.Clone(t.Term)})
	}
	return in
}

// setTerm makes t's term a copy of stem, in t's own bytes when it fits
// (as Bleve's lower-case filter does): the cache's bytes are never handed
// out, so nothing downstream can change them.
func setTerm(t *analysis.Token, stem []byte) {
	if len(stem) <= len(t.Term) {
		t.Term = t.Term[:copy(t.Term, stem)]
		return
	}
	t.Term = bytes.Clone(stem)
}

// sharedTokens is the tokenizer of both languages' analysers.
var sharedTokens = newTokenShare(64, 4<<20)

// tokenShare is Bleve's unicode tokenizer, which hands a text's tokens to
// its second analysis from the first: every text field is analysed in
// English and in French, one after the other on the same goroutine
// (Bleve analyses a document's fields in turn), and a query's words are
// too. A text tokenised once waits, with its tokens' places, until it is
// tokenised again, which takes it. At most slots texts wait, the oldest
// giving way, holding at most budget bytes between them: a text that
// would pass it is not kept (it is tokenised twice).
type tokenShare struct {
	inner  analysis.Tokenizer
	budget int

	mu      sync.Mutex
	waiting []tokenized // a ring
	next    int
	held    int // bytes held by waiting
}

// tokenized is a text and where its tokens lie, as the tokenizer gave
// them (before any filter changed them).
type tokenized struct {
	text  []byte // a copy
	spans []tokenSpan
}

// size is what t holds, in bytes.
func (t tokenized) size() int { return len(t.text) + len(t.spans)*spanSize }

type tokenSpan struct {
	start, end, position int
	typ                  analysis.TokenType
}

const spanSize = int(unsafe.Sizeof(tokenSpan{}))

func newTokenShare(slots, budget int) *tokenShare {
	return &tokenShare{inner: asciiFirst{unicodetok.NewUnicodeTokenizer()}, budget: budget, waiting: make([]tokenized, slots)}
}

func (s *tokenShare) Tokenize(input []byte) analysis.TokenStream {
	if spans, ok := s.take(input); ok {
		return rebuildTokens(input, spans)
	}
	ts := s.inner.Tokenize(input)
	if len(input)+len(ts)*spanSize > s.budget/4 {
		return ts
	}
	w := tokenized{text: bytes.Clone(input), spans: make([]tokenSpan, len(ts))}
	for i, t := range ts {
		w.spans[i] = tokenSpan{t.Start, t.End, t.Position, t.Type}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held -= s.waiting[s.next].size()
	if s.held+w.size() <= s.budget {
		s.waiting[s.next] = w
		s.held += w.size()
	} else {
		s.waiting[s.next] = tokenized{}
	}
	s.next = (s.next + 1) % len(s.waiting)
	return ts
}

// take removes and returns the spans of a waiting text equal to input.
func (s *tokenShare) take(input []byte) ([]tokenSpan, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.waiting {
		w := &s.waiting[i]
		if w.text != nil && bytes.Equal(w.text, input) {
			spans := w.spans
			s.held -= w.size()
			*w = tokenized{}
			return spans, true
		}
	}
	return nil, false
}

// rebuildTokens makes the tokens of input from their places, as the
// tokenizer made them: each term a slice of input.
func rebuildTokens(input []byte, spans []tokenSpan) analysis.TokenStream {
	toks := make([]analysis.Token, len(spans))
	ts := make(analysis.TokenStream, len(spans))
	for i, sp := range spans {
		toks[i] = analysis.Token{Term: input[sp.start:sp.end], Start: sp.start, End: sp.end, Position: sp.position, Type: sp.typ}
		ts[i] = &toks[i]
	}
	return ts
}
