package mcptools

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/recall"
)

// searchTools are the gateway's tools for finding notes and assembling
// context.
func searchTools() []*Tool {
	return []*Tool{
		{
			Name: "search", Toolset: ToolsetGateway, Title: "Search notes", ReadOnly: true, Idempotent: true,
			Description: "Find notes by meaning and by words: BM25 full-text (English and French: `école` finds `ecole` and `écoles`, `decisions` finds `decision`) fused with semantic vector search by Reciprocal Rank Fusion. Covers the shared notes you can read and your own private memory, so search before you write to avoid duplicates. Returns ranked snippets (matched words in **bold**, never inside a link or code) with id, path, title, class, score (the fused relevance), and `via` when the note beside it in a sequence (a conversation's previous or next turn) brought it. With `explain: true`, also each list's rank (lexical, semantic). Not whole notes: call get_note for one. `mode` says what ran: without vectors it runs lexically, says so in `notice`, and is not an error.",
			Schema: `{"type":"object","properties":{
"query":{"type":"string","description":"What to look for: words, a question or a description."},
"project":{"type":"string","description":"Project handle from get_my_projects: only its notes (and its sub-projects'). Default: everything you can read."},
"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Results (default 10)."},
"mode":{"type":"string","enum":["hybrid","lexical","semantic"],"description":"hybrid (default), lexical (words only) or semantic (meaning only)."},
"tags":{"type":"array","items":{"type":"string"},"description":"Only notes with every one of these tags."},
"type":{"type":"string","description":"Only notes of this frontmatter type (decision, meeting...)."},
"path":{"type":"string","description":"Only notes under this folder (relative to the project's folder when project is set)."},
"after":{"type":"string","description":"Only notes dated on or after this date (2026-11-01) or RFC 3339 time: the frontmatter date (date, occurred_at, created...), else when the file last changed."},
"before":{"type":"string","description":"Only notes dated before this date or time."},
"explain":{"type":"boolean","description":"Also give each hit's rank in each list (lexical, semantic), for tuning search (default false)."}},
"required":["query"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.SearchResult](),
			Handle: searchNotes,
		},
		{
			Name: "recall", Toolset: ToolsetGateway, Title: "Recall context about a topic", ReadOnly: true, Idempotent: true,
			Description: "Assemble a context block about a topic that fits in budgetTokens: the most relevant notes, their neighbours one link away, and your private memory about the user. Each excerpt in `context` is headed `## Title [n]`; items[n-1] is its source (id, path, title, class, why, score), to cite or open with get_note. budgetTokens bounds the whole reply, not only the context: counted with a real BPE tokenizer (o200k_base), the reply's JSON is at most budgetTokens + 40 (the 40 pay for its fixed fields); usedTokens says its size. Use it to prime yourself before answering; use search to find a specific note.",
			Schema: `{"type":"object","properties":{
"topic":{"type":"string","description":"The subject, a question or a task description."},
"project":{"type":"string","description":"Project handle: recall from its notes (your private memory is always included)."},
"budgetTokens":{"type":"integer","minimum":100,"maximum":100000,"description":"Most tokens the reply may take, besides its 40 tokens of fixed fields (default 2000)."}},
"required":["topic"],"additionalProperties":false}`,
			Output: reflect.TypeFor[recall.Result](),
			Handle: recallTool,
		},
	}
}

func searchNotes(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Query   string   `json:"query"`
		Project string   `json:"project"`
		Limit   *int     `json:"limit"`
		Mode    string   `json:"mode"`
		Tags    []string `json:"tags"`
		Type    string   `json:"type"`
		Path    string   `json:"path"`
		After   string   `json:"after"`
		Before  string   `json:"before"`
		Explain bool     `json:"explain"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("query", a.Query); err != nil {
		return nil, err
	}
	limit, err := optionalCount("limit", a.Limit, 1, vault.MaxSearchLimit)
	if err != nil {
		return nil, err
	}
	return e.Vault.Search(ctx, e.Caller(), vault.SearchArgs{
		Query: a.Query, Project: a.Project, Limit: limit, Mode: a.Mode,
		Tags: a.Tags, Type: a.Type, Path: a.Path, After: a.After, Before: a.Before, Explain: a.Explain,
	})
}

func recallTool(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Topic        string `json:"topic"`
		Project      string `json:"project"`
		BudgetTokens *int   `json:"budgetTokens"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("topic", a.Topic); err != nil {
		return nil, err
	}
	budget, err := optionalCount("budgetTokens", a.BudgetTokens, recall.MinBudget, recall.MaxBudget)
	if err != nil {
		return nil, err
	}
	return recall.Recall(ctx, e.Vault, e.Caller(), a.Topic, a.Project, budget)
}
