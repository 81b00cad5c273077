package mcptools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/hindsight"
	"github.com/mark3labs/mcp-go/mcp"
)

// hindsightTools are Hindsight's MCP API (../shared/seeds/hindsight-mcp-api.md)
// over the vault's memory banks, so a client written for Hindsight works
// unchanged: the same names, arguments and answers — plain text, errors as
// "Error: ..." strings.
func hindsightTools() []*Tool {
	return []*Tool{
		{
			Name: "hindsight_put", Toolset: ToolsetHindsight, Title: "Store a memory", Idempotent: false,
			Description: "Store a new memory for a user. Each user has their own bank (bank_id: a user id, an email, a session id); memories are isolated by bank. Use it when the user shares personal facts, preferences or interests, when important events or milestones are mentioned, when decisions, opinions or goals are stated. Answers `Fact stored successfully`.",
			Schema: `{"type":"object","properties":{
"bank_id":{"type":"string","description":"Unique identifier for the user (e.g., user_id, email)"},
"content":{"type":"string","description":"Memory content to store"},
"context":{"type":"string","description":"Category for the memory (e.g., 'personal_preferences', 'work_history')"},
"explanation":{"type":"string","description":"Optional explanation for why this memory is being stored"}},
"required":["bank_id","content","context"],"additionalProperties":false}`,
			Handle: hindsightPut, Errors: hindsightError,
		},
		{
			Name: "hindsight_search", Toolset: ToolsetHindsight, Title: "Search memories", ReadOnly: true, Idempotent: true,
			Description: "Search memories for a user: at the start of a conversation to get their context, before making recommendations, or when they ask about something they may have mentioned before. Answers {\"results\":[{id, text, type (world, experience or opinion), context, event_date, document_id}]}, best first, within max_tokens.",
			Schema: `{"type":"object","properties":{
"bank_id":{"type":"string","description":"Unique identifier for the user (e.g., user_id, email)"},
"query":{"type":"string","description":"Natural language search query"},
"max_tokens":{"type":"integer","minimum":8,"maximum":100000,"description":"Maximum tokens for results (default: 4096)"},
"explanation":{"type":"string","description":"Optional explanation for why this search is being performed"}},
"required":["bank_id","query"],"additionalProperties":false}`,
			Handle: hindsightSearch, Errors: hindsightError,
		},
	}
}

// hindsightError is Hindsight's error shape, for every failure of its
// tools (Tool.Errors): an isError result whose text is "Error: ...". An
// unknown bank and a forbidden one read the same.
func hindsightError(err error) *mcp.CallToolResult {
	var be *hindsight.BankError
	var ae *vault.ArgError
	var rf refusal
	switch {
	case errors.As(err, &rf):
		return mcp.NewToolResultError("Error: " + string(rf))
	case errors.As(err, &be):
		return mcp.NewToolResultError("Error: " + be.Error())
	case errors.As(err, &ae):
		return mcp.NewToolResultError("Error: " + ae.Error())
	case errors.Is(err, vault.ErrForbidden):
		return mcp.NewToolResultError("Error: " + err.Error())
	case errors.As(err, new(*gitstore.GitBusyError)), errors.As(err, new(*UnavailableError)):
		return mcp.NewToolResultError("Error: unavailable: " + err.Error())
	}
	return mcp.NewToolResultError("Error: internal error: " + err.Error())
}

func hindsightPut(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		BankID      string `json:"bank_id"`
		Content     string `json:"content"`
		Context     string `json:"context"`
		Explanation string `json:"explanation"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	for _, r := range []struct{ name, val string }{{"bank_id", a.BankID}, {"content", a.Content}, {"context", a.Context}} {
		if err := required(r.name, r.val); err != nil {
			return nil, err
		}
	}
	if _, err := hindsight.Of(e.Vault).Put(e.Caller(), a.BankID, a.Content, a.Context, a.Explanation); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("Fact stored successfully"), nil
}

func hindsightSearch(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		BankID      string `json:"bank_id"`
		Query       string `json:"query"`
		MaxTokens   *int   `json:"max_tokens"`
		Explanation string `json:"explanation"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	for _, r := range []struct{ name, val string }{{"bank_id", a.BankID}, {"query", a.Query}} {
		if err := required(r.name, r.val); err != nil {
			return nil, err
		}
	}
	budget, err := optionalCount("max_tokens", a.MaxTokens, hindsight.MinTokens, hindsight.MaxTokens)
	if err != nil {
		return nil, err
	}
	facts, err := hindsight.Of(e.Vault).Search(ctx, e.Caller(), a.BankID, a.Query, budget)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(map[string]any{"results": facts})
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}
