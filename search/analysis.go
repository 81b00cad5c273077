package search

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/token/truncate"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenmap"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"golang.org/x/text/unicode/norm"
)

// maxTokenRunes bounds a word before it is stemmed. Bleve's French light
// stemmer is quadratic in a word's length (its accent and double-letter
// normalisation loops over the word once per letter, deleting letters as
// it goes): one 1 MiB word took minutes, 100,000 letters "abab…" 11 s.
// Cut to 64 runes, 1 MiB of the worst such words stems in about 80 ms,
// less than 1 MiB of ordinary prose (200 ms per language). No word of
// either language comes near 64 letters; a SHA-256 in hex is 64. A longer
// token keeps its first 64 runes, in the index and in queries alike, so
// it is still found by itself.
const maxTokenRunes = 64

// The analysers of the text fields, and the filters of ours they use.
//
// Both languages: a word is cut to maxTokenRunes, lower-cased, checked
// against the language's stop list (which holds every stop word with and
// without its accents), then folded (foldLatin: "Noël" → "noel", "cœur"
// → "coeur") and only then stemmed, so that the stem is a function of the
// folded word: a word written without its accents is analysed exactly as
// the same word with them, in the index and in queries alike. Folding
// after the stop list keeps "maïs" (maize) a word while "mais" (but) is a
// stop word. English stems with Snowball's English stemmer (Porter2; Bleve's
// "en" uses Porter, which cuts the folded "ete" to "et", so "été" would
// match every French "et"); French with Bleve's light stemmer less its
// "-ique" rule (frStemmer).
const (
	truncateName = "cairn_truncate"
	nfcName      = "cairn_nfc"  // the fold filter that only composes (NFC)
	foldName     = "cairn_fold" // filter type and filter: foldLatin
	stopFRName   = "cairn_stop_fr"
	stemFRName   = "cairn_stem_fr" // filter type and filter: frStemmer
	onsFRName    = "cairn_ons_fr"  // filter type and filter: onsFilter
	analyzerEN   = "cairn_en"
	analyzerFR   = "cairn_fr"
	analyzerPath = "cairn_path" // the words of a path: Bleve's "standard", folded
)

// langAnalyzer is the analyser of each language suffix of the text fields
// (title_en is analysed by cairn_en).
var langAnalyzer = map[string]string{"en": analyzerEN, "fr": analyzerFR}

func init() {
	// Filter types of our own, which an index mapping can name; every
	// binary that opens a cairn index registers them (this package).
	err := registry.RegisterTokenFilter(foldName, func(config map[string]any, _ *registry.Cache) (analysis.TokenFilter, error) {
		return foldFilter{keepMarks: config["marks"] == "keep"}, nil
	})
	if err == nil {
		err = registry.RegisterTokenFilter(stemFRName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return newFRStemmer(), nil
		})
	}
	if err == nil {
		err = registry.RegisterTokenFilter(onsFRName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return onsFilter{}, nil
		})
	}
	if err != nil {
		panic(err)
	}
}

