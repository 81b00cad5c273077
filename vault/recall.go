package vault

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/wikilinks"
)

// Bounds of recall's budget.
const (
	DefaultRecallBudget = 2000
	MinRecallBudget     = 100
	MaxRecallBudget     = 100000
)

// RecallItem is one excerpt of a recalled context, with its source.
type RecallItem struct {
	ID      string  `json:"id"`
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Class   string  `json:"class"`
	Why     string  `json:"why"` // match, linked, memory
	Via     string  `json:"via,omitempty"`
	Score   float64 `json:"score"`
	Tokens  int     `json:"tokens"`
	Excerpt string  `json:"excerpt"`
}

// RecallResult is a context block within a token budget.
type RecallResult struct {
	Topic        string       `json:"topic"`
	BudgetTokens int          `json:"budgetTokens"`
	UsedTokens   int          `json:"usedTokens"`
	Tokenizer    string       `json:"tokenizer"`
	Mode         string       `json:"mode"`
	Notice       string       `json:"notice,omitempty"`
	Context      string       `json:"context"`
	Items        []RecallItem `json:"items"`
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
func (v *Vault) Recall(ctx context.Context, c Caller, topic, project string, budget int) (*RecallResult, error) {
	defer v.searchRuns()()
	if budget == 0 {
		budget = DefaultRecallBudget
	}
	if budget < MinRecallBudget || budget > MaxRecallBudget {
		return nil, argErr("budgetTokens", "must be between %d and %d", MinRecallBudget, MaxRecallBudget)
	}
	plan, err := v.planSearch(c, SearchArgs{Query: topic, Project: project, Limit: recallSeeds}, "topic")
	if err != nil {
		return nil, err
	}
	if plan.project != nil {
		// A project's recall still includes the caller's own memory.
		plan.q.Filter.Scopes = append(plan.q.Filter.Scopes, "u:"+c.Principal)
	}
	ix, res, err := v.runSearch(ctx, plan.q)
	if err != nil {
		return nil, err
	}
	cands := map[string]*candidate{}
	var order []*candidate
	add := func(cd *candidate) {
		if old := cands[cd.path]; old != nil {
			old.score = max(old.score, cd.score)
			return
		}
		if v.roleAt(c, cd.path) < RoleRead || v.entry(cd.path, false) == nil {
			return
		}
		cands[cd.path] = cd
		order = append(order, cd)
	}
	top := 0.0
	for _, h := range res.Hits {
		top = max(top, h.Score)
	}
	norm := func(s float64) float64 {
		if top == 0 {
			return 0
		}
		return s / top
	}
	for _, h := range res.Hits {
		why := "match"
		if _, _, ok := personalPath(h.Path); ok {
			why = "memory"
		}
		add(&candidate{path: h.Path, why: why, score: norm(h.Score), chunk: h.Chunk})
	}
	vis := v.visibleTo(c)
	for i, h := range res.Hits {
		if i >= recallExpand {
			break
		}
		e := v.entry(h.Path, false)
		if e == nil {
			continue
		}
		base := norm(h.Score)
		for _, out := range []bool{true, false} {
			var edges []wikilinks.Edge
			if out {
				edges = v.cat.graph.Outgoing(e.ID, vis)
			} else {
				edges = v.cat.graph.Incoming(e.ID, vis)
			}
			for _, ed := range edges {
				id := ed.From
				if out {
					if ed.Status != wikilinks.Resolved {
						continue
					}
					id = ed.ID
				}
				p := v.cat.pathOf(id)
				if p == "" || p == h.Path {
					continue
				}
				add(&candidate{path: p, why: "linked", via: e.Title, score: base * edgeWeight(ed, out)})
			}
		}
	}
	// The caller's profile: what agents learnt about this user colours
	// any answer, so it comes third, after the two best matches.
	if c.Principal != "" {
		prof := PeopleDir + "/" + c.Principal + "/" + ProfileFile
		score := 0.5
		if len(res.Hits) >= 2 {
			score = norm(res.Hits[1].Score) * 0.999
		}
		add(&candidate{path: prof, why: "memory", score: score})
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	out := &RecallResult{Topic: topic, BudgetTokens: budget, Tokenizer: search.TokenizerName, Mode: string(res.Mode), Notice: res.Notice, Items: []RecallItem{}}
	v.pack(ix, topic, order, out)
	return out, nil
}

// pack fills the budget in order of score: each item gets a block (title,
// source, excerpt); an excerpt is cut to what is left, and an item that
// would not fit even cut short is left out.
func (v *Vault) pack(ix *search.Index, topic string, order []*candidate, out *RecallResult) {
	const sep = "\n\n"
	sepTokens := search.Tokens(sep)
	used := 0
	var blocks []string
	for i, cd := range order {
		e := v.entry(cd.path, false)
		data, err := readFileNoFollow(v.abs(cd.path))
		if e == nil || err != nil {
			continue
		}
		body := string(ParseNote(cd.path, data).Body)
		header := fmt.Sprintf("## %s\nsource: %s (id %s)\n", e.Title, cd.path, e.ID)
		left := out.BudgetTokens - used - search.Tokens(header)
		if len(blocks) > 0 {
			left -= sepTokens
		}
		// The first items may take more room than later ones.
		share := max((out.BudgetTokens-used)/2, 120)
		if cd.why == "linked" || cd.why == "memory" {
			share = max((out.BudgetTokens-used)/4, 80)
		}
		text := excerptFor(ix, body, topic, cd.chunk)
		excerpt := search.Truncate(text, min(left, share))
		if left < 20 {
			out.Left += len(order) - i
			break
		}
		if excerpt == "" {
			out.Left++
			continue
		}
		block := header + excerpt
		n := search.Tokens(block)
		if len(blocks) > 0 {
			n += sepTokens
		}
		if used+n > out.BudgetTokens {
			out.Left++
			continue
		}
		used += n
		blocks = append(blocks, block)
		out.Items = append(out.Items, RecallItem{ID: e.ID, Path: cd.path, Title: e.Title, Class: classOf(cd.path), Why: cd.why, Via: cd.via, Score: cd.score, Tokens: search.Tokens(block), Excerpt: excerpt})
	}
	out.Context = strings.Join(blocks, sep)
	// Token counts of parts do not always add up to the whole (merges
	// across a boundary): measure the whole, and drop from the end until
	// it fits.
	for search.Tokens(out.Context) > out.BudgetTokens && len(blocks) > 0 {
		blocks = blocks[:len(blocks)-1]
		out.Items = out.Items[:len(out.Items)-1]
		out.Left++
		out.Context = strings.Join(blocks, sep)
	}
	out.UsedTokens = search.Tokens(out.Context)
}

// excerptFor is the part of a body worth showing for topic: from the
// section semantic search preferred, else from the lexical snippet's
// place, else the start; whole paragraphs, trimmed later to the budget.
func excerptFor(ix *search.Index, body, topic string, chunk *search.Chunk) string {
	if chunk != nil && chunk.Start < chunk.End && chunk.End <= len(body) {
		return strings.TrimSpace(body[chunk.Start:])
	}
	// The body is scanned for a match once (as far as a snippet looks),
	// not once per chunk.
	if at := ix.FirstMatch(body, topic); at >= 0 {
		for _, c := range search.Chunks(body) {
			if at < c.End {
				return strings.TrimSpace(body[c.Start:])
			}
		}
	}
	return strings.TrimSpace(body)
}
