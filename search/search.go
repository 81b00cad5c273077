package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Mode is how a search runs.
type Mode string

// The modes.
const (
	Hybrid   Mode = "hybrid"
	Lexical  Mode = "lexical"
	Semantic Mode = "semantic"
)

// ParseMode reads a mode name ("" is hybrid).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Hybrid:
		return Hybrid, nil
	case Lexical, Semantic:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q: use hybrid, lexical or semantic", s)
}

// Query is one search.
type Query struct {
	Text   string
	Mode   Mode
	Limit  int
	Filter Filter
	// Scanned are notes the index does not hold yet, read for this query
	// (Index.Scan): the lexical list scores them too.
	Scanned *Scanned
}

// Rank is where one list placed a hit (1 is first).
type Rank struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score,omitempty"`
}

// Hit is one result.
type Hit struct {
	Path  string
	Score float64 // the fused score (RRF), or the single list's score
	// Lexical and Semantic say which lists found the hit, and where.
	Lexical  *Rank
	Semantic *Rank
	// Chunk is the section semantic search preferred, if it found the hit.
	Chunk *Chunk
	// Via is the neighbour that passed this hit the largest share of its
	// score, when it got one.
	Via string
	// Who says the hit is by a person the query names.
	Who bool
	// When says the hit is dated in a month or year the query names.
	When bool
}

// Result is a ranked list and how it was made.
type Result struct {
	Hits []Hit
	// Mode is what ran: a semantic or hybrid search without vectors runs
	// lexically, and says so here and in Notice.
	Mode   Mode
	Notice string
	// SemanticWeight is the semantic list's weight in a hybrid search, the
	// lexical list's being 1 (semanticWeight); 0 when the semantic list
	// did not count.
	SemanticWeight float64
	// VectorsPending counts documents not embedded yet (their vectors are
	// being made in the background).
	VectorsPending int
	// Scan says what was read of the notes not in the index (nil when
	// the query had none: Query.Scanned).
	Scan *ScanReport
}

// Fusion. A hit's score is the weighted sum over lists of w/(k + rank)
// (Reciprocal Rank Fusion): the lexical list weighs 1, the semantic list
// by the evidence it has against the lexical list's (semanticWeight in
// fuse.go). k is 10, not the customary 60: with sequence neighbours and
// the boosts below, k = 60 flattened the fused list (LoCoMo hybrid
// recall@10 0.731 against 0.756; docs/search.md). Then each hit gives
// neighbourShare of its score to its sequence neighbours, and hits by a
// person the query names, or dated in a month or year it names, are worth
// 1 + whoBoost (dateBoost) times more.
const (
	RRFK           = 10.0
	neighbourShare = 0.4
	whoBoost       = 1.0
	dateBoost      = 1.0
)

// depth is how deep each list is read before fusion.
func depth(limit int) int { return max(3*limit, 50) }

// Search runs q. Access and filters are part of both lists' queries, so a
// hit from outside the caller's scopes is never scored, counted or cut.
func (ix *Index) Search(ctx context.Context, q Query) (*Result, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	res := &Result{Mode: q.Mode}
	if res.Mode == "" {
		res.Mode = Hybrid
	}
	if res.Mode != Lexical && ix.vec == nil {
		res.Notice = "semantic search is off (embedder: none); ran lexically"
		if ix.offReason != "" {
			res.Notice = "semantic search is off: " + ix.offReason + "; ran lexically"
		}
		res.Mode = Lexical
	}
	ix.mu.RLock()
	vf := ix.vfilter(q.Filter)
	res.VectorsPending = ix.pendingIn(vf.scopeOK)
	names, text := ix.names(q.Text, vf.scopeOK)
	ix.mu.RUnlock()
	if lang := writtenIn(text); res.Mode == Hybrid && !readsLanguage(ix.opts.Embedder, lang) {
		res.Notice = "the query is in " + languageName(lang) + ", which the vectors do not read; ran lexically"
		res.Mode = Lexical
	}
	n := depth(q.Limit)
	var lex []lexHit
	var sem []semHit
	// The two lists are made at once: a hybrid search costs the slower of
	// the two, not their sum.
	semc := make(chan semResult, 1)
	if res.Mode != Lexical && strings.TrimSpace(text) != "" {
		go func() { semc <- ix.semantic(ctx, text, vf, n) }()
	} else {
		semc <- semResult{}
	}
	var lexErr error
	if res.Mode != Semantic {
		lex, _, lexErr = ix.lexical(ctx, text, q.Filter, n, q.Scanned)
	}
	sr := <-semc
	if lexErr != nil {
		return nil, lexErr
	}
	switch {
	case sr.err != nil && res.Mode == Semantic:
		return nil, fmt.Errorf("semantic search: %w", sr.err)
	case sr.err != nil:
		res.Mode = Lexical
		res.Notice = fmt.Sprintf("the embedder failed (%v); ran lexically", sr.err)
	case res.Mode != Lexical && sr.cov == 0:
		// No evidence, no result: a query vector made of no known word
		// would rank notes by nothing (by path, as ties).
		res.Notice = "the embedder knows no word of the query: no semantic results"
		if res.Mode == Hybrid {
			res.Mode = Lexical
			res.Notice += "; ran lexically"
		}
	default:
		sem = sr.hits
	}
	if res.Mode == Hybrid {
		res.SemanticWeight = semanticWeight(lex, sem, sr, q.Limit)
		if len(lex) > 0 && res.SemanticWeight > 0 {
			// The semantic list weighs no more than the odds that the
			// best lexical hit leaves the query unsaid (fuse.go).
			if c := ix.lexCover(ctx, text, lex[0]); c > 0 {
				res.SemanticWeight = min(res.SemanticWeight, (1-c)/c)
			}
		}
	}
	ix.mu.RLock()
	res.Hits = ix.fuse(lex, sem, res.SemanticWeight, names, q, res.Mode)
	ix.mu.RUnlock()
	if q.Scanned != nil {
		res.Scan = scanReport(q.Scanned.Report, lex, res.Hits)
	}
	return res, nil
}

