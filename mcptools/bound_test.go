package mcptools

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// wireSize is what a result puts on the wire: its text and its structured
// content.
func wireSize(res *mcp.CallToolResult) int {
	if res.StructuredContent == nil {
		return len(text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	return len(text(res)) + len(b)
}

// boundedCall calls a read tool and checks its reply is within max bytes
// and, when the text does not repeat the structured content whole, that
// it is because the reply was cut (a notice says so).
func boundedCall(t *testing.T, c *client.Client, max int, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %s", name, err, text(res))
	}
	if n := wireSize(res); n > max {
		t.Fatalf("%s: the reply is %d bytes, over the bound of %d", name, n, max)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if sc == nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &sc)
	}
	if !jsonEqual(text(res), mustJSON(res.StructuredContent)) && !strings.Contains(text(res), `"notice"`) {
		t.Fatalf("%s: the text differs from the structured content and says nothing of it", name)
	}
	return sc
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// commitFiles writes files into the vault and commits them as a person
// with git (the server sees the new HEAD at its next call).
func commitFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "by hand"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// The case, at the default bound: a note of 100,000 wikilinks and
// 2,000 headings read with detailed: true. The reply stays within 1 MiB,
// lists the first links and says how many there are, and its content
// comes in parts that put together are the whole content.
func TestGetNoteOfAHundredThousandLinksIsBounded(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write"))
	var body strings.Builder
	body.WriteString("# Links\n\n")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&body, "[[n%d]] ", i)
		if i%50 == 49 {
			fmt.Fprintf(&body, "\n\n## Heading %d\n\n", i/50)
		}
	}
	commitFiles(t, ts.dir, map[string]string{"acme/launch/Links.md": body.String()})

	sc := boundedCall(t, c, DefaultMaxReply, "get_note", map[string]any{"ref": "acme/launch/Links.md", "detailed": true})
	links, _ := sc["links"].(map[string]any)
	cut, _ := links["outgoingTruncated"].(map[string]any)
	if cut == nil || cut["total"] != float64(100000) || sc["notice"] == nil {
		t.Fatalf("no count of the links cut: links %v, notice %v", cut, sc["notice"])
	}
	whole, err := ts.v.GetNote(access.Caller{Principal: "owner", Ceiling: access.RoleWrite}, "acme/launch/Links.md", false, "")
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	offset := 0
	for parts := 0; ; parts++ {
		if parts > 10 {
			t.Fatal("more than 10 parts")
		}
		p := boundedCall(t, c, DefaultMaxReply, "get_note", map[string]any{"ref": "acme/launch/Links.md", "contentOffset": offset})
		if p["contentTotalBytes"] != float64(len(whole.Content)) {
			t.Fatalf("contentTotalBytes %v, want %d", p["contentTotalBytes"], len(whole.Content))
		}
		got.WriteString(p["content"].(string))
		next, more := p["nextContentOffset"].(float64)
		if !more {
			break
		}
		offset = int(next)
	}
	if got.String() != whole.Content {
		t.Fatalf("the parts put together differ from the content (%d bytes, want %d)", got.Len(), len(whole.Content))
	}
	failing(t, c, "get_note", map[string]any{"ref": "acme/launch/Links.md", "contentOffset": len(whole.Content) + 1}, "contentOffset")
	failing(t, c, "get_note", map[string]any{"ref": "acme/launch/Links.md", "contentOffset": -1}, "contentOffset")
}

