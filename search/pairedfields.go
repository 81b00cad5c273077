package search

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/size"
	index "github.com/blevesearch/bleve_index_api"
)

// A build's documents are mapped by Bleve's mapping, as Batch.Index maps
// them, and then each text field analysed by a word analyser is analysed
// here instead of by Bleve's TextField: a text is cut into words once for
// both of its languages (title_en and title_fr hold the same text), each
// word's terms come from the word caches (wordanalysis.go), and the terms
// are counted straight into the field's frequencies. Bleve would make a
// token object for every word, twice, and a frequency object for every
// distinct term: most of a build's garbage, which the collector then
// marks (docs/benchmarks.md, "Where a big build's CPU goes"). What is
// indexed is the same, term for term and count for count
// (pairedfields_test.go compares the two on every field of real notes).

// mapDoc is the document Bleve indexes for data under id, its text fields
// paired by language.
func mapDoc(m mapping.IndexMapping, id string, data any) (*document.Document, error) {
	doc := document.NewDocument(id)
	if err := m.MapDocument(doc, data); err != nil {
		return nil, err
	}
	pairFields(doc)
	return doc, nil
}

// pairFields replaces each text field a word analyser analyses with a
// wordField, sharing its words with the field of the same text in the
// other language (the same name but for its language suffix, the same
// place in an array).
func pairFields(doc *document.Document) {
	texts := map[string]*sharedText{}
	names := make(map[string]int, len(doc.Fields))
	for _, f := range doc.Fields {
		names[f.Name()]++
	}
	for i, f := range doc.Fields {
		tf, ok := f.(*document.TextField)
		if !ok {
			continue
		}
		a, ok := tf.Analyzer().(*wordAnalyzer)
		if !ok || tf.Options().IncludeTermVectors() || tf.Options().SkipFreqNorm() {
			continue
		}
		base := tf.Name()
		if i := strings.LastIndexByte(base, '_'); i > 0 {
			base = base[:i]
		}
		key := fmt.Sprint(base, tf.ArrayPositions())
		st := texts[key]
		if st == nil || st.taken(a) || string(st.text) != string(tf.Value()) || !st.shares(a) {
			st = &sharedText{text: tf.Value()}
			texts[key] = st
		}
		st.langs = append(st.langs, textLang{a: a, alone: names[tf.Name()] == 1})
		doc.Fields[i] = &wordField{TextField: tf, text: st, lang: len(st.langs) - 1}
	}
}

// sharedText is one text and its analysis in each language that indexes
// it. Bleve analyses a document's fields on one goroutine, one after the
// other; the once covers any other order.
type sharedText struct {
	text  []byte
	langs []textLang
	once  sync.Once
}

type textLang struct {
	a      *wordAnalyzer
	alone  bool // the only field of its name in the document (sharedCounts)
	length int
	freqs  index.TokenFrequencies
}

// taken says whether the text already has a field analysed by a.
func (s *sharedText) taken(a *wordAnalyzer) bool {
	for _, l := range s.langs {
		if l.a == a {
			return true
		}
	}
	return false
}

// shares says whether a cuts text into words as the text's other
// languages do.
func (s *sharedText) shares(a *wordAnalyzer) bool {
	return len(s.langs) == 0 || s.langs[0].a.chain.Tokenizer == a.chain.Tokenizer
}

// analyze counts the terms of every language of the text: it cuts the
// text into words once, counts them, and looks each distinct word up
// once per language.
func (s *sharedText) analyze() {
	s.once.Do(func() {
		words := getTally()
		eachToken(s.langs[0].a.chain.Tokenizer, s.text, func(term []byte, typ analysis.TokenType) {
			// The key is the text's own bytes, which nothing changes
			// while the tally holds them.
			words.add(unsafe.String(unsafe.SliceData(term), len(term)), 1, typ)
		})
		for i := range s.langs {
			l := &s.langs[i]
			terms := getTally()
			for j, word := range words.keys {
				n := words.n[j]
				w := l.a.word(unsafe.Slice(unsafe.StringData(word), len(word)), words.typ[j])
				for k := range w.n {
					terms.add(w.term(k), n, 0)
				}
				l.length += n * w.n
			}
			l.freqs = frequencies(terms, l.alone)
			putTally(terms)
		}
		putTally(words)
	})
}

