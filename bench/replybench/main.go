// Command replybench measures what each read tool's reply costs an agent:
// the tokens of the JSON a tool returns (the text content, which is the
// same JSON as structuredContent), counted with the tokenizer recall's
// budget uses (search.Tokens, o200k_base).
//
//	go run ./bench/replybench            # a Markdown table
//	go run ./bench/replybench -show      # and every reply
//
// The server is cairn's own (mcptools.NewServer over Streamable HTTP on
// 127.0.0.1, in this process) over a copy of sample-vault/, called by the
// mcp-go client with one owner token holding every toolset. Before the
// reads it captures three thoughts (treaisure) and puts four facts in a
// bank (hindsight), since the sample vault holds none. It waits for every
// note's vectors first; the calls and their arguments are fixed, so two
// runs on the same code give the same table (give or take a token where
// a reply carries a time or a commit).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

type call struct {
	tool string
	args map[string]any
}

// reads are the calls measured, one or more per read tool.
var reads = []call{
	{"whoami", map[string]any{}},
	{"get_my_projects", map[string]any{}},
	{"start_session", map[string]any{}},
	{"start_session", map[string]any{"project": "acme/launch"}},
	{"list_notes", map[string]any{"project": "acme/launch"}},
	{"recent_activity", map[string]any{"limit": 10}},
	{"get_note", map[string]any{"ref": "Decision CDN provider"}},
	{"search", map[string]any{"query": "which CDN did we choose"}},
	{"search", map[string]any{"query": "which CDN did we choose", "limit": 5}},
	{"recall", map[string]any{"topic": "which CDN did we choose", "budgetTokens": 300}},
	{"recall", map[string]any{"topic": "which CDN did we choose", "budgetTokens": 800}},
	{"recall", map[string]any{"topic": "How do we roll back a bad deploy?", "budgetTokens": 2000}},
	{"treaisure_search_memory", map[string]any{"question": "what did I think about the launch pilots", "space": "professional"}},
	{"hindsight_search", map[string]any{"bank_id": "user_12345", "query": "What does the user do for work?"}},
}

// seeds give treaisure and hindsight something to find.
var seeds = []call{
	{"treaisure_capture_thought", map[string]any{"text": "We launch first with twenty pilot customers, then open the waitlist.", "space": "professional", "confirmed": true, "occurred_at": "2026-11-02"}},
	{"treaisure_capture_thought", map[string]any{"text": "The pilots asked for SSO before anything else; pricing can wait.", "space": "professional", "confirmed": true, "occurred_at": "2026-11-05"}},
	{"treaisure_capture_thought", map[string]any{"text": "Launch week felt calmer than the beta: the runbooks paid off.", "space": "professional", "thought_kind": "experience", "confirmed": true}},
	{"hindsight_put", map[string]any{"bank_id": "user_12345", "content": "User works at Google as a software engineer", "context": "work_history"}},
	{"hindsight_put", map[string]any{"bank_id": "user_12345", "content": "User prefers Python for data analysis", "context": "programming_preferences"}},
	{"hindsight_put", map[string]any{"bank_id": "user_12345", "content": "I think remote work suits the user better", "context": "opinions"}},
	{"hindsight_put", map[string]any{"bank_id": "user_12345", "content": "We hiked Mont Blanc together in July 2024", "context": "events"}},
}

func main() {
	sample := flag.String("vault", "sample-vault", "the template vault to copy")
	show := flag.Bool("show", false, "print every reply after the table")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "cairn-replybench-")
	must(err)
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "vault")
	_, err = vault.Init(dir, vault.InitOptions{From: *sample})
	must(err)
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	defer v.Close()
	// Every note indexed and embedded first, so hybrid is hybrid and two
	// runs agree.
	ix, err := v.SearchIndex()
	must(err)
	v.WaitIndexed(time.Minute)
	ix.WaitVectors(time.Minute)
	tokens := mcptools.NewTokenStore(dir)
	tok, _, err := tokens.Create(mcptools.TokenRecord{Principal: "owner", Scope: "write", Toolsets: mcptools.AllToolsets})
	must(err)
	svc := mcptools.NewHTTPService(mcptools.NewServer(v, mcptools.NewRegistry(), "replybench"), tokens, mcptools.HTTPOptions{})
	defer svc.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	go (&http.Server{Handler: svc}).Serve(ln)

	c, err := client.NewStreamableHttpClient("http://"+ln.Addr().String()+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	must(err)
	defer c.Close()
	ctx := context.Background()
	must(c.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "replybench", Version: "1"}
	_, err = c.Initialize(ctx, init)
	must(err)

	for _, s := range seeds {
		if _, err := run(ctx, c, s); err != nil {
			fail(fmt.Errorf("seed %s: %w", s.tool, err))
		}
	}
	fmt.Println("| tool | arguments | reply tokens | reply bytes |")
	fmt.Println("| --- | --- | ---: | ---: |")
	var replies []string
	for _, r := range reads {
		text, err := run(ctx, c, r)
		if err != nil {
			fail(fmt.Errorf("%s: %w", r.tool, err))
		}
		args, _ := json.Marshal(r.args)
		fmt.Printf("| %s | `%s` | %d | %d |\n", r.tool, args, search.Tokens(text), len(text))
		replies = append(replies, fmt.Sprintf("## %s %s\n%s\n", r.tool, args, text))
	}
	if *show {
		for _, r := range replies {
			fmt.Println()
			fmt.Print(r)
		}
	}
}

// run calls a tool and returns its reply's text: the JSON an agent reads.
func run(ctx context.Context, c *client.Client, cl call) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = cl.tool
	req.Params.Arguments = cl.args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var text string
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", text)
	}
	return text, nil
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "replybench:", err)
	os.Exit(1)
}
