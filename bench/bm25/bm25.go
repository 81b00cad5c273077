// Package bm25 is the plain reference the search benchmarks report beside
// cairn's modes: Okapi BM25 over each document's whole text, words lower
// case, English stop words removed, no stemming, no folding, k1 1.2,
// b 0.75. It is what an outside measurement of "word matching" compares
// with; nothing of cairn's analysis is in it.
package bm25

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

const (
	k1 = 1.2
	b  = 0.75
)

// Index is a set of documents ranked by BM25.
type Index struct {
	ids      []string
	lengths  []int
	postings map[string]map[int]int // word → document → count
	avgLen   float64
	stop     analysis.TokenMap
}

// New indexes docs (id → text).
func New(docs map[string]string) *Index {
	ix := &Index{postings: map[string]map[int]int{}, stop: analysis.NewTokenMap()}
	if err := ix.stop.LoadBytes(en.EnglishStopWords); err != nil {
		panic(err)
	}
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	total := 0
	for i, id := range ids {
		words := ix.words(docs[id])
		ix.ids = append(ix.ids, id)
		ix.lengths = append(ix.lengths, len(words))
		total += len(words)
		for _, w := range words {
			p := ix.postings[w]
			if p == nil {
				p = map[int]int{}
				ix.postings[w] = p
			}
			p[i]++
		}
	}
	if len(ids) > 0 {
		ix.avgLen = float64(total) / float64(len(ids))
	}
	return ix
}

// words are text's words: letters and digits, lower case, stop words out.
func (ix *Index) words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if _, stop := ix.stop[w]; !stop {
			out = append(out, w)
		}
	}
	return out
}

// Search is the n best documents for query, best first (ties by id).
func (ix *Index) Search(query string, n int) []string {
	scores := map[int]float64{}
	seen := map[string]bool{}
	N := float64(len(ix.ids))
	for _, w := range ix.words(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		p := ix.postings[w]
		if len(p) == 0 {
			continue
		}
		idf := math.Log(1 + (N-float64(len(p))+0.5)/(float64(len(p))+0.5))
		for d, tf := range p {
			f := float64(tf)
			scores[d] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(ix.lengths[d])/ix.avgLen))
		}
	}
	docs := make([]int, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if scores[docs[i]] != scores[docs[j]] {
			return scores[docs[i]] > scores[docs[j]]
		}
		return ix.ids[docs[i]] < ix.ids[docs[j]]
	})
	out := make([]string, 0, min(n, len(docs)))
	for _, d := range docs[:min(n, len(docs))] {
		out = append(out, ix.ids[d])
	}
	return out
}
