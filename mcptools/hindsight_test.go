package mcptools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/note"
	"github.com/mark3labs/mcp-go/client"
)

func hsText(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return text(res), res.IsError
}

// Hindsight's API over memory banks, as a Hindsight client sees it.
func TestHindsightPutAndSearch(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write", ToolsetHindsight))
	for _, f := range []struct{ content, ctx string }{
		{"User works at Google as a software engineer", "work_history"},
		{"User prefers Python for data analysis", "programming_preferences"},
		{"I think remote work suits the user better", "opinions"},
		{"We hiked Mont Blanc together in July 2024", "events"},
	} {
		out, isErr := hsText(t, c, "hindsight_put", map[string]any{"bank_id": "user_12345", "content": f.content, "context": f.ctx, "explanation": "said in chat"})
		if isErr || out != "Fact stored successfully" {
			t.Fatalf("put: %q (isError %v)", out, isErr)
		}
	}
	out, isErr := hsText(t, c, "hindsight_search", map[string]any{"bank_id": "user_12345", "query": "What does the user do for work?"})
	if isErr {
		t.Fatal(out)
	}
	var res struct {
		Results []struct {
			ID, Text, Type, Context string
			EventDate               *string `json:"event_date"`
			DocumentID              *string `json:"document_id"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var google *struct {
		ID, Text, Type, Context string
		EventDate               *string `json:"event_date"`
		DocumentID              *string `json:"document_id"`
	}
	for i := range res.Results[:min(2, len(res.Results))] {
		if res.Results[i].Text == "User works at Google as a software engineer" {
			google = &res.Results[i]
		}
	}
	if google == nil || google.Type != "world" || google.Context != "work_history" || google.ID == "" {
		t.Fatalf("the work fact should be among the first two: %s", out)
	}
	if !strings.Contains(out, `"event_date":null`) || !strings.Contains(out, `"document_id":null`) {
		t.Errorf("null fields must be present: %s", out)
	}
	types := map[string]string{}
	for _, r := range res.Results {
		types[r.Text] = r.Type
	}
	if types["I think remote work suits the user better"] != "opinion" && len(types) == 4 {
		t.Errorf("types: %v", types)
	}
	// max_tokens is kept: a tiny budget returns fewer results.
	small, _ := hsText(t, c, "hindsight_search", map[string]any{"bank_id": "user_12345", "query": "user", "max_tokens": 40})
	json.Unmarshal([]byte(small), &res)
	if len(res.Results) > 1 {
		t.Errorf("40 tokens hold at most one fact: %s", small)
	}
	// Each fact is a note a person can read: content as the body, the
	// context and the explanation in frontmatter; one commit each.
	files, _ := filepath.Glob(filepath.Join(ts.dir, "banks", "user_12345", "*.md"))
	if len(files) != 4 {
		t.Fatalf("%d fact notes", len(files))
	}
	data, _ := os.ReadFile(files[0])
	n := note.Parse("x.md", data)
	if strings.Contains(string(n.Body), "said in chat") || !strings.Contains(string(data), "explanation: said in chat") || !strings.Contains(string(data), "context: ") {
		t.Errorf("fact note:\n%s", data)
	}
	if log := gitLog(t, ts.dir); !strings.Contains(log, "Cairn-Tool: hindsight_put") {
		t.Errorf("no provenance trailer:\n%s", log)
	}
}

func gitLog(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%B").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, out)
	}
	return string(out)
}

// Banks are isolated: a token reaches only its banks; a bank that does not
// exist and one it may not reach get the same plain-text error.
func TestHindsightBanksAreIsolated(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	owner := ts.client(t, ts.token(t, "owner", "write", ToolsetHindsight))
	for _, b := range []string{"alice", "bob"} {
		if out, isErr := hsText(t, owner, "hindsight_put", map[string]any{"bank_id": b, "content": "Secret of " + b + ": the code is 4242", "context": "secrets"}); isErr {
			t.Fatal(out)
		}
	}
	tok, _, err := ts.tokens.Create(TokenRecord{Principal: "owner", Scope: "write", Toolsets: []string{ToolsetHindsight}, Banks: []string{"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	aliceOnly := ts.client(t, tok)
	if out, isErr := hsText(t, aliceOnly, "hindsight_search", map[string]any{"bank_id": "alice", "query": "code"}); isErr || !strings.Contains(out, "Secret of alice") || strings.Contains(out, "bob") {
		t.Fatalf("alice: %s", out)
	}
	forbidden, isErr1 := hsText(t, aliceOnly, "hindsight_search", map[string]any{"bank_id": "bob", "query": "code"})
	missing, isErr2 := hsText(t, aliceOnly, "hindsight_search", map[string]any{"bank_id": "nobody", "query": "code"})
	if !isErr1 || !isErr2 || forbidden != "Error: Memory bank 'bob' not found" || missing != "Error: Memory bank 'nobody' not found" {
		t.Fatalf("forbidden %q / missing %q", forbidden, missing)
	}
	if out, isErr := hsText(t, aliceOnly, "hindsight_put", map[string]any{"bank_id": "bob", "content": "x y z", "context": "c"}); !isErr || out != "Error: Memory bank 'bob' not found" {
		t.Fatalf("put into a forbidden bank: %q", out)
	}
	// Another principal reaches only the banks access.yaml grants it.
	sam := ts.client(t, ts.token(t, "sam", "write", ToolsetHindsight))
	if out, _ := hsText(t, sam, "hindsight_search", map[string]any{"bank_id": "alice", "query": "code"}); out != "Error: Memory bank 'alice' not found" {
		t.Fatalf("sam without a grant: %q", out)
	}
	// The gateway never sees bank facts.
	gw := ts.client(t, ts.token(t, "owner", "write"))
	var sr struct {
		Results []struct{ Path string } `json:"results"`
	}
	ok(t, gw, "search", map[string]any{"query": "secret code 4242"}, &sr)
	for _, r := range sr.Results {
		if strings.HasPrefix(r.Path, "banks/") {
			t.Fatalf("gateway search returned %s", r.Path)
		}
	}
	failing(t, gw, "list_notes", map[string]any{"path": "banks"}, "")
	// Bad input: a plain-text error naming the argument, nothing written.
	before := head(t, ts.dir)
	for _, args := range []map[string]any{
		{"bank_id": "alice", "content": "  ", "context": "c"},
		{"bank_id": "alice", "content": "x", "context": ""},
		{"bank_id": "../etc", "content": "x", "context": "c"},
		{"bank_id": "alice", "content": "x", "context": "c", "extra": 1},
	} {
		out, isErr := hsText(t, owner, "hindsight_put", args)
		if !isErr || !strings.HasPrefix(out, "Error: ") {
			t.Errorf("%v: %q", args, out)
		}
	}
	if out, _ := hsText(t, owner, "hindsight_search", map[string]any{"bank_id": "alice", "query": "x", "max_tokens": -5}); !strings.Contains(out, "max_tokens") {
		t.Errorf("max_tokens: %q", out)
	}
	if head(t, ts.dir) != before {
		t.Error("a refused put changed the vault")
	}
}

// The hindsight family at its own path: a token with every toolset sees
// only the hindsight tools there, and all of them at /mcp.
func TestFamilyEndpoints(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	tok := ts.token(t, "owner", "write", ToolsetGateway, ToolsetHindsight, ToolsetTreaisure)
	all := toolNames(t, ts.client(t, tok))
	if !slices.Contains(all, "hindsight_put") || !slices.Contains(all, "search") {
		t.Fatalf("/mcp: %v", all)
	}
	base := ts.url
	ts.url = strings.TrimSuffix(base, "/mcp") + "/hindsight/mcp"
	only := toolNames(t, ts.client(t, tok))
	ts.url = base
	if strings.Join(only, ",") != "hindsight_put,hindsight_search" {
		t.Fatalf("/hindsight/mcp: %v", only)
	}
}

func TestHindsightEdges(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write", ToolsetHindsight))
	hsText(t, c, "hindsight_put", map[string]any{"bank_id": "u1", "content": "User likes tea", "context": "food"})
	for _, mt := range []int{0, 3, -1} {
		if out, isErr := hsText(t, c, "hindsight_search", map[string]any{"bank_id": "u1", "query": "tea", "max_tokens": mt}); !isErr || !strings.HasPrefix(out, "Error: ") || !strings.Contains(out, "max_tokens") {
			t.Errorf("max_tokens %d: %q", mt, out)
		}
	}
	if out, isErr := hsText(t, c, "hindsight_search", map[string]any{"bank_id": "u1", "query": "tea", "max_tokens": 8}); isErr || out != `{"results":[]}` {
		t.Errorf("a budget too small for any fact: %q", out)
	}
}
