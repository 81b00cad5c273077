package vault

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// Bounds of recall's budget.
const (
	DefaultRecallBudget = 2000
	MinRecallBudget     = 100
	MaxRecallBudget     = 100000
	// RecallOverhead is what a recall reply may take beyond budgetTokens:
	// its fixed fields (budgetTokens, usedTokens, tokenizer, mode, left and
	// the keys of context and items), at most 40 tokens whatever their
	// values. Everything else (the context, the items, a notice) is paid
	// from the budget.
	RecallOverhead = 40
)

// RecallItem is the source of one block of a recalled context: the block
// headed `## Title [n]` comes from Items[n-1]. The excerpt itself is only
// in the context: repeating it here doubled what an agent paid for.
type RecallItem struct {
	ID    string  `json:"id"`
	Path  string  `json:"path"`
	Title string  `json:"title"`
	Class string  `json:"class"`
	Why   string  `json:"why"` // match, linked, memory
	Via   string  `json:"via,omitempty"`
	Score float64 `json:"score"`
}

// RecallResult is a context block within a token budget. The budget
// bounds the whole reply (this struct as JSON, which is what the tool
// returns), not only the context; the topic is not echoed, so the part
// that is not context or items stays small and fixed.
type RecallResult struct {
	BudgetTokens int `json:"budgetTokens"`
	// UsedTokens is the size of the whole reply, this field included.
	UsedTokens int          `json:"usedTokens"`
	Tokenizer  string       `json:"tokenizer"`
	Mode       string       `json:"mode"`
	Notice     string       `json:"notice,omitempty"`
	Context    string       `json:"context"`
	Items      []RecallItem `json:"items"`
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
func (v *Vault) Recall(ctx context.Context, c access.Caller, topic, project string, budget int) (*RecallResult, error) {
	defer v.index.SearchRuns()()
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
	set := &recallSet{v: v, c: c, byPath: map[string]*candidate{}}
	for _, h := range res.Hits {
		set.top = max(set.top, h.Score)
	}
	for _, h := range res.Hits {
		why := "match"
		if _, _, ok := personalPath(h.Path); ok {
			why = "memory"
		}
		set.add(&candidate{path: h.Path, why: why, score: set.norm(h.Score), chunk: h.Chunk})
	}
	set.addLinked(res.Hits[:min(len(res.Hits), recallExpand)])
	// The caller's profile: what agents learnt about this user colours
	// any answer, so it comes third, after the two best matches.
	if c.Principal != "" {
		prof := PeopleDir + "/" + c.Principal + "/" + ProfileFile
		score := 0.5
		if len(res.Hits) >= 2 {
			score = set.norm(res.Hits[1].Score) * 0.999
		}
		set.add(&candidate{path: prof, why: "memory", score: score})
	}
	order := set.order
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	out := &RecallResult{BudgetTokens: budget, Tokenizer: search.TokenizerName, Mode: string(res.Mode), Notice: res.Notice, Items: []RecallItem{}}
	v.pack(ix, topic, order, out)
	return out, nil
}

// recallSet gathers recall's candidates: each note once, with its best
// score, and only notes the caller may read.
type recallSet struct {
	v      *Vault
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
	if s.v.roleAt(s.c, cd.path) < access.RoleRead || s.v.entry(cd.path, false) == nil {
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
	vis := s.v.visibleTo(s.c)
	for _, h := range hits {
		e := s.v.entry(h.Path, false)
		if e == nil {
			continue
		}
		base := s.norm(h.Score)
		for _, out := range []bool{true, false} {
			var edges []wikilinks.Edge
			if out {
				edges = s.v.graph().Outgoing(e.ID, vis)
			} else {
				edges = s.v.graph().Incoming(e.ID, vis)
			}
			for _, ed := range edges {
				id := ed.From
				if out {
					if ed.Status != wikilinks.Resolved {
						continue
					}
					id = ed.ID
				}
				p := s.v.pathOf(id)
				if p == "" || p == h.Path {
					continue
				}
				s.add(&candidate{path: p, why: "linked", via: e.Title, score: base * edgeWeight(ed, out)})
			}
		}
	}
}

// pack fills the budget in order of score: each item gets a block
// (`## Title [n]`, then the excerpt) and its source in Items; an excerpt
// is cut to what is left, and an item that would not fit even cut short is
// left out. What is counted is the reply as JSON (escapes and all), so the
// budget bounds what the agent is sent.
func (v *Vault) pack(ix *search.Index, topic string, order []*candidate, out *RecallResult) {
	sepTokens := jsonTokens(recallSep)
	// The whole reply stays within limit; the reply without items (its
	// fixed fields, with room for usedTokens' and left's digits, and a
	// notice) is counted from the start.
	limit := out.BudgetTokens + RecallOverhead
	used := replyTokens(out) + search.Tokens(`,"left":1000`) + 1
	var headers, excerpts []string
	for i, cd := range order {
		e := v.entry(cd.path, false)
		data, err := readFileNoFollow(v.abs(cd.path))
		if e == nil || err != nil {
			continue
		}
		body := string(note.Parse(cd.path, data).Body)
		item := RecallItem{ID: e.ID, Path: cd.path, Title: e.Title, Class: classOf(cd.path), Why: cd.why, Via: cd.via, Score: roundScore(cd.score)}
		header := fmt.Sprintf("## %s [%d]\n", e.Title, len(out.Items)+1)
		fixed := jsonTokens(header) + itemTokens(item)
		if len(headers) > 0 {
			fixed += sepTokens
		}
		left := limit - used - fixed
		if left < 20 {
			out.Left += len(order) - i
			break
		}
		// The first items may take more room than later ones.
		share := max((limit-used)/2, 120)
		if cd.why == "linked" || cd.why == "memory" {
			share = max((limit-used)/4, 80)
		}
		excerpt := truncateJSON(withoutTitle(excerptFor(ix, body, topic, cd.chunk), e.Title), min(left, share)-3)
		excerpt = mendCut(excerpt)
		if excerpt == "" {
			out.Left++
			continue
		}
		n := fixed + jsonTokens(excerpt)
		if used+n > limit {
			out.Left++
			continue
		}
		used += n
		headers = append(headers, header)
		excerpts = append(excerpts, excerpt)
		out.Items = append(out.Items, item)
	}
	fit(out, limit, headers, excerpts)
}

// fit measures the whole reply and, since token counts of parts do not
// always add up to the whole (merges across a boundary), cuts the last
// excerpt shorter, or drops it, until the reply is within limit.
func fit(out *RecallResult, limit int, headers, excerpts []string) {
	join := func() {
		blocks := make([]string, len(headers))
		for i := range headers {
			blocks[i] = headers[i] + excerpts[i]
		}
		out.Context = strings.Join(blocks, recallSep)
	}
	join()
	for {
		out.UsedTokens = 0
		for range 4 { // the count includes its own digits
			n := replyTokens(out)
			if n == out.UsedTokens {
				break
			}
			out.UsedTokens = n
		}
		if out.UsedTokens <= limit || len(headers) == 0 {
			return
		}
		last := len(headers) - 1
		if n := jsonTokens(excerpts[last]) - (out.UsedTokens - limit) - 2; n >= 20 {
			if shorter := mendCut(truncateJSON(excerpts[last], n-3)); shorter != "" && shorter != excerpts[last] {
				excerpts[last] = shorter
				join()
				continue
			}
		}
		headers, excerpts = headers[:last], excerpts[:last]
		out.Items = out.Items[:last]
		out.Left++
		join()
	}
}

// recallSep separates the context's blocks.
const recallSep = "\n\n"

// replyTokens is the size of the reply as the tool sends it: json.Marshal,
// as mcptools encodes every result.
func replyTokens(out *RecallResult) int {
	b, err := json.Marshal(out)
	if err != nil {
		return math.MaxInt
	}
	return search.Tokens(string(b))
}

// jsonTokens is about what s costs inside a JSON string (its escapes
// included, its quotes not).
func jsonTokens(s string) int {
	b, _ := json.Marshal(s)
	return search.Tokens(string(b[1 : len(b)-1]))
}

// itemTokens is what an item costs in the items list (with its comma).
func itemTokens(it RecallItem) int {
	b, _ := json.Marshal(it)
	return search.Tokens(string(b)) + 1
}

// truncateJSON is the longest prefix of s, cut at a word as
// search.Truncate cuts, that costs at most max tokens inside a JSON
// string: escaped newlines and quotes make it a little dearer than the
// text alone.
func truncateJSON(s string, max int) string {
	target := max
	for target > 0 {
		t := search.Truncate(s, target)
		n := jsonTokens(t)
		if n <= max {
			return t
		}
		target -= n - max
	}
	return ""
}

// mendCut keeps an excerpt cut short from ending in half a link, half a
// code span or inside a code block: a `[[…`, `[…` or `[…](…` left open
// on its last line is dropped with what follows it, so is an unpaired
// backtick, and a fenced block left open is closed.
func mendCut(excerpt string) string {
	if !strings.HasSuffix(excerpt, "…") {
		return excerpt
	}
	lineStart := strings.LastIndexByte(excerpt, '\n') + 1
	last := excerpt[lineStart:]
	cut := len(last)
	if i := strings.LastIndex(last, "[["); i >= 0 && !strings.Contains(last[i:], "]]") {
		cut = min(cut, i)
	}
	if i := strings.LastIndexByte(last, '['); i >= 0 && !strings.Contains(last[i:], "]") {
		cut = min(cut, i)
	}
	if j := strings.LastIndex(last, "]("); j >= 0 && !strings.Contains(last[j:], ")") {
		if i := strings.LastIndexByte(last[:j], '['); i >= 0 {
			cut = min(cut, i)
		}
	}
	if strings.Count(last[:cut], "`")%2 == 1 && !strings.HasPrefix(strings.TrimLeft(last, " "), "```") {
		cut = strings.LastIndexByte(last[:cut], '`')
	}
	if cut < len(last) {
		if cut > 0 && last[cut-1] == '!' {
			cut-- // an embed
		}
		excerpt = strings.TrimRight(excerpt[:lineStart+cut], " \n") + "…"
	}
	fences := 0
	for _, l := range strings.Split(excerpt, "\n") {
		if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fences++
		}
	}
	if fences%2 == 1 {
		excerpt += "\n```"
	}
	if excerpt == "…" {
		return ""
	}
	return excerpt
}

// withoutTitle drops the note's own `# Title` line from the start of an
// excerpt: the block's heading already says it.
func withoutTitle(excerpt, title string) string {
	first, rest, _ := strings.Cut(excerpt, "\n")
	if strings.TrimSpace(strings.TrimPrefix(first, "#")) == title && strings.HasPrefix(first, "# ") {
		return strings.TrimSpace(rest)
	}
	return excerpt
}

// roundScore keeps three significant digits of a score: enough to compare
// hits, and 0.09090909090909091 cost an agent eleven tokens for nothing.
func roundScore(f float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	if err != nil {
		return f
	}
	return r
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
