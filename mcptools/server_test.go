package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// testServer is a real vault served over Streamable HTTP on loopback.
type testServer struct {
	mcp    *server.MCPServer
	v      *vault.Vault
	dir    string
	url    string
	tokens *TokenStore
}

func newTestServer(t testing.TB, template string) *testServer {
	t.Helper()
	ts, _ := newTestServerWith(t, template, HTTPOptions{})
	return ts
}

// newTestServerWith serves with these HTTP options and also returns the
// service, to look at its sessions.
func newTestServerWith(t testing.TB, template string, o HTTPOptions) (*testServer, *HTTPService) {
	t.Helper()
	return newTestServerReg(t, template, o, NewRegistry())
}

// newTestServerReg serves with this registry (its reply bound).
func newTestServerReg(t testing.TB, template string, o HTTPOptions, reg *Registry) (*testServer, *HTTPService) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vault.Init(dir, vault.InitOptions{From: template}); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{v: v, dir: dir, tokens: NewTokenStore(dir)}
	srv := NewServer(v, reg, "test")
	ts.mcp = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	svc := NewHTTPService(srv, ts.tokens, o)
	hs := &http.Server{Handler: svc}
	go hs.Serve(ln)
	ts.url = "http://" + ln.Addr().String() + "/mcp"
	t.Cleanup(func() { hs.Close(); svc.Close(); v.Close() })
	return ts, svc
}