// addAnalyzers defines the analysers in the mapping, which Bleve stores
// with the index: an index opened later, by this binary or another,
// analyses exactly as it was built (the French stop list included; the
// manifest format changes whenever the analysis does).
func addAnalyzers(im *mapping.IndexMappingImpl) error {
	filters := map[string]map[string]any{
		// A JSON number, as the constructor expects.
		truncateName: {"type": truncate.Name, "length": float64(maxTokenRunes)},
		nfcName:      {"type": foldName, "marks": "keep"},
		stopFRName:   {"type": stop.Name, "stop_token_map": stopFRName},
	}
	if err := im.AddCustomTokenMap(stopFRName, map[string]any{"type": tokenmap.Name, "tokens": stopListFR()}); err != nil {
		return fmt.Errorf("search mapping: %w", err)
	}
	for name, config := range filters {
		if err := im.AddCustomTokenFilter(name, config); err != nil {
			return fmt.Errorf("search mapping: %w", err)
		}
	}
	chains := map[string][]string{
		analyzerEN:   {truncateName, en.PossessiveName, lowercase.Name, nfcName, en.StopName, foldName, stemENName},
		analyzerFR:   {truncateName, lowercase.Name, nfcName, fr.ElisionName, stopFRName, foldName, onsFRName, stemFRName},
		analyzerPath: {lowercase.Name, nfcName, en.StopName, foldName},
	}
	// The two languages share their tokens (tokenizerName); a path's
	// words are analysed once.
	tokenizer := map[string]string{analyzerEN: tokenizerName, analyzerFR: tokenizerName, analyzerPath: unicodetok.Name}
	// The two languages' chains run once per distinct word (wordsType).
	typ := map[string]string{analyzerEN: wordsType, analyzerFR: wordsType, analyzerPath: custom.Name}
	for name, filters := range chains {
		if err := im.AddCustomAnalyzer(name, map[string]any{
			"type":          typ[name],
			"tokenizer":     tokenizer[name],
			"token_filters": filters,
		}); err != nil {
			return fmt.Errorf("search mapping: %w", err)
		}
	}
	return nil
}