// scanReport is what a search read of the notes not in the index, with
// Found the answer's hits that came from that reading.
func scanReport(rep ScanReport, lex []lexHit, hits []Hit) *ScanReport {
	read := map[string]bool{}
	for _, h := range lex {
		if h.scanned != nil {
			read[h.Path] = true
		}
	}
	for _, h := range hits {
		if read[h.Path] {
			rep.Found++
		}
	}
	return &rep
}

// semResult is the semantic list, with the share of the query the
// embedder knows (cov, 0 to 1) and the number of notes it scored.
type semResult struct {
	hits   []semHit
	cov    float64
	scored int // notes scored
	err    error
}

// semantic embeds the query and scans the vectors. A query vector of
// zeros (no word the embedder knows) has coverage 0 and finds nothing.
func (ix *Index) semantic(ctx context.Context, text string, vf vfilter, n int) semResult {
	vecs, err := ix.opts.Embedder.Embed(ctx, []string{text})
	if err == nil && (len(vecs) != 1 || len(vecs[0]) != ix.vec.dims) {
		err = fmt.Errorf("the embedder's vector does not have %d dimensions", ix.vec.dims)
	}
	if err != nil {
		return semResult{err: err}
	}
	cov := 1.0
	if c, ok := ix.opts.Embedder.(CoverageReporter); ok {
		cov = min(max(c.Coverage(text), 0), 1)
	}
	if isZero(vecs[0]) {
		cov = 0
	}
	if cov == 0 {
		return semResult{}
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	hits, scored := ix.vec.search(vecs[0], vf, n)
	return semResult{hits: hits, cov: cov, scored: scored}
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// names takes from a query the names of people notes are by (Doc.Who):
// they select whose notes to prefer instead of being matched as words,
// as "Caroline" would match every greeting to her. A query made of names
// only keeps them as words too. Only names in the caller's scopes count,
// so the handling of a query never depends on notes it may not read. The
// caller holds ix.mu (read).
func (ix *Index) names(q string, scopeOK []bool) (map[string]bool, string) {
	if len(ix.who) == 0 {
		return nil, q
	}
	known := func(name string) bool {
		for s := range ix.who[name] {
			if s < len(scopeOK) && scopeOK[s] {
				return true
			}
		}
		return false
	}
	words := strings.Fields(q)
	names := map[string]bool{}
	keep := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		w := nameWord(words[i])
		if i+1 < len(words) {
			if two := w + " " + nameWord(words[i+1]); known(two) {
				names[two] = true
				i++
				continue
			}
		}
		if w != "" && known(w) {
			names[w] = true
			continue
		}
		keep = append(keep, words[i])
	}
	if len(keep) == 0 {
		return names, q
	}
	return names, strings.Join(keep, " ")
}

// nameWord is a query word as a name: lower case, without punctuation
// around it or a possessive after it.
func nameWord(w string) string {
	w = strings.ToLower(strings.Trim(w, ".,;:!?\"'()[]{}«»“”"))
	for _, suf := range []string{"'s", "’s", "'", "’"} {
		w = strings.TrimSuffix(w, suf)
	}
	return w
}

// vfilter is the filter as the vector scan and the neighbour share apply
// it, on the manifest; the caller holds ix.mu (read).
func (ix *Index) vfilter(f Filter) vfilter {
	scopeOK := make([]bool, len(ix.scopeIDs))
	for _, s := range f.Scopes {
		if id, ok := ix.scopeIDs[s]; ok {
			scopeOK[id] = true
		}
	}
	var tags []string
	for _, t := range f.Tags {
		tags = append(tags, normTag(t))
	}
	typ := normTag(f.Type)
	after, before := int64(0), int64(0)
	if !f.After.IsZero() {
		after = f.After.Unix()
	}
	if !f.Before.IsZero() {
		before = f.Before.Unix()
	}
	only := f.PathPrefix == "" && len(tags) == 0 && typ == "" && after == 0 && before == 0
	return vfilter{scopeOK: scopeOK, only: only, full: func(p string, m *docMeta) bool {
		switch {
		case m == nil || !scopeOK[m.scope]:
			return false
		case only:
			return true
		case f.PathPrefix != "" && !strings.HasPrefix(p, f.PathPrefix):
			return false
		case typ != "" && m.Type != typ:
			return false
		case after != 0 && (m.Date == 0 || m.Date < after):
			return false
		case before != 0 && (m.Date == 0 || m.Date >= before):
			return false
		}
		for _, t := range tags {
			if !slices.Contains(m.Tags, t) {
				return false
			}
		}
		return true
	}}
}