func (ts *testServer) token(t testing.TB, principal, scope string, toolsets ...string) string {
	t.Helper()
	tok, _, err := ts.tokens.Create(TokenRecord{Principal: principal, Scope: scope, Toolsets: toolsets})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (ts *testServer) client(t testing.TB, token string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(ts.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "cairn-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func callTool(t testing.TB, c *client.Client, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(context.Background(), req)
}

// ok calls a tool that must succeed and decodes its structured result.
func ok(t testing.TB, c *client.Client, name string, args any, out any) {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: %s", name, text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, b, err)
	}
	if text(res) != string(b) && !jsonEqual(text(res), string(b)) {
		t.Fatalf("%s: text and structured content differ:\n%s\n%s", name, text(res), b)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	json.Unmarshal([]byte(a), &x)
	json.Unmarshal([]byte(b), &y)
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// failing calls a tool that must fail with an isError result mentioning want.
func failing(t testing.TB, c *client.Client, name string, args any, want string) *mcp.CallToolResult {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err != nil {
		t.Fatalf("%s: protocol error instead of a tool error: %v", name, err)
	}
	if !res.IsError || !strings.Contains(text(res), want) {
		t.Fatalf("%s: want isError mentioning %q, got isError=%v %s", name, want, res.IsError, text(res))
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func head(t testing.TB, dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func toolNames(t testing.TB, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

func TestWriteToolsRoundTripOverHTTP(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write"))
	var who struct {
		Principal string
		Ceiling   string
		Languages vault.SearchLanguages
	}
	ok(t, c, "whoami", map[string]any{}, &who)
	if who.Principal != "owner" || who.Ceiling != "write" {
		t.Fatalf("whoami: %+v", who)
	}
	if l := who.Languages; fmt.Sprint(l.Lexical) != "[en fr]" || l.Vectors != "builtin" || fmt.Sprint(l.VectorLanguages) != "[en]" {
		t.Fatalf("whoami languages: %+v", l)
	}
	var created vault.Written
	ok(t, c, "create_note", map[string]any{"project": "acme/launch", "body": "# Over HTTP\n\nhello", "tags": []string{"e2e"}}, &created)
	var note vault.NoteView
	ok(t, c, "get_note", map[string]any{"ref": created.ID, "detailed": true}, &note)
	if note.VersionToken != created.VersionToken || note.Outline[0].Text != "Over HTTP" {
		t.Fatalf("get_note: %+v", note)
	}
	var edited vault.Written
	ok(t, c, "edit_note", map[string]any{"ref": created.ID, "versionToken": created.VersionToken, "operation": "append", "content": "more"}, &edited)
	res := failing(t, c, "edit_note", map[string]any{"ref": created.ID, "versionToken": created.VersionToken, "operation": "append", "content": "stale"}, "versionConflict")
	sc, _ := res.StructuredContent.(map[string]any)
	if sc["error"] != "versionConflict" || sc["currentVersionToken"] != edited.VersionToken {
		t.Fatalf("conflict content: %v", res.StructuredContent)
	}
	var del vault.Deleted
	ok(t, c, "delete_note", map[string]any{"ref": created.ID}, &del)
	failing(t, c, "get_note", map[string]any{"ref": created.ID}, "not found")
}

func TestReadTokenNeverSeesOrRunsWriteTools(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	reader := ts.client(t, ts.token(t, "owner", "read"))
	names := toolNames(t, reader)
	for _, n := range names {
		if !NewRegistry().Get(n).ReadOnly {
			t.Fatalf("read token sees write tool %s", n)
		}
	}
	if len(names) == 0 {
		t.Fatal("read token sees no tools")
	}
	before := head(t, ts.dir)
	res, err := callTool(t, reader, "create_note", map[string]any{"project": "acme", "body": "# Sneaky"})
	if err == nil && !res.IsError {
		t.Fatal("a read token created a note")
	}
	if head(t, ts.dir) != before {
		t.Fatal("the vault changed")
	}
	writer := ts.client(t, ts.token(t, "owner", "write"))
	if len(toolNames(t, writer)) <= len(names) {
		t.Fatal("write token should see more tools than read token")
	}
	// A token for another toolset sees exactly that toolset's tools.
	other := ts.client(t, ts.token(t, "owner", "write", ToolsetHindsight))
	if n := toolNames(t, other); strings.Join(n, ",") != "hindsight_put,hindsight_search" {
		t.Fatalf("hindsight-only token sees %v", n)
	}
	readH := ts.client(t, ts.token(t, "owner", "read", ToolsetHindsight))
	if n := toolNames(t, readH); strings.Join(n, ",") != "hindsight_search" {
		t.Fatalf("hindsight read token sees %v", n)
	}
}

func TestBearerRequiredAndRevocationIsImmediate(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(auth string) *http.Response {
		req, _ := http.NewRequest("POST", ts.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, auth := range []string{"", "Bearer ", "Bearer cairn_pat_nope_nope", "Basic abc"} {
		resp := post(auth)
		if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("auth %q: status %d, WWW-Authenticate %q", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	tok := ts.token(t, "owner", "write")
	if resp := post("Bearer " + tok); resp.StatusCode != 200 {
		t.Fatalf("valid token: %d", resp.StatusCode)
	}
	recs, _ := ts.tokens.List()
	// Revoke through a second store, as the command line would.
	if err := NewTokenStore(ts.dir).Revoke(recs[len(recs)-1].ID); err != nil {
		t.Fatal(err)
	}
	if resp := post("Bearer " + tok); resp.StatusCode != 401 {
		t.Fatalf("revoked token still accepted: %d", resp.StatusCode)
	}
}

func TestBadArgumentsAreToolErrorsNamingTheArgument(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write"))
	before := head(t, ts.dir)
	failing(t, c, "create_note", map[string]any{"project": "acme", "body": "# T", "bogus": 1}, "argument bogus: unknown argument")
	failing(t, c, "create_note", map[string]any{"project": "acme", "body": 5}, "argument body: expected a string")
	failing(t, c, "create_note", map[string]any{"project": "acme"}, "argument body: is required")
	failing(t, c, "create_note", map[string]any{"project": "acme", "body": "no heading"}, "argument body")
	failing(t, c, "create_note", map[string]any{"project": "acme", "body": "# T", "path": "../../x"}, "argument path")
	failing(t, c, "create_note", map[string]any{"project": "ghost", "body": "# T"}, "argument project")
	failing(t, c, "create_note", map[string]any{"project": "acme", "body": "# Big\n" + strings.Repeat("a", 10<<20)}, "argument body")
	failing(t, c, "get_note", map[string]any{"ref": "Nothing like this"}, "argument ref")
	failing(t, c, "list_notes", map[string]any{"limit": 0}, "argument limit")
	failing(t, c, "edit_note", map[string]any{"ref": "[[Pricing]]", "versionToken": strings.Repeat("a", 40), "operation": "explode", "content": "x"}, "argument operation")
	// Invalid UTF-8 sent raw: Go's JSON decoder would quietly store U+FFFD.
	for _, raw := range []string{"# Bad \xff bytes", `# Lone \ud800 surrogate`} {
		payload := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme","body":"` + raw + `"}}}`
		resp := rawCall(t, ts, c, payload)
		if !strings.Contains(resp, `argument body: is not valid UTF-8`) || !strings.Contains(resp, `"isError":true`) {
			t.Fatalf("invalid UTF-8 %q: %s", raw, resp)
		}
	}
	if head(t, ts.dir) != before {
		t.Fatal("a refused call changed the vault")
	}
}

// rawCall posts a hand-written JSON-RPC message in the client's session.
func rawCall(t testing.TB, ts *testServer, c *client.Client, payload string) string {
	t.Helper()
	tok := ts.token(t, "owner", "write")
	// A fresh session, initialised by hand, so the raw bytes reach the server untouched.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	do := func(body, session string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", ts.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp, b.String()
	}
	resp, _ := do(init, "")
	session := resp.Header.Get("Mcp-Session-Id")
	do(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	_, out := do(payload, session)
	return out
}

func TestToolListIsStaticText(t *testing.T) {
	empty := t.TempDir()
	a := newTestServer(t, "../sample-vault")
	b := newTestServer(t, empty)
	list := func(ts *testServer) string {
		c := ts.client(t, ts.token(t, "owner", "write", AllToolsets...))
		res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(res.Tools)
		return string(j)
	}
	la, lb := list(a), list(b)
	if la != lb {
		t.Fatal("tools/list differs between two vaults: vault content leaks into tool definitions")
	}
	// And none of the sample vault's titles, tags or paths appear.
	ca := a.client(t, a.token(t, "owner", "write"))
	var l vault.Listing
	ok(t, ca, "list_notes", map[string]any{"project": "acme/launch", "path": "acme/launch/decisions"}, &l)
	for _, e := range l.Entries {
		if strings.Contains(la, e.Title) || strings.Contains(la, e.Path) {
			t.Fatalf("tools/list mentions %q", e.Title)
		}
	}
}

func TestEveryToolDeclaresAllFourAnnotations(t *testing.T) {
	for _, tl := range NewRegistry().Tools() {
		j, _ := json.Marshal(tl.MCPTool())
		var m struct {
			Annotations map[string]any `json:"annotations"`
		}
		json.Unmarshal(j, &m)
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := m.Annotations[k].(bool); !ok {
				t.Errorf("%s: annotation %s not set explicitly", tl.Name, k)
			}
		}
		if tl.ReadOnly && tl.Destructive {
			t.Errorf("%s: read-only and destructive", tl.Name)
		}
		// The tools that can take text away: delete_note (to the trash),
		// and edit_note, whose replace rewrites the whole body and whose
		// findReplace with empty content deletes. The others only add, or
		// move and rename keeping every byte.
		if destructive := tl.Name == "delete_note" || tl.Name == "edit_note"; destructive != tl.Destructive {
			t.Errorf("%s: destructive=%v, want %v", tl.Name, tl.Destructive, destructive)
		}
	}
}

func TestFiftyConcurrentClientsCreatingNotesAllLand(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	before, _ := exec.Command("git", "-C", ts.dir, "rev-list", "--count", "HEAD").Output()
	tok := ts.token(t, "owner", "write")
	clients := make([]*client.Client, 50)
	for i := range clients {
		clients[i] = ts.client(t, tok)
	}
	errs := make(chan error, len(clients))
	for i, c := range clients {
		go func(i int, c *client.Client) {
			res, err := callTool(t, c, "create_note", map[string]any{"project": "acme/launch", "path": "load", "body": fmt.Sprintf("# Client %d\n\nfrom client %d", i, i)})
			if err == nil && res.IsError {
				err = fmt.Errorf("client %d: %s", i, text(res))
			}
			errs <- err
		}(i, c)
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	after, _ := exec.Command("git", "-C", ts.dir, "rev-list", "--count", "HEAD").Output()
	var b, a int
	fmt.Sscan(string(before), &b)
	fmt.Sscan(string(after), &a)
	if a != b+50 {
		t.Fatalf("want 50 new commits, got %d", a-b)
	}
	files, _ := filepath.Glob(filepath.Join(ts.dir, "acme/launch/load/*.md"))
	if len(files) != 50 {
		t.Fatalf("want 50 notes on disk, found %d", len(files))
	}
	if out, err := exec.Command("git", "-C", ts.dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
	if out, _ := exec.Command("git", "-C", ts.dir, "status", "--porcelain").Output(); len(out) != 0 {
		t.Fatalf("status not clean:\n%s", out)
	}
}

func TestGraphToolsOverHTTP(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write"))
	var batch struct {
		Results []vault.BatchResult `json:"results"`
	}
	ok(t, c, "create_notes", map[string]any{"project": "acme/launch", "notes": []map[string]any{
		{"body": "# Alpha\n\nlinks to [[Beta]]"}, {"body": "# Beta\n\nback to [[Alpha]]"}, {"body": "untitled"},
	}}, &batch)
	if batch.Results[0].Status != "ok" || batch.Results[1].Status != "ok" || batch.Results[2].Status != "error" {
		t.Fatalf("create_notes: %+v", batch.Results)
	}
	var linked vault.LinkOutcome
	ok(t, c, "link", map[string]any{"from": "[[Alpha]]", "to": "[[Pricing]]", "type": "depends_on"}, &linked)
	ok(t, c, "link", map[string]any{"from": "[[Alpha]]", "to": "[[Pricing]]", "type": "depends_on"}, &linked)
	if linked.Results[0].Status != "unchanged" {
		t.Fatalf("second link: %+v", linked)
	}
	var moved vault.Moved
	ok(t, c, "move_note", map[string]any{"ref": "[[Alpha]]", "toPath": "acme/launch/specs"}, &moved)
	ok(t, c, "rename_note", map[string]any{"ref": "[[Beta]]", "title": "Gamma", "keepAlias": true}, &moved)
	var note vault.NoteView
	ok(t, c, "get_note", map[string]any{"ref": batch.Results[0].ID, "detailed": true}, &note)
	var targets []string
	for _, l := range note.Links.Outgoing {
		if l.To != nil {
			targets = append(targets, l.To.Title)
		}
	}
	if strings.Join(targets, ",") != "Gamma,Pricing" || !strings.Contains(note.Content, "[[Gamma]]") {
		t.Fatalf("Alpha's links after the rename: %v\n%s", targets, note.Content)
	}
	failing(t, c, "move_note", map[string]any{"ref": "[[Gamma]]", "toPath": "acme/infra"}, "argument toPath")
	ok(t, c, "link_many", map[string]any{"links": []map[string]any{
		{"from": "[[Alpha]]", "to": "[[Gamma]]", "type": "relates_to"}, {"from": "[[Gamma]]", "to": "[[Pricing]]", "type": "depends_on"},
	}}, &linked)
	if len(linked.Results) != 2 || linked.Results[0].Status != "created" || linked.Results[1].Status != "created" {
		t.Fatalf("link_many: %+v", linked)
	}
	ok(t, c, "rename_folder", map[string]any{"project": "acme/launch", "path": "specs", "name": "design"}, &moved)
	ok(t, c, "move_folder", map[string]any{"project": "acme/launch", "path": "design", "toParent": "acme/launch/meetings"}, &moved)
	ok(t, c, "get_note", map[string]any{"ref": batch.Results[0].ID}, &note)
	if note.Path != "acme/launch/meetings/design/Alpha.md" {
		t.Fatalf("Alpha after its folder was renamed and moved: %s", note.Path)
	}
	var proj vault.Project
	ok(t, c, "rename_project", map[string]any{"project": "acme/launch", "handle": "acme/go-live"}, &proj)
	var l vault.Listing
	ok(t, c, "list_notes", map[string]any{"project": "acme/launch"}, &l)
	if l.Project != "acme/go-live" {
		t.Fatalf("old handle after rename_project: %+v", l.Project)
	}
}

func TestSessionActivityAndMemoryOverHTTP(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	owner := ts.client(t, ts.token(t, "owner", "write"))
	camille := ts.client(t, ts.token(t, "camille", "write"))
	var s vault.SessionStart
	ok(t, owner, "start_session", map[string]any{"project": "acme/launch"}, &s)
	if s.Profile == nil || s.Project == nil || !s.Project.Delta.FirstVisit {
		t.Fatalf("first start_session: %+v", s)
	}
	var r vault.Remembered
	ok(t, owner, "remember_about_user", map[string]any{"category": "tools", "observation": "Uses the terminal for git"}, &r)
	ok(t, owner, "remember_about_project", map[string]any{"project": "acme/launch", "observation": "Prices are frozen until launch"}, &r)
	ok(t, owner, "start_session", map[string]any{"project": "acme/launch"}, &s)
	if len(s.Project.Delta.Changes) != 0 {
		t.Fatalf("private memory is not part of the project's delta: %+v", s.Project.Delta.Changes)
	}
	found := false
	for _, o := range s.Profile.Observations {
		found = found || o.Text == "Uses the terminal for git"
	}
	if !found {
		t.Fatal("the new observation is not in the profile")
	}
	// camille sees none of it, in any tool.
	var cs vault.SessionStart
	ok(t, camille, "start_session", map[string]any{"project": "acme/launch"}, &cs)
	if cs.Profile == nil || cs.Profile.Path != "people/camille/profile.md" {
		t.Fatalf("camille's profile: %+v", cs.Profile)
	}
	var act vault.ActivityPage
	ok(t, camille, "recent_activity", map[string]any{"limit": 100}, &act)
	for _, a := range act.Activity {
		if strings.HasPrefix(a.Path, "people/owner/") {
			t.Fatalf("camille sees %s in recent_activity", a.Path)
		}
	}
	failing(t, camille, "get_note", map[string]any{"ref": r.ID}, "not found")
	failing(t, camille, "get_note", map[string]any{"ref": r.Path}, "not found")
	var who struct {
		Capabilities map[string]bool `json:"capabilities"`
	}
	ok(t, owner, "whoami", map[string]any{}, &who)
	if !who.Capabilities["revisions"] || !who.Capabilities["vector"] {
		t.Fatalf("capabilities: %+v", who.Capabilities)
	}
}