// stopListFR is Bleve's French stop list (Snowball's) with each word's
// folded form beside it: "ete" is a stop word as "été" is, so a question
// typed without accents loses the same words.
func stopListFR() []any {
	tm := analysis.NewTokenMap()
	if err := tm.LoadBytes(fr.FrenchStopWords); err != nil {
		panic(err) // a constant of Bleve's
	}
	var out []any
	seen := map[string]bool{}
	var it norm.Iter
	for w := range tm {
		for _, v := range []string{w, string(foldLatin(nil, []byte(w), &it))} {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// analyzer is the analyser of a language suffix ("en", "fr") as the index
// defines it.
func (ix *Index) analyzer(lang string) analysis.Analyzer {
	return ix.bleve.Mapping().AnalyzerNamed(langAnalyzer[lang])
}

// foldFilter folds each token (foldLatin), or with keepMarks only
// composes it (NFC), so that a stop list written in composed letters
// knows a word typed with combining accents.
type foldFilter struct{ keepMarks bool }

func (f foldFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	// The iterator (about 200 bytes, on the heap as foldLatin keeps a
	// pointer) is made for the first word that needs it: most texts are
	// ASCII, and a text's analysis was once 0.7 GB of a 100,000-note
	// build's 27 GB of garbage for an iterator never used.
	var it *norm.Iter
	for _, t := range in {
		if isASCII(string(t.Term)) {
			continue
		}
		if f.keepMarks {
			if !norm.NFC.IsNormal(t.Term) {
				t.Term = norm.NFC.Bytes(t.Term)
			}
			continue
		}
		if it == nil {
			it = new(norm.Iter)
		}
		t.Term = foldLatin(make([]byte, 0, len(t.Term)), t.Term, it)
	}
	return in
}

// foldLatin appends w to dst with the letters of the Latin alphabet
// stripped of their diacritics ("é" → "e", "ë" → "e", "ç" → "c") and the
// ligatures and letters that do not decompose spelt out ("œ" → "oe",
// "æ" → "ae", "ß" → "ss", foldSpecial), composed (NFC) either way. Other
// scripts keep their marks: "й" is not "и" in Russian, nor are a
// Devanagari consonant and its vowel sign one letter.
func foldLatin(dst, w []byte, it *norm.Iter) []byte {
	it.Init(norm.NFC, w)
	var dec [64]byte
	for !it.Done() {
		seg := it.Next()
		r, size := utf8.DecodeRune(seg)
		if size == len(seg) && r < utf8.RuneSelf {
			dst = append(dst, seg...)
			continue
		}
		if r >= utf8.RuneSelf && !unicode.Is(unicode.Latin, r) {
			dst = append(dst, seg...)
			continue
		}
		dst = appendUnmarked(dst, norm.NFD.Append(dec[:0], seg...))
	}
	return dst
}

// frStemmer is Bleve's French light stemmer (Savoy's, as Lucene's) less
// its "-ique" rule. That rule cuts "électrique" to "électr", which the
// stemmer's ending rules then reduce to "elect", the stem of "électeur",
// "électeurs" and "élection"'s neighbours: voters found for electric
// heating. Without it a word in -ique(s) keeps its whole root
// ("electriqu"), which still matches its plural and its adverb in
// -iquement (whose "-ement" rule gives the same stem). The stemmer sees
// folded words: its three rules written with accents ("-ième", "-ère",
// "-ète") no longer fire, so "deuxième" and "deuxieme" share a stem
// where they did not before.
// Its stems are cached (stemsFR, analysiscache.go).
type frStemmer struct{ light analysis.TokenFilter }

func newFRStemmer() cachedStemmer {
	return cachedStemmer{stems: stemsFR, stem: frStemmer{fr.NewFrenchLightStemmerFilter()}.Filter}
}

func (s frStemmer) Filter(in analysis.TokenStream) analysis.TokenStream {
	var keep map[int][]byte
	for i, t := range in {
		if w, ok := iqueStem(t.Term); ok {
			if keep == nil {
				keep = map[int][]byte{}
			}
			keep[i] = w
		}
	}
	in = s.light.Filter(in)
	for i, w := range keep {
		in[i].Term = w
	}
	return in
}

// onsFilter gives a verb's first person plural its infinitive too: a word
// of six letters or more in -ons (not -ions) is followed, at its place, by
// the word with -er for -ons, which the stemmer then stems like any other
// ("lançons", folded "lancons", also gives "lancer", stem "lanc", the stem
// of "lancement", "lancer", "lancé"). The light stemmer is for nouns and
// adjectives: it leaves a verb's endings, and the seed's own example, the
// capture "Nous lançons d'abord auprès de vingt clients pilotes." and the
// question "Qu'avais-je décidé pour le lancement ?", shared no stem. A
// noun's plural in -ons keeps its own token ("maisons" still stems to
// "maison"); the guess beside it ("maiser", "mais") only adds a match.
// Snowball's French stemmer was measured instead of the light one, and
// beside it: it relates more verb forms, but also strips noun and
// participle endings ("courant" to "cour"), and it lowered the French
// held-out set's MRR@10 from 0.64 to 0.59-0.61 (docs/search-analysis.md). The same
// rule runs on queries, so "lançons" in a question finds "lancement".
type onsFilter struct{}

func (onsFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	for i, t := range in {
		w := t.Term
		n := len(w)
		if n < 6 || string(w[n-3:]) != "ons" || w[n-4] == 'i' {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make(analysis.TokenStream, 0, len(in)+4), in[:i]...)
		}
		inf := make([]byte, 0, n-1)
		inf = append(append(inf, w[:n-3]...), 'e', 'r')
		out = append(out, t, &analysis.Token{Term: inf, Start: t.Start, End: t.End, Position: t.Position, Type: t.Type, KeyWord: t.KeyWord})
	}
	if out == nil {
		return in
	}
	return out
}

// iqueStem is what the light stemmer gives a word in -ique or -iques of
// more than 8 letters when its -ique rule is skipped: the plural s off,
// then its final normalisation (repeated letters once, the final e off).
func iqueStem(term []byte) ([]byte, bool) {
	n := len(term)
	if n > 0 && term[n-1] == 's' {
		n--
	}
	if n < 4 || string(term[n-4:n]) != "ique" {
		return nil, false
	}
	runes := []rune(string(term[:n]))
	if len(runes) <= 8 {
		return nil, false
	}
	out := runes[:1]
	for _, r := range runes[1:] {
		if r != out[len(out)-1] || !unicode.IsLetter(r) {
			out = append(out, r)
		}
	}
	return []byte(string(out[:len(out)-1])), true
}
