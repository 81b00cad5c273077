package mcptools

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/hindsight"
	"github.com/cairn-dev/cairn/vault/recall"
)

// create_notes over HTTP with a title that used to panic the server and
// titles that leave no file name: the call answers, the valid notes land.
func TestCreateNotesSurvivesHostileTitles(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write"))
	var out struct {
		Results []vault.BatchResult `json:"results"`
	}
	ok(t, c, "create_notes", map[string]any{"project": "acme/launch", "notes": []map[string]any{
		{"body": "# Good one\n"},
		{"body": "# " + strings.Repeat("\uFFFD", 100) + "\n"},
		{"body": "# ...\n"},
		{"body": "# Invoice \u202efdp.exe\n"},
		{"body": "# Good two\n"},
	}}, &out)
	want := []string{"ok", "ok", "error", "error", "ok"}
	for i, r := range out.Results {
		if r.Status != want[i] {
			t.Fatalf("notes[%d]: %+v", i, r)
		}
	}
	for _, i := range []int{2, 3} {
		if !strings.Contains(out.Results[i].Error, "notes["+string(rune('0'+i))+"].body") {
			t.Fatalf("notes[%d]: %s", i, out.Results[i].Error)
		}
	}
	failing(t, c, "rename_note", map[string]any{"ref": "[[Good one]]", "title": "CON"}, "argument title")
}

// A count or budget of 0 or less is an error naming the argument, never a
// silent default; leaving the argument out gives the default.
func TestZeroAndNegativeCountsAreRefused(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	tok := ts.token(t, "owner", "write", ToolsetGateway, ToolsetTreaisure, ToolsetHindsight)
	c := ts.client(t, tok)
	before := head(t, ts.dir)
	for _, n := range []int{0, -1, -10} {
		failing(t, c, "list_notes", map[string]any{"path": "acme", "limit": n}, "argument limit")
		failing(t, c, "search", map[string]any{"query": "pricing", "limit": n}, "argument limit")
		failing(t, c, "recall", map[string]any{"topic": "pricing", "budgetTokens": n}, "argument budgetTokens")
		failing(t, c, "recent_activity", map[string]any{"limit": n}, "argument limit")
		failing(t, c, "treaisure_search_memory", map[string]any{"question": "launch", "space": "professional", "limit": n}, "argument limit")
		failing(t, c, "hindsight_search", map[string]any{"bank_id": "u1", "query": "tea", "max_tokens": n}, "argument max_tokens")
	}
	failing(t, c, "search", map[string]any{"query": "pricing", "limit": 51}, "argument limit")
	failing(t, c, "recall", map[string]any{"topic": "pricing", "budgetTokens": 99}, "argument budgetTokens")
	failing(t, c, "treaisure_search_memory", map[string]any{"question": "launch", "space": "professional", "limit": 13}, "argument limit")
	var rec struct {
		BudgetTokens int `json:"budgetTokens"`
	}
	ok(t, c, "recall", map[string]any{"topic": "pricing"}, &rec)
	if rec.BudgetTokens != recall.DefaultBudget {
		t.Fatalf("default budget: %d", rec.BudgetTokens)
	}
	var sr struct {
		Results []any `json:"results"`
	}
	ok(t, c, "search", map[string]any{"query": "launch"}, &sr)
	if len(sr.Results) != vault.DefaultSearchLimit {
		t.Fatalf("default limit: %d results", len(sr.Results))
	}
	if head(t, ts.dir) != before {
		t.Fatal("a refused call changed the vault")
	}
}

// A forged list_notes cursor is an error naming cursor, not an empty page.
func TestForgedCursorIsRefused(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "read"))
	for _, cur := range []string{`{"offset":-10}`, base64.RawURLEncoding.EncodeToString([]byte(`{"offset":-10}`))} {
		failing(t, c, "list_notes", map[string]any{"path": "acme", "cursor": cur}, "argument cursor")
	}
	var l vault.Listing
	ok(t, c, "list_notes", map[string]any{"path": "acme", "limit": 1}, &l)
	ok(t, c, "list_notes", map[string]any{"path": "acme", "limit": 1, "cursor": l.NextCursor}, &l)
	if len(l.Entries) != 1 {
		t.Fatalf("second page: %+v", l)
	}
}

// The owner writes to ALICE_BANK; Alice, granted alice_bank, reaches it
// through her own token.
func TestBankIDCaseDoesNotStrandAGrant(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	own := ts.client(t, ts.token(t, "owner", "write", ToolsetHindsight))
	if out, isErr := hsText(t, own, "hindsight_put", map[string]any{"bank_id": "ALICE_BANK", "content": "Alice prefers green tea", "context": "food"}); isErr {
		t.Fatal(out)
	}
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
	if err := hindsight.Of(ts.v).Grant(human, "alice", "alice_bank", true); err != nil {
		t.Fatal(err)
	}
	alice := ts.client(t, ts.token(t, "alice", "write", ToolsetHindsight))
	out, isErr := hsText(t, alice, "hindsight_search", map[string]any{"bank_id": "alice_bank", "query": "green tea"})
	if isErr || !strings.Contains(out, "Alice prefers green tea") {
		t.Fatalf("Alice's search: %s", out)
	}
	bob := ts.client(t, ts.token(t, "bob", "write", ToolsetHindsight))
	if out, _ := hsText(t, bob, "hindsight_search", map[string]any{"bank_id": "Alice_Bank", "query": "tea"}); out != "Error: Memory bank 'Alice_Bank' not found" {
		t.Fatalf("Bob: %s", out)
	}
}

// Argument names are exact and given once: encoding/json alone would take
// "Body" for body and keep the last of two "body" keys.
func TestArgumentKeysAreExact(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write"))
	before := head(t, ts.dir)
	failing(t, c, "create_note", map[string]any{"project": "acme", "Body": "# T"}, "argument Body: unknown argument; this tool takes: body, links, path, project, tags, type")
	failing(t, c, "create_notes", map[string]any{"project": "acme", "notes": []any{map[string]any{"body": "# T", "bogus": 1}}}, "argument notes[0].bogus: unknown field")
	failing(t, c, "create_notes", map[string]any{"project": "acme", "notes": []any{map[string]any{"body": "# T", "links": []any{map[string]any{"type": "x", "TO": "y"}}}}}, "argument notes[0].links[0].TO: unknown field")
	for payload, want := range map[string]string{
		`{"project":"acme","body":"# Looks fine","body":"# Smuggled"}`:                                     "argument body: is given twice",
		`{"project":"acme","body":"# T","tags":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`: "nests deeper than",
	} {
		resp := rawCall(t, ts, c, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_note","arguments":`+payload+`}}`)
		if !strings.Contains(resp, want) || !strings.Contains(resp, `"isError":true`) {
			t.Fatalf("%s: %s", payload, resp)
		}
	}
	if head(t, ts.dir) != before {
		t.Fatal("a refused call changed the vault")
	}
}