// Every read tool at a 64 KiB bound, each against a vault built to make
// its reply as large as it can be: 500 notes with long names in one
// folder (list_notes, recent_activity, search, recall), a profile of 400
// KB (start_session), 300 projects with long names (whoami,
// get_my_projects), twelve long thoughts (treaisure_search_memory), a bank
// of long memories (hindsight_search). Each reply is within the bound;
// the paged lists are paged by size, and paging through them shows every
// entry once.
func TestEveryReadToolsReplyIsBounded(t *testing.T) {
	const max = 64 << 10
	reg := NewRegistry()
	reg.MaxReply = max
	ts, _ := newTestServerReg(t, "../sample-vault", HTTPOptions{}, reg)
	long := strings.Repeat("long name ", 20)
	files := map[string]string{"people/owner/profile.md": "# Profile\n\n" + strings.Repeat("The user likes long profiles. ", 14000)}
	for i := 0; i < 500; i++ {
		files[fmt.Sprintf("acme/launch/many/%s%03d.md", long, i)] = fmt.Sprintf("# %s%03d\n\nzebra quagga %s\n", long, i, strings.Repeat("zebra stripes ", 300))
	}
	for i := 0; i < 300; i++ {
		files[fmt.Sprintf("p%03d/.cairn-project.yaml", i)] = fmt.Sprintf("handle: p%03d\nname: %s%03d\n", i, strings.Repeat("A project with a long name ", 8), i)
	}
	commitFiles(t, ts.dir, files)
	c := ts.client(t, ts.token(t, "owner", "write", ToolsetGateway, ToolsetTreaisure, ToolsetHindsight))

	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		args := map[string]any{"project": "acme/launch", "path": "acme/launch/many", "limit": vault.MaxListLimit}
		if cursor != "" {
			args["cursor"] = cursor
		}
		sc := boundedCall(t, c, max, "list_notes", args)
		for _, e := range sc["entries"].([]any) {
			p := e.(map[string]any)["path"].(string)
			if seen[p] {
				t.Fatalf("list_notes shows %s twice", p)
			}
			seen[p] = true
		}
		if cursor, _ = sc["nextCursor"].(string); cursor == "" {
			if pages == 0 {
				t.Fatal("500 long names fit in one page of 32 KiB")
			}
			break
		}
	}
	if len(seen) != 500 {
		t.Fatalf("list_notes showed %d of 500 notes", len(seen))
	}

	activity := map[string]bool{}
	cursor = ""
	for pages := 0; pages < 50; pages++ {
		args := map[string]any{"limit": vault.MaxActivityLimit}
		if cursor != "" {
			args["cursor"] = cursor
		}
		sc := boundedCall(t, c, max, "recent_activity", args)
		for _, a := range sc["activity"].([]any) {
			activity[a.(map[string]any)["path"].(string)] = true
		}
		if cursor, _ = sc["nextCursor"].(string); cursor == "" {
			break
		}
	}
	for p := range seen {
		if !activity[p] {
			t.Fatalf("recent_activity never showed %s", p)
		}
	}

	boundedCall(t, c, max, "search", map[string]any{"query": "zebra quagga long name", "limit": 50})
	boundedCall(t, c, max, "recall", map[string]any{"topic": "zebra stripes", "budgetTokens": 100000})
	if sc := boundedCall(t, c, max, "start_session", map[string]any{"project": "acme/launch"}); sc["notice"] == nil {
		t.Fatal("start_session with a 400 KB profile says nothing of what it cut")
	}
	for _, tool := range []string{"whoami", "get_my_projects"} {
		if sc := boundedCall(t, c, max, tool, map[string]any{}); sc["notice"] == nil {
			t.Fatalf("%s with 300 long projects says nothing of what it cut", tool)
		}
	}
	boundedCall(t, c, max, "get_note", map[string]any{"ref": "people/owner/profile.md", "detailed": true})

	for i := 0; i < 12; i++ {
		captureT(t, c, map[string]any{"text": fmt.Sprintf("Thought %d: %s", i, strings.Repeat("the launch of the pilot customers ", 300)),
			"space": "professional", "thought_kind": "thought", "confirmed": true})
	}
	boundedCall(t, c, max, "treaisure_search_memory", map[string]any{"question": "the launch of the pilot customers", "space": "professional", "limit": 12})

	for i := 0; i < 30; i++ {
		if out, isErr := hsText(t, c, "hindsight_put", map[string]any{"bank_id": "user_big", "content": fmt.Sprintf("Memory %d: %s", i, strings.Repeat("the user hikes mountains ", 200)), "context": "events"}); isErr {
			t.Fatal(out)
		}
	}
	res, err := callTool(t, c, "hindsight_search", map[string]any{"bank_id": "user_big", "query": "mountains", "max_tokens": 100000})
	if err != nil || res.IsError {
		t.Fatalf("hindsight_search: %v %s", err, text(res))
	}
	if n := wireSize(res); n > max {
		t.Fatalf("hindsight_search: %d bytes, over %d", n, max)
	}
}
