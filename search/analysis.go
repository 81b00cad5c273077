package search

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/truncate"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
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

// The analysers of the text fields: Bleve's "en" and "fr" with the
// token cut in front, and nothing else changed (a word of up to 64 runes
// is analysed exactly as before; a test compares them).
const (
	truncateName = "cairn_truncate"
	analyzerEN   = "cairn_en"
	analyzerFR   = "cairn_fr"
)

// langAnalyzer is the analyser of each language suffix of the text fields
// (title_en is analysed by cairn_en).
var langAnalyzer = map[string]string{"en": analyzerEN, "fr": analyzerFR}

// addAnalyzers defines the analysers in the mapping, which Bleve stores
// with the index: an index opened later, by this binary or another,
// analyses exactly as it was built.
func addAnalyzers(im *mapping.IndexMappingImpl) error {
	if err := im.AddCustomTokenFilter(truncateName, map[string]any{
		"type":   truncate.Name,
		"length": float64(maxTokenRunes), // a JSON number, as the constructor expects
	}); err != nil {
		return fmt.Errorf("search mapping: %w", err)
	}
	chains := map[string][]string{
		// en.AnalyzerConstructor's filters, in its order.
		analyzerEN: {truncateName, en.PossessiveName, lowercase.Name, en.StopName, porter.Name},
		// fr.AnalyzerConstructor's filters, in its order.
		analyzerFR: {truncateName, lowercase.Name, fr.ElisionName, fr.StopName, fr.LightStemmerName},
	}
	for name, filters := range chains {
		if err := im.AddCustomAnalyzer(name, map[string]any{
			"type":          custom.Name,
			"tokenizer":     unicode.Name,
			"token_filters": filters,
		}); err != nil {
			return fmt.Errorf("search mapping: %w", err)
		}
	}
	return nil
}

// analyzer is the analyser of a language suffix ("en", "fr") as the index
// defines it.
func (ix *Index) analyzer(lang string) analysis.Analyzer {
	return ix.bleve.Mapping().AnalyzerNamed(langAnalyzer[lang])
}
