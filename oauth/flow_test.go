package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/mark3labs/mcp-go/mcp"
)

// From a bare 401 to a note written: discovery, registration, sign-in and
// consent, the code's exchange, then MCP calls with the access token; the
// grant is a cairn token, its write a commit by the principal naming the
// client.
func TestAClientSignsInAndWrites(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequest(http.MethodPost, h.url+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	challenge := resp.Header.Get("WWW-Authenticate")
	prm := h.url + "/.well-known/oauth-protected-resource/mcp"
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+prm+`"`) || !strings.Contains(challenge, `scope="read write"`) {
		t.Fatalf("a call without a token: %d, WWW-Authenticate %q", resp.StatusCode, challenge)
	}
	var meta struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
	}
	getJSON(t, prm, &meta)
	if meta.Resource != h.url+"/mcp" || len(meta.Servers) != 1 || meta.Servers[0] != h.url {
		t.Fatalf("resource metadata: %+v", meta)
	}
	var as map[string]any
	getJSON(t, h.url+"/.well-known/oauth-authorization-server", &as)
	if as["issuer"] != h.url || as["registration_endpoint"] != h.url+pathRegister || as["client_id_metadata_document_supported"] != true ||
		!equalJSON(as["code_challenge_methods_supported"], []any{"S256"}) || !equalJSON(as["response_types_supported"], []any{"code"}) {
		t.Fatalf("server metadata: %v", as)
	}

	tr, clientID := h.signIn(ScopeWrite, h.url+"/mcp", mcptools.ToolsetGateway)
	c, err := h.mcpClient("/mcp", tr.Access)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(context.Background(), callReq("create_note", map[string]any{"project": "acme/launch", "body": "# Written by an app\n\nSigned in by OAuth."}))
	if err != nil || res.IsError {
		t.Fatalf("create_note: %v %+v", err, res)
	}
	out, err := exec.Command("git", "-C", h.dir, "log", "-1", "--format=%an%n%B").Output()
	if err != nil {
		t.Fatal(err)
	}
	if log := string(out); !strings.HasPrefix(log, h.owner+"\n") || !strings.Contains(log, "Cairn-Client: Test App") {
		t.Fatalf("the write's commit:\n%s", log)
	}
	recs, _ := h.tokens.List()
	var grant mcptools.TokenRecord
	for _, r := range recs {
		if r.Kind == mcptools.KindOAuth {
			grant = r
		}
	}
	if grant.Client != clientID || grant.ClientName != "Test App" || grant.Principal != h.owner || grant.Scope != ScopeWrite ||
		grant.Expires.IsZero() || grant.LastUsed.IsZero() || grant.Hash != "" || strings.Contains(grant.AccessHash, tr.Access) {
		t.Fatalf("the grant as cairn token list sees it: %+v", grant)
	}
	// A token for /mcp is not one for another endpoint.
	if _, err := h.mcpClient("/treaisure/mcp", tr.Access); err == nil {
		t.Fatal("an access token for /mcp was taken at /treaisure/mcp")
	}
}

// A read grant is a read token: the write tools are not even listed.
func TestAReadGrantSeesNoWriteTool(t *testing.T) {
	h := newHarness(t)
	tr, _ := h.signIn(ScopeRead, h.url, mcptools.ToolsetGateway)
	c, err := h.mcpClient("/mcp", tr.Access)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "create_note" || tool.Name == "edit_note" {
			t.Fatalf("a read grant lists %s", tool.Name)
		}
	}
	if len(tools.Tools) == 0 {
		t.Fatal("no tools")
	}
}

// Refreshing rotates both tokens: the old ones stop working, and an old
// refresh token presented again ends the grant (it was stolen, or
// replayed).
func TestRefreshRotatesAndAReplayEndsTheGrant(t *testing.T) {
	h := newHarness(t)
	tr, clientID := h.signIn(ScopeWrite, h.url+"/mcp", mcptools.ToolsetGateway)
	refresh := func(rt string) (int, tokenResponse) {
		return h.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}, "resource": {h.url + "/mcp"}})
	}
	status, next := refresh(tr.Refresh)
	if status != http.StatusOK || next.Access == "" || next.Refresh == "" || next.Refresh == tr.Refresh || next.Access == tr.Access {
		t.Fatalf("refresh: %d %+v", status, next)
	}
	if _, err := h.mcpClient("/mcp", tr.Access); err == nil {
		t.Fatal("the access token before the refresh still works")
	}
	if _, err := h.mcpClient("/mcp", next.Access); err != nil {
		t.Fatalf("the new access token: %v", err)
	}
	if status, _ := refresh(tr.Refresh); status == http.StatusOK {
		t.Fatal("a refresh token was exchanged twice")
	}
	if _, err := h.mcpClient("/mcp", next.Access); err == nil {
		t.Fatal("the grant outlived a replayed refresh token")
	}
	if status, _ := refresh(next.Refresh); status == http.StatusOK {
		t.Fatal("the grant's newest refresh token works after the replay")
	}
}

// Revocation, by the client (RFC 7009) or by cairn token revoke, ends
// the access and refresh tokens at once.
func TestRevocationEndsBothTokensAtOnce(t *testing.T) {
	h := newHarness(t)
	tr, clientID := h.signIn(ScopeWrite, h.url+"/mcp", mcptools.ToolsetGateway)
	status, _, body := h.postForm(h.url+pathRevoke, url.Values{"token": {tr.Access}, "client_id": {clientID}})
	if status != http.StatusOK {
		t.Fatalf("revoke: %d %s", status, body)
	}
	if _, err := h.mcpClient("/mcp", tr.Access); err == nil {
		t.Fatal("a revoked access token works")
	}
	if status, _ := h.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.Refresh}, "client_id": {clientID}}); status == http.StatusOK {
		t.Fatal("a revoked grant's refresh token works")
	}

	tr, _ = h.signIn(ScopeWrite, h.url+"/mcp", mcptools.ToolsetGateway)
	recs, _ := h.tokens.List()
	for _, r := range recs {
		if r.Kind == mcptools.KindOAuth {
			if err := h.tokens.Revoke(r.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := h.mcpClient("/mcp", tr.Access); err == nil {
		t.Fatal("an access token works after cairn token revoke")
	}
}

func callReq(name string, args map[string]any) mcp.CallToolRequest {
	var r mcp.CallToolRequest
	r.Params.Name = name
	r.Params.Arguments = args
	return r
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Clients of every protocol revision use their grant alike: 2025-06-18
// and 2025-11-25 with a session (initialize first), 2026-07-28 stateless.
func TestEveryProtocolRevisionThroughOAuth(t *testing.T) {
	h := newHarness(t)
	tr, _ := h.signIn(ScopeWrite, h.url+"/mcp", mcptools.ToolsetGateway)
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		c, err := h.mcpClientAt("/mcp", tr.Access, version)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if stateless := c.GetSessionId() == ""; stateless != (version == "2026-07-28") {
			t.Errorf("%s: session %q", version, c.GetSessionId())
		}
		res, err := c.CallTool(context.Background(), callReq("whoami", map[string]any{}))
		if err != nil || res.IsError {
			t.Fatalf("%s: whoami: %v %+v", version, err, res)
		}
		if text := res.Content[0].(mcp.TextContent).Text; !strings.Contains(text, `"principal":"`+h.owner+`"`) {
			t.Errorf("%s: whoami: %s", version, text)
		}
	}
}
