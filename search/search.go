package search

import (
	"context"
	"fmt"
	"slices"
	"sort"
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
}

// Rank is where one list placed a hit (1 is first).
type Rank struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
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
}

// Result is a ranked list and how it was made.
type Result struct {
	Hits []Hit
	// Mode is what ran: a semantic or hybrid search without vectors runs
	// lexically, and says so here and in Notice.
	Mode   Mode
	Notice string
	// VectorsPending counts documents not embedded yet (their vectors are
	// being made in the background).
	VectorsPending int
}

// RRFK is the k of Reciprocal Rank Fusion: a hit's fused score is the sum
// over lists of 1/(k + rank).
const RRFK = 60

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
		res.Mode = Lexical
	}
	if ix.queue != nil {
		res.VectorsPending = ix.queue.len()
	}
	n := depth(q.Limit)
	var lex []lexHit
	var sem []semHit
	if res.Mode != Semantic {
		var err error
		if lex, _, err = ix.lexical(ctx, q.Text, q.Filter, n); err != nil {
			return nil, err
		}
	}
	if res.Mode != Lexical && strings.TrimSpace(q.Text) != "" {
		vecs, err := ix.opts.Embedder.Embed(ctx, []string{q.Text})
		switch {
		case err != nil && res.Mode == Semantic:
			return nil, fmt.Errorf("semantic search: %w", err)
		case err != nil:
			res.Mode = Lexical
			res.Notice = fmt.Sprintf("the embedder failed (%v); ran lexically", err)
			if lex == nil {
				if lex, _, err = ix.lexical(ctx, q.Text, q.Filter, n); err != nil {
					return nil, err
				}
			}
		default:
			ix.mu.RLock()
			sem = ix.vec.search(vecs[0], ix.allow(q.Filter), n)
			ix.mu.RUnlock()
		}
	}
	res.Hits = fuse(lex, sem, res.Mode, q.Limit)
	return res, nil
}

// fuse merges the lists with RRF (one list alone keeps its own scores).
func fuse(lex []lexHit, sem []semHit, mode Mode, limit int) []Hit {
	byPath := map[string]*Hit{}
	var order []*Hit
	get := func(p string) *Hit {
		h := byPath[p]
		if h == nil {
			h = &Hit{Path: p}
			byPath[p] = h
			order = append(order, h)
		}
		return h
	}
	for i, l := range lex {
		h := get(l.Path)
		h.Lexical = &Rank{Rank: i + 1, Score: l.Score}
	}
	for i, s := range sem {
		h := get(s.Path)
		h.Semantic = &Rank{Rank: i + 1, Score: s.Sim}
		c := s.Chunk
		h.Chunk = &c
	}
	for _, h := range order {
		switch mode {
		case Lexical:
			h.Score = h.Lexical.Score
		case Semantic:
			h.Score = h.Semantic.Score
		default:
			if h.Lexical != nil {
				h.Score += 1 / float64(RRFK+h.Lexical.Rank)
			}
			if h.Semantic != nil {
				h.Score += 1 / float64(RRFK+h.Semantic.Rank)
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].Score != order[j].Score {
			return order[i].Score > order[j].Score
		}
		return order[i].Path < order[j].Path
	})
	out := make([]Hit, 0, min(limit, len(order)))
	for _, h := range order[:min(limit, len(order))] {
		out = append(out, *h)
	}
	return out
}

// allow is the filter as a predicate on the manifest, for the vector scan;
// the caller holds ix.mu (read).
func (ix *Index) allow(f Filter) func(string) bool {
	scopes := map[string]bool{}
	for _, s := range f.Scopes {
		scopes[s] = true
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
	return func(p string) bool {
		m := ix.meta[p]
		switch {
		case m == nil || !scopes[m.Scope]:
			return false
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
	}
}
