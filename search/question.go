package search

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"golang.org/x/text/unicode/norm"
)

// Questions are the normal input, in English or French, and every text
// field is indexed in both languages: the French fields keep "how", "to"
// and "the" as words (no French stop list removes them), the English ones
// keep "comment", "faire" and "une". Left in the query as words, such a
// word matches notes on its own, and a title holding it ("How Obsidian
// stores data") outranks the notes about the question's subject. So a
// query is split (splitScaffolding) into its content and its scaffolding:
// the stop words of the language it is written in, taken from the same
// Snowball lists the analysers use, plus a handful of words that frame a
// question to this tool rather than say what it is about. The content
// decides which notes match; the scaffolding only adds to the score of
// those, in the body and context, never in a title (textQuery), as
// Lucene's common-terms query treats frequent words.
var (
	// questionWordsEN: every answer is a note. ("how", "what", "which",
	// "should", "would" are Snowball stop words already.)
	questionWordsEN = []string{"note", "notes"}
	// questionWordsFR: the interrogatives and modal verbs that Snowball's
	// French list, made of pronouns, articles and the forms of "être"
	// and "avoir", leaves out; and "note".
	questionWordsFR = []string{"comment", "pourquoi", "quand", "combien", "quoi",
		"faire", "fait", "peut", "peux", "puis", "faut", "note", "notes"}
)

// minScaffolding is how many stop words of a language a query needs
// before it is taken to be written in it: one ("son", a French stop word
// and an English noun, in "Melanie's son") says nothing.
const minScaffolding = 2

var scaffold struct {
	once   sync.Once
	en, fr map[string]bool // folded, lower case
}

func scaffoldSets() (enSet, frSet map[string]bool) {
	scaffold.once.Do(func() {
		load := func(list []byte, extra []string) map[string]bool {
			tm := analysis.NewTokenMap()
			if err := tm.LoadBytes(list); err != nil {
				panic(err) // a constant of Bleve's
			}
			out := map[string]bool{}
			var it norm.Iter
			for w := range tm {
				out[string(foldLatin(nil, []byte(w), &it))] = true
			}
			for _, w := range extra {
				out[w] = true
			}
			return out
		}
		scaffold.en = load(en.EnglishStopWords, questionWordsEN)
		scaffold.fr = load(fr.FrenchStopWords, questionWordsFR)
	})
	return scaffold.en, scaffold.fr
}

// frElided are the French elided words ("l'", "qu'"), Bleve's list.
var frElided = map[string]bool{"l": true, "m": true, "t": true, "qu": true, "n": true, "s": true, "j": true,
	"d": true, "c": true, "jusqu": true, "quoiqu": true, "lorsqu": true, "puisqu": true}

// splitScaffolding parts text into its content (text with the stop words
// of its language blanked out) and its scaffolding (those words). The
// language is the one with more stop words in text, and at least
// minScaffolding of them; with as many of each, both lists apply.
// Otherwise, or when nothing would be left, text is all content (each
// field's analyser still drops its own language's stop words).
func splitScaffolding(text string) (content, scaffolding string) {
	toks, isEN, isFR, dropEN, dropFR := scaffoldTokens(text)
	if !dropEN && !dropFR {
		return text, ""
	}
	out := []byte(text)
	var dropped []string
	for i, t := range toks {
		if dropEN && isEN[i] || dropFR && isFR[i] {
			dropped = append(dropped, text[t.Start:t.End])
			for j := t.Start; j < t.End; j++ {
				out[j] = ' '
			}
		}
	}
	if len(dropped) == len(toks) {
		return text, ""
	}
	return string(out), strings.Join(dropped, " ")
}

// scaffoldTokens tokenizes text and marks its English and French stop
// words; dropEN and dropFR say which language text is written in (both
// when it has as many of each), or neither when it has fewer than
// minScaffolding stop words.
func scaffoldTokens(text string) (toks analysis.TokenStream, isEN, isFR []bool, dropEN, dropFR bool) {
	enSet, frSet := scaffoldSets()
	toks = unicodetok.NewUnicodeTokenizer().Tokenize([]byte(text))
	isEN = make([]bool, len(toks))
	isFR = make([]bool, len(toks))
	var nEN, nFR int
	var it norm.Iter
	for i, t := range toks {
		w := strings.ReplaceAll(string(foldLatin(nil, bytes.ToLower(t.Term), &it)), "’", "'")
		isEN[i] = enSet[w] || enSet[strings.TrimSuffix(w, "'s")]
		if pre, rest, ok := strings.Cut(w, "'"); ok && frElided[pre] {
			w = rest
		}
		isFR[i] = frSet[w]
		if isEN[i] {
			nEN++
		}
		if isFR[i] {
			nFR++
		}
	}
	dropEN = nEN >= minScaffolding && nEN >= nFR
	dropFR = nFR >= minScaffolding && nFR >= nEN
	return toks, isEN, isFR, dropEN, dropFR
}

// writtenIn is the language a question is plainly written in: by its stop
// words, or, for keywords with no English stop word, French by its
// accents ("fichiers compressés", "télétravail"). "" when it cannot tell
// (a list of keywords, a name, as many stop words of each).
func writtenIn(text string) string {
	_, isEN, _, en, fr := scaffoldTokens(text)
	switch {
	case en && !fr:
		return "en"
	case fr && !en:
		return "fr"
	case !en && !fr && !slices.Contains(isEN, true) && strings.ContainsAny(text, frenchMarks):
		return "fr"
	}
	return ""
}

// frenchMarks are the letters French writes and English does not, but
// for a few borrowed words ("café", "naïve"; a question around them has
// English stop words).
const frenchMarks = "éèêëàâùûüôîïçœÉÈÊËÀÂÙÛÜÔÎÏÇŒ"

// languageName names a language code for a notice.
func languageName(code string) string {
	switch code {
	case "en":
		return "English"
	case "fr":
		return "French"
	}
	return code
}
