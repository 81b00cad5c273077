// Package recall assembles what a vault knows about a topic within a
// token budget (the recall tool): the best matching notes, their one-hop
// neighbours in the link graph, and the caller's own private memory, each
// excerpt with its source, the whole reply counted with a real tokenizer.
// It is built on package vault's exported API (hooks_recall.go).
package recall

import (
	"context"
	"fmt"
	"sort"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/wikilinks"
)

// Bounds of recall's budget.
const (
	DefaultBudget = 2000
	MinBudget     = 100
	MaxBudget     = 100000
	// Overhead is what a recall reply may take beyond budgetTokens:
	// its fixed fields (budgetTokens, usedTokens, tokenizer, mode, left and
	// the keys of context and items), at most 40 tokens whatever their
	// values. Everything else (the context, the items, a notice) is paid
	// from the budget.
	Overhead = 40
)

// Item is the source of one block of a recalled context: the block
// headed `## Title [n]` comes from Items[n-1]. The excerpt itself is only
// in the context: repeating it here doubled what an agent paid for.
type Item struct {
	ID    string  `json:"id"`
	Path  string  `json:"path"`
	Title string  `json:"title"`
	Class string  `json:"class"`
	Why   string  `json:"why"` // match, linked, memory
	Via   string  `json:"via,omitempty"`
	Score float64 `json:"score"`
}

// Result is a context block within a token budget. The budget
// bounds the whole reply (this struct as JSON, which is what the tool
// returns), not only the context; the topic is not echoed, so the part
// that is not context or items stays small and fixed.
type Result struct {
	BudgetTokens int `json:"budgetTokens"`
	// UsedTokens is the size of the whole reply, this field included.
	UsedTokens int    `json:"usedTokens"`
	Tokenizer  string `json:"tokenizer"`
	Mode       string `json:"mode"`
	Notice     string `json:"notice,omitempty"`
	Context    string `json:"context"`
	Items      []Item `json:"items"`
	// Left are the candidates that did not fit the budget.
	Left int `json:"left,omitempty"`
}

// Edge weights for recall's one hop: a typed relation says more than a
// passing mention, and a link out says more than a link in.
func edgeWeight(e wikilinks.Edge, outgoing bool) float64 {
	w := 0.5
	if e.Typed {
		w = 0.7
	}
	if e.Type == "embeds" {
		w = 0.6
	}
	if !outgoing {
		w *= 0.8
	}
	return w
}

// recallSeeds is how many search hits recall starts from, and how many of
// them it expands through the graph.
const (
	recallSeeds  = 8
	recallExpand = 4
)

type candidate struct {
	path, why, via string
	score          float64
	chunk          *search.Chunk
}

// Recall assembles what the vault knows about topic, within budgetTokens
// counted with a real tokenizer: the best matching notes, their one-hop
// neighbours in the link graph, and the caller's own private memory, each
// excerpt with its source. The context never exceeds the budget.
func Recall(ctx context.Context, v *vault.Vault, c access.Caller, topic, project string, budget int) (*Result, error) {
	defer v.SearchRuns()()
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget || budget > MaxBudget {
		return nil, &vault.ArgError{Arg: "budgetTokens", Msg: fmt.Sprintf("must be between %d and %d", MinBudget, MaxBudget)}
	}
	q, inProject, err := v.PlanSearch(c, vault.SearchArgs{Query: topic, Project: project, Limit: recallSeeds}, "topic")
	if err != nil {
		return nil, err
	}
	if inProject {
		// A project's recall still includes the caller's own memory.
		q.Filter.Scopes = append(q.Filter.Scopes, "u:"+c.Principal)
	}
	ix, res, err := v.SearchQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	set := &recallSet{v: v, c: c, byPath: map[string]*candidate{}}
	for _, h := range res.Hits {
		set.top = max(set.top, h.Score)
	}
	for _, h := range res.Hits {
		why := "match"
		if _, ok := vault.PersonalPath(h.Path); ok {
			why = "memory"
		}
		set.add(&candidate{path: h.Path, why: why, score: set.norm(h.Score), chunk: h.Chunk})
	}
	set.addLinked(res.Hits[:min(len(res.Hits), recallExpand)])
	// The caller's profile: what agents learnt about this user colours
	// any answer, so it comes third, after the two best matches.
	if c.Principal != "" {
		prof := vault.PeopleDir + "/" + c.Principal + "/" + vault.ProfileFile
		score := 0.5
		if len(res.Hits) >= 2 {
			score = set.norm(res.Hits[1].Score) * 0.999
		}
		set.add(&candidate{path: prof, why: "memory", score: score})
	}
	order := set.order
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	out := &Result{BudgetTokens: budget, Tokenizer: search.TokenizerName, Mode: string(res.Mode), Notice: res.Notice, Items: []Item{}}
	pack(v, ix, topic, order, out)
	return out, nil
}

// recallSet gathers recall's candidates: each note once, with its best
// score, and only notes the caller may read.
type recallSet struct {
	v      *vault.Vault
	c      access.Caller
	byPath map[string]*candidate
	order  []*candidate
	top    float64 // the best hit's score, which scores are divided by
}

func (s *recallSet) add(cd *candidate) {
	if old := s.byPath[cd.path]; old != nil {
		old.score = max(old.score, cd.score)
		return
	}
	if !s.v.CanRead(s.c, cd.path) {
		return
	}
	if _, _, ok := s.v.NoteTitle(cd.path); !ok {
		return
	}
	s.byPath[cd.path] = cd
	s.order = append(s.order, cd)
}

func (s *recallSet) norm(score float64) float64 {
	if s.top == 0 {
		return 0
	}
	return score / s.top
}

// addLinked adds the notes one link away from each hit, either way, as
// the caller may see the links, scored by the hit's score and the edge.
func (s *recallSet) addLinked(hits []search.Hit) {
	for _, h := range hits {
		_, title, ok := s.v.NoteTitle(h.Path)
		if !ok {
			continue
		}
		base := s.norm(h.Score)
		for _, n := range s.v.Neighbours(s.c, h.Path) {
			s.add(&candidate{path: n.Path, why: "linked", via: title, score: base * edgeWeight(n.Edge, n.Outgoing)})
		}
	}
}