// frequencies is Bleve's form of a field's term counts. The field's
// frequency objects are made in one piece, or, for a field alone of its
// name in its document, taken from sharedCounts.
func frequencies(counts *tally, alone bool) index.TokenFrequencies {
	out := make(index.TokenFrequencies, len(counts.keys))
	if alone {
		for i, t := range counts.keys {
			if n := counts.n[i]; n >= 1 && n <= len(sharedCounts) {
				out[t] = &sharedCounts[n-1]
			} else {
				f := &index.TokenFreq{}
				f.SetFrequency(n)
				out[t] = f
			}
		}
		return out
	}
	size := 0
	for _, t := range counts.keys {
		size += len(t)
	}
	buf := make([]byte, 0, size)
	freqs := make([]index.TokenFreq, len(counts.keys))
	for i, t := range counts.keys {
		at := len(buf)
		buf = append(buf, t...)
		f := &freqs[i]
		f.Term = buf[at:len(buf):len(buf)]
		f.SetFrequency(counts.n[i])
		out[t] = f
	}
	return out
}

// sharedCounts are the frequency objects of counts 1 to 64, shared by the
// terms of every field alone of its name in its document (a body, a
// title): one object per term of every field was a fifth of what a build
// allocated (docs/benchmarks.md, "Frequency objects shared"). Scorch's
// segment reads a frequency object's count and locations, never its term
// (the map's key is the term; Bleve's upside_down index, not used here,
// reads it), and changes one only where it adds the values of a field
// named more than once in a document (an alias after the first) to the
// first value's: those fields, whose objects Bleve may change, have
// objects of their own. No code may change these.
var sharedCounts = func() (c [64]index.TokenFreq) {
	for i := range c {
		c[i].SetFrequency(i + 1)
	}
	return c
}()

// eachToken calls fn with each token tok makes of input, as its term and
// type, without the token objects where it can: a text in ASCII alone is
// cut by asciiFirst's own rules.
func eachToken(tok analysis.Tokenizer, input []byte, fn func(term []byte, typ analysis.TokenType)) {
	if s, ok := tok.(*tokenShare); ok {
		tok = s.inner
	}
	if _, ok := tok.(asciiFirst); ok && asciiOnly(input) {
		for start, end := nextWord(input, 0); start < end; start, end = nextWord(input, end) {
			typ := analysis.AlphaNumeric
			if numberOnly(input[start:end]) {
				typ = analysis.Numeric
			}
			fn(input[start:end], typ)
		}
		return
	}
	for _, t := range tok.Tokenize(input) {
		fn(t.Term, t.Type)
	}
}

// analysePaired analyses doc's paired text fields now, on this goroutine:
// Bleve's own pass then finds them done.
func analysePaired(doc *document.Document) {
	for _, f := range doc.Fields {
		if w, ok := f.(*wordField); ok {
			w.Analyze()
		}
	}
}

// wordField is a TextField whose analysis is its shared text's, in its
// language.
type wordField struct {
	*document.TextField
	text *sharedText
	lang int
}

func (f *wordField) Analyze() { f.text.analyze() }

func (f *wordField) AnalyzedLength() int { return f.text.langs[f.lang].length }

func (f *wordField) AnalyzedTokenFrequencies() index.TokenFrequencies {
	return f.text.langs[f.lang].freqs
}

// Size is an estimate: Bleve adds it to its memory statistics and does
// nothing else with it, and walking every field's frequencies for their
// exact size (TokenFrequencies.Size) took 1.6 % of a 100,000-note build's
// CPU.
func (f *wordField) Size() int {
	n := f.TextField.Size() + size.SizeOfPtr + size.SizeOfInt
	if fr := f.AnalyzedTokenFrequencies(); fr != nil {
		n += size.SizeOfMap + len(fr)*freqEntrySize
	}
	return n
}

// freqEntrySize is about what a term takes in a field's frequencies: its
// key, its object and a short term's bytes.
var freqEntrySize = size.SizeOfString + size.SizeOfPtr + int(unsafe.Sizeof(index.TokenFreq{})) + 8
