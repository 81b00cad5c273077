package search

import (
	"context"
	"fmt"
	"math"
	"slices"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Scoring the notes a scan analysed (scan.go) as Bleve scores the notes
// the index holds, so that the two merge into one lexical list: the same
// query (textQuery, common terms and scaffolding included), walked over
// each note's analysed fields, with what Bleve's term scorer reads: the
// statistics the search handed it (the notes the index holds and each
// field's average length, summed from the notes' own lengths and rounded
// up: fieldlens.go; TF-IDF where that is 0), each term's document
// frequency in each field, the query norm over every term query, and the
// coordination factor of each disjunction. A note's field length is
// decoded from a float32 norm as Bleve's is.
// TestScannedNotesScoreAsIndexedOnes checks that an indexed note scores
// alike both ways. The context field (the sequence neighbours' text) is left
// out: a scanned note has none yet.
//
// An index that holds no document yet has no statistics: the scan's own
// stand in (the notes read, each term's frequency among the notes scored
// scaled up to those that matched, the scored notes' mean field length).

// leafWeight is what Bleve's scorer of one term query holds.
type leafWeight struct {
	idf, avgdl, queryWeight float64
}

// scanScorer scores analysed notes with one lexical query.
type scanScorer struct {
	leaves map[*query.TermQuery]*leafWeight
	match  map[*query.MatchQuery]query.Query // as Bleve expands it: nil, none
	err    error
}

// scanStats are the statistics the term scorers read.
type scanStats struct {
	n     float64
	df    func(term, field string) (float64, error)
	avgdl func(field string) (float64, error)
}

// mergeScanned merges the notes sc analysed into lex, the index's n best:
// each scored with scored (the query the index ran, with the statistics
// bm25) if it matches required too (nil: nothing more), then the n best
// of both, a note's scanned version in place of the index's.
func (ix *Index) mergeScanned(ctx context.Context, lex []lexHit, scored, required query.Query, n int, sc *Scanned, bm25 *bsearch.BM25Stats) ([]lexHit, error) {
	if sc == nil || len(sc.docs) == 0 {
		return lex, nil
	}
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, fmt.Errorf("score the notes not indexed yet: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("score the notes not indexed yet: %w", err)
	}
	defer r.Close()
	st := sc.ownStats()
	if bm25.DocCount > 0 {
		st = scanStats{n: bm25.DocCount,
			df: func(term, field string) (float64, error) {
				tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
				if err != nil {
					return 0, err
				}
				defer tfr.Close()
				return float64(tfr.Count()), nil
			},
			avgdl: func(field string) (float64, error) {
				return avgdl(bm25, field), nil
			}}
	}
	sv := &scanScorer{leaves: map[*query.TermQuery]*leafWeight{}, match: map[*query.MatchQuery]query.Query{}}
	if err := sv.prepare(ix, scored, st); err != nil {
		return nil, fmt.Errorf("score the notes not indexed yet: %w", err)
	}
	out := make([]lexHit, 0, len(lex)+len(sc.docs))
	for _, h := range lex {
		if sc.byPath[h.Path] == nil {
			out = append(out, h)
		}
	}
	for _, d := range sc.docs {
		if required != nil && !sv.matches(ix, required, d) {
			continue
		}
		if s, ok := sv.eval(scored, d); ok && s > 0 {
			out = append(out, lexHit{Path: d.doc.Path, Score: s, scanned: d})
		}
	}
	if sv.err != nil {
		return nil, fmt.Errorf("score the notes not indexed yet: %w", sv.err)
	}
	slices.SortStableFunc(out, func(a, b lexHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out[:min(len(out), n)], nil
}

// ownStats are the scan's statistics, for an index with no document.
func (s *Scanned) ownStats() scanStats {
	scale := float64(s.Report.Matched) / float64(max(len(s.docs), 1))
	return scanStats{n: float64(max(s.Report.Read, 1)),
		df: func(term, field string) (float64, error) {
			k := 0
			for _, d := range s.docs {
				if d.fields[field].count(term) > 0 {
					k++
				}
			}
			return math.Round(float64(k) * scale), nil
		},
		avgdl: func(field string) (float64, error) {
			sum := 0
			for _, d := range s.docs {
				sum += d.fields[field].length
			}
			return math.Ceil(float64(sum) / float64(max(len(s.docs), 1))), nil
		}}
}

// prepare weighs every term query of q as Bleve's searchers do, and
// sets the query norm they share.
func (sv *scanScorer) prepare(ix *Index, q query.Query, st scanStats) error {
	var sum float64
	var walk func(q query.Query) error
	walk = func(q query.Query) error {
		switch q := q.(type) {
		case *query.TermQuery:
			df, err := st.df(q.Term, q.FieldVal)
			if err != nil {
				return err
			}
			avgdl, err := st.avgdl(q.FieldVal)
			if err != nil {
				return err
			}
			lw := &leafWeight{avgdl: avgdl}
			if avgdl > 0 {
				lw.idf = math.Log(1 + (st.n-df+0.5)/(df+0.5))
			} else {
				lw.idf = 1 + math.Log(st.n/(df+1))
			}
			sv.leaves[q] = lw
			w := q.BoostVal.Value() * lw.idf
			sum += w * w
		case *query.MatchQuery:
			x := ix.expandMatch(q)
			sv.match[q] = x
			if x != nil {
				return walk(x)
			}
		case *query.DisjunctionQuery:
			for _, c := range q.Disjuncts {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *query.ConjunctionQuery:
			for _, c := range q.Conjuncts {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *query.MatchNoneQuery:
		default:
			return fmt.Errorf("a %T in the lexical query", q)
		}
		return nil
	}
	if err := walk(q); err != nil {
		return err
	}
	norm := 1 / math.Sqrt(sum)
	for tq, lw := range sv.leaves {
		lw.queryWeight = tq.BoostVal.Value() * lw.idf * norm
	}
	return nil
}

// expandMatch is a match query as Bleve runs it: its text analysed by
// its field's analyser, one term query per token in a disjunction (nil:
// no token, which matches nothing).
func (ix *Index) expandMatch(q *query.MatchQuery) query.Query {
	m := ix.bleve.Mapping()
	name := q.Analyzer
	if name == "" {
		name = m.AnalyzerNameForPath(q.FieldVal)
	}
	a := m.AnalyzerNamed(name)
	if a == nil {
		return nil
	}
	toks := a.Analyze([]byte(q.Match))
	if len(toks) == 0 {
		return nil
	}
	tqs := make([]query.Query, len(toks))
	for i, t := range toks {
		tq := query.NewTermQuery(string(t.Term))
		tq.SetField(q.FieldVal)
		tq.SetBoost(q.BoostVal.Value())
		tqs[i] = tq
	}
	dq := query.NewDisjunctionQuery(tqs)
	dq.SetMin(1)
	return dq
}

// eval is d's score for q and whether q matches d, as Bleve's searchers
// compute them.
func (sv *scanScorer) eval(q query.Query, d *scannedDoc) (float64, bool) {
	switch q := q.(type) {
	case *query.TermQuery:
		lw := sv.leaves[q]
		ft := d.fields[q.FieldVal]
		freq := ft.count(q.Term)
		if lw == nil || freq == 0 {
			return 0, false
		}
		return termScore(freq, ft.length, lw), true
	case *query.MatchQuery:
		if x := sv.match[q]; x != nil {
			return sv.eval(x, d)
		}
		return 0, false
	case *query.DisjunctionQuery:
		var sum float64
		matched := 0
		for _, c := range q.Disjuncts {
			if s, ok := sv.eval(c, d); ok {
				sum += s
				matched++
			}
		}
		if matched == 0 || float64(matched) < q.Min {
			return 0, false
		}
		return sum * float64(matched) / float64(len(q.Disjuncts)), true
	case *query.ConjunctionQuery:
		var sum float64
		for _, c := range q.Conjuncts {
			s, ok := sv.eval(c, d)
			if !ok {
				return 0, false
			}
			sum += s
		}
		return sum, len(q.Conjuncts) > 0
	case *query.MatchNoneQuery:
		return 0, false
	}
	sv.err = fmt.Errorf("a %T in the lexical query", q)
	return 0, false
}

// matches says whether q matches d (no score: required's term queries
// are not weighed).
func (sv *scanScorer) matches(ix *Index, q query.Query, d *scannedDoc) bool {
	switch q := q.(type) {
	case *query.TermQuery:
		return d.fields[q.FieldVal].count(q.Term) > 0
	case *query.MatchQuery:
		x, ok := sv.match[q]
		if !ok {
			x = ix.expandMatch(q)
			sv.match[q] = x
		}
		return x != nil && sv.matches(ix, x, d)
	case *query.DisjunctionQuery:
		matched := 0
		for _, c := range q.Disjuncts {
			if sv.matches(ix, c, d) {
				matched++
			}
		}
		return matched > 0 && float64(matched) >= q.Min
	case *query.ConjunctionQuery:
		for _, c := range q.Conjuncts {
			if !sv.matches(ix, c, d) {
				return false
			}
		}
		return len(q.Conjuncts) > 0
	case *query.MatchNoneQuery:
		return false
	}
	sv.err = fmt.Errorf("a %T in the lexical query", q)
	return false
}

// termScore is Bleve's TermQueryScorer: BM25 (TF-IDF when the field's
// average length is 0) on the square root of the frequency, with the
// field length a float32 norm gives back, times the query weight.
func termScore(freq, length int, lw *leafWeight) float64 {
	tf := math.Sqrt(float64(freq))
	norm := float64(float32(1 / math.Sqrt(float64(length))))
	var s float64
	if lw.avgdl > 0 {
		fl := 1 / (norm * norm)
		s = lw.idf * (tf * bsearch.BM25_k1) / (tf + bsearch.BM25_k1*(1-bsearch.BM25_b+bsearch.BM25_b*fl/lw.avgdl))
	} else {
		s = tf * norm * lw.idf
	}
	if lw.queryWeight != 1 {
		s *= lw.queryWeight
	}
	return s
}
