package search

import (
	"hash/fnv"
	"math"
	"sort"
)

// fuse merges the lists into one ranking by weighted Reciprocal Rank
// Fusion: a hit scores 1/(RRFK + rank) from the lexical list and
// semW/(RRFK + rank) from the semantic list (semanticWeight; 1 when the
// semantic list runs alone). Hits a list scores alike share a rank, the
// best of their group (1, 1, 1, 4…): a list that cannot tell them apart
// (a dozen notes matching one common word, BM25 scores equal to the last
// bit) leaves their order to the other list, not to the order its index
// happened to return them in. Then come the sequence neighbours and the
// boosts for names and dates. The caller holds ix.mu (read).
func (ix *Index) fuse(lex []lexHit, sem []semHit, semW float64, names map[string]bool, q Query, mode Mode) []Hit {
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
	if mode == Semantic {
		semW = 1
	}
	rank := 0
	for i, l := range lex {
		if i == 0 || l.Score != lex[i-1].Score {
			rank = i + 1
		}
		h := get(l.Path)
		h.Lexical = &Rank{Rank: rank, Score: l.Score}
		h.Score += 1 / (RRFK + float64(rank))
	}
	for i, s := range sem {
		if i == 0 || s.Sim != sem[i-1].Sim {
			rank = i + 1
		}
		h := get(s.Path)
		h.Semantic = &Rank{Rank: rank, Score: s.Sim}
		c := s.Chunk
		h.Chunk = &c
		h.Score += semW / (RRFK + float64(rank))
	}
	ix.shareWithNeighbours(order, get, q.Filter)
	ix.boost(order, names, q.Text)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		// A tie goes to the hit whose words match the query: a lexical
		// rank against a semantic one alike (weight 1, the same rank; a
		// note whose vector is still being made is in one list only).
		if (a.Lexical != nil) != (b.Lexical != nil) {
			return a.Lexical != nil
		}
		// Then by what the notes hold, never by their names: a vault's
		// naming (numbered, dated, hashed) must not decide which of two
		// equal answers shows first.
		if sa, sb := ix.sumOf(a.Path), ix.sumOf(b.Path); sa != sb {
			return sa < sb
		}
		return a.Path < b.Path
	})
	out := make([]Hit, 0, min(q.Limit, len(order)))
	for _, h := range order[:min(q.Limit, len(order))] {
		out = append(out, *h)
	}
	return out
}

// sumOf is the content hash of the indexed note at path (0 if unknown).
func (ix *Index) sumOf(path string) uint64 {
	if m := ix.meta[path]; m != nil {
		return m.Sum
	}
	return 0
}

// contentSum hashes what a note says past its title, not where it is or
// what it is called (a title may be the file's name).
func contentSum(d *Doc) uint64 {
	h := fnv.New64a()
	h.Write([]byte(bodyPastTitle(d.Body, d.Title)))
	return h.Sum64()
}

// semanticWeight is the semantic list's weight in a hybrid search, the
// lexical list's being 1:
//
//	coverage × e^(standout(semantic) − standout(lexical))
//
// (docs/search-ranking.md, "How the two lists are fused"), and then no more than
// the odds that the best lexical hit leaves the query unsaid: (1 − c)/c,
// c being the share of the query's words, weighted by their rarity, that
// the hit holds (lexCover). When it holds every word, what was asked is
// found as asked, and notes that only resemble the query in meaning must
// not push it down (keyword queries on Go's documentation: hybrid 0.526
// nDCG@10 against 0.569 lexical before, 0.570 after); when it holds half,
// the lists weigh at most alike; when it holds little (a question asked in
// other words than the answer's), the semantic list keeps its weight and
// may outweigh the lexical one. A list's standout is
// how far its best score stands above the list, in the list's own
// standard deviations, read as evidence on a log scale: equal evidence
// weighs the lists alike, and each standard deviation more on one side
// multiplies that side's weight by e. Coverage is the share of the query
// the embedder knows (sr.cov). So a flat list of similarities cannot move
// a lexical hit that stands out, and a semantic hit that stands out wins
// over a flat lexical list, whatever the scales of the scores.
func semanticWeight(lex []lexHit, sem []semHit, sr semResult, limit int) float64 {
	if len(sem) == 0 {
		return 0
	}
	ls := make([]float64, len(lex))
	for i, l := range lex {
		ls[i] = l.Score
	}
	ss := make([]float64, len(sem))
	for i, s := range sem {
		ss[i] = s.Sim
	}
	// The lists compare the same notes: a note BM25 did not find scores 0
	// in it, so the lexical list is padded with zeros to the depth read,
	// or to the number of notes when there are fewer.
	pad := min(depth(limit), max(len(ls), sr.scored))
	return sr.cov * math.Exp(standout(ss, len(ss))-standout(ls, pad))
}

// standout is how many standard deviations the best of x stands above
// the mean of x padded with zeros to pad entries (0 for an empty or flat
// list). It is at most sqrt(pad-1), reached by one score among zeros.
func standout(x []float64, pad int) float64 {
	if len(x) == 0 {
		return 0
	}
	m := max(pad, len(x))
	var sum float64
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(m)
	sq := float64(m-len(x)) * mean * mean // the zeros
	for _, v := range x {
		sq += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(sq / float64(m))
	if sd == 0 {
		return 0
	}
	return max(x[0]-mean, 0) / sd
}

// shareWithNeighbours gives each hit's sequence neighbours (Doc.Sequence)
// neighbourShare of its score: an answer often sits beside the words that
// match the question. The neighbours pass the same filter.
func (ix *Index) shareWithNeighbours(order []*Hit, get func(string) *Hit, f Filter) {
	allow := ix.vfilter(f).full
	type scored struct {
		path  string
		score float64
	}
	base := make([]scored, len(order))
	for i, h := range order {
		base[i] = scored{h.Path, h.Score}
	}
	best := map[string]float64{}
	for _, bs := range base {
		p, b := bs.path, bs.score
		m := ix.meta[p]
		if m == nil {
			continue
		}
		for _, nb := range m.Seq {
			if nb == p || !allow(nb, ix.meta[nb]) {
				continue
			}
			h := get(nb)
			share := neighbourShare * b
			h.Score += share
			if share > best[nb] {
				best[nb], h.Via = share, p
			}
		}
	}
}

// boost multiplies the score of hits by a person the query names by
// 1 + whoBoost, and of hits dated in a month or year it names by
// 1 + dateBoost.
func (ix *Index) boost(order []*Hit, names map[string]bool, text string) {
	if hints := dateHints(text); len(hints) > 0 {
		for _, h := range order {
			if m := ix.meta[h.Path]; m != nil {
				for _, dh := range hints {
					if dh.matches(m.Date) {
						h.When = true
						h.Score *= 1 + dateBoost
						break
					}
				}
			}
		}
	}
	if len(names) > 0 {
		for _, h := range order {
			if m := ix.meta[h.Path]; m != nil {
				for _, w := range m.Who {
					if names[w] {
						h.Who = true
						h.Score *= 1 + whoBoost
						break
					}
				}
			}
		}
	}
}
