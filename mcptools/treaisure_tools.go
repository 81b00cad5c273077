package mcptools

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/cairn-dev/cairn/vault/treaisure"
)

// treaisureTools are TreAIsure's two MCP tools
// (../shared/seeds/treaisure-mcp-reference.fr.txt) over the caller's
// personal domain: thoughts are the user's own words, one note each, in a
// personal or a professional space that are never searched together.
func treaisureTools() []*Tool {
	return []*Tool{
		{
			Name: "treaisure_search_memory", Toolset: ToolsetTreaisure, Title: "Search the user's memory", ReadOnly: true, Idempotent: true,
			Description: "Search the user's own notes, decisions, experiences and opinions in ONE space (personal or professional; never mix them). Returns an evidence dossier: each item with excerpt, date, topics, entities, score and level: direct (the user's own words match the question; explicit: true), related (reached from a direct item through a link, a shared entity or topic) or semantic (similar in meaning only). Never present related or semantic evidence as something the user said.",
			Schema: `{"type":"object","properties":{
"question":{"type":"string","description":"The user's question about their own history."},
"space":{"type":"string","enum":["personal","professional"],"description":"One space at a time. Never mix the two."},
"limit":{"type":"integer","minimum":1,"maximum":12,"description":"Most evidence items (default 8)."}},
"required":["question","space"],"additionalProperties":false}`,
			Output: reflect.TypeFor[treaisure.Dossier](),
			Handle: treaisureSearch,
		},
		{
			Name: "treaisure_capture_thought", Toolset: ToolsetTreaisure, Title: "Capture a thought", Idempotent: true,
			Description: "Prepare or save a durable thought of the user in the right space. Only the user's raw words, never your analysis. Without confirmed: true nothing is written: the answer is status pending_confirmation with the proposal exactly as it would be stored; show it to the user, then call again with confirmed: true. Statuses: pending_confirmation, created (with id), already_exists (the same words are already saved in that space; with their id), rejected (with the reason). Tell the user it is saved only after created or already_exists.",
			Schema: `{"type":"object","properties":{
"text":{"type":"string","description":"Only the user's raw words, 3 to 10,000 characters. Never add your own analysis."},
"space":{"type":"string","enum":["personal","professional"],"description":"personal for private life; professional for work, projects and code."},
"thought_kind":{"type":"string","enum":["thought","memory","experience"],"description":"Optional; thought by default."},
"occurred_at":{"type":"string","description":"ISO 8601 date or time, when a past event is clearly dated. Not in the future."},
"confirmed":{"type":"boolean","description":"true to really write. Without it, only a proposal is prepared."}},
"required":["text","space"],"additionalProperties":false}`,
			Output: reflect.TypeFor[treaisure.Capture](),
			Handle: treaisureCapture,
		},
	}
}

func treaisureSearch(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Question string `json:"question"`
		Space    string `json:"space"`
		Limit    *int   `json:"limit"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("question", a.Question); err != nil {
		return nil, err
	}
	if err := required("space", a.Space); err != nil {
		return nil, err
	}
	limit, err := optionalCount("limit", a.Limit, 1, treaisure.MaxItems)
	if err != nil {
		return nil, err
	}
	return treaisure.Of(e.Vault).Search(ctx, e.Caller(), a.Question, a.Space, limit)
}

func treaisureCapture(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Text       string `json:"text"`
		Space      string `json:"space"`
		Kind       string `json:"thought_kind"`
		OccurredAt string `json:"occurred_at"`
		Confirmed  bool   `json:"confirmed"`
	}
	// Every refusal is a status, as TreAIsure clients expect: rejected,
	// with the reason naming the argument, and nothing written.
	if err := decodeArgs(raw, &a); err != nil {
		return &treaisure.Capture{Status: treaisure.CaptureRejected, Reason: err.Error(), Message: "Nothing was saved: " + err.Error()}, nil
	}
	return treaisure.Of(e.Vault).Capture(e.Caller(), treaisure.CaptureArgs{Text: a.Text, Space: a.Space, Kind: a.Kind, OccurredAt: a.OccurredAt, Confirmed: a.Confirmed})
}
