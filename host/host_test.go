package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/mcp"
)

const testQuiet = 100 * time.Millisecond

func newVault(t *testing.T, dir string) string {
	t.Helper()
	if _, err := vault.Init(dir, vault.InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	root, err := Canonical(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// startNode starts a node and waits until it is attached or hosting.
func startNode(t *testing.T, root string) *Node {
	t.Helper()
	n := Start(context.Background(), mcptools.NewRegistry(), Options{Root: root, Version: "test", Quiet: testQuiet, NoWatch: true,
		Report: func(err error) { t.Logf("node: %v", err) }})
	t.Cleanup(n.Close)
	if _, err := n.await(context.Background(), time.Now().Add(time.Minute), nil); err != nil {
		t.Fatal(err)
	}
	return n
}

var owner = mcptools.OwnerCaller("owner", nil)

// call runs a tool through a node and decodes its structured result.
func call(t *testing.T, n *Node, id mcptools.Caller, tool, args string) (map[string]any, *mcp.CallToolResult) {
	t.Helper()
	res := n.CallTool(context.Background(), id, tool, json.RawMessage(args))
	out := map[string]any{}
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &out)
	}
	return out, res
}

func mustCall(t *testing.T, n *Node, tool, args string) map[string]any {
	t.Helper()
	out, res := call(t, n, owner, tool, args)
	if res.IsError {
		t.Fatalf("%s %s: %s", tool, args, text(res))
	}
	return out
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

func TestSecondNodeAttachesAndSeesEveryWriteAtOnce(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	a := startNode(t, root)
	b := startNode(t, root)
	if a.Hosting() == nil || b.Hosting() != nil {
		t.Fatalf("hosting: a %v, b %v; want a only", a.Hosting() != nil, b.Hosting() != nil)
	}
	for i, pair := range [][2]*Node{{a, b}, {b, a}} {
		w, r := pair[0], pair[1]
		title := fmt.Sprintf("Wombat ledger %d", i)
		mustCall(t, w, "create_note", `{"project":"acme/platform","body":"# `+title+`\n\nmarsupial accounting"}`)
		got := mustCall(t, r, "get_note", `{"ref":"`+title+`"}`)
		if !strings.Contains(fmt.Sprint(got["content"]), "marsupial accounting") {
			t.Fatalf("get_note through the other node: %v", got)
		}
		found := mustCall(t, r, "search", `{"query":"wombat ledger `+fmt.Sprint(i)+`","mode":"lexical"}`)
		if !strings.Contains(fmt.Sprint(found["results"]), title) {
			t.Fatalf("search through the other node misses %q: %v", title, found["results"])
		}
	}
}

func TestCompareAndSwapAcrossNodesHasOneWinner(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	nodes := []*Node{startNode(t, root), startNode(t, root), startNode(t, root)}
	note := mustCall(t, nodes[0], "get_note", `{"ref":"Decision CDN provider"}`)
	tok := note["versionToken"].(string)
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = call(t, nodes[i%3], owner, "edit_note", fmt.Sprintf(`{"ref":"Decision CDN provider","versionToken":%q,"operation":"append","content":"racer %d"}`, tok, i))
		}()
	}
	wg.Wait()
	wins := 0
	for _, res := range results {
		if !res.IsError {
			wins++
		} else if !strings.Contains(text(res), "versionConflict") && !strings.Contains(fmt.Sprint(res.StructuredContent), "versionConflict") {
			t.Fatalf("a loser failed otherwise than versionConflict: %s", text(res))
		}
	}
	if wins != 1 {
		t.Fatalf("%d winners of one compare-and-swap, want 1", wins)
	}
	body := fmt.Sprint(mustCall(t, nodes[2], "get_note", `{"ref":"Decision CDN provider"}`)["content"])
	if strings.Count(body, "racer ") != 1 {
		t.Fatalf("the note holds %d racers' lines", strings.Count(body, "racer "))
	}
}

// A host that hands over answers the calls it did not start "not run";
// their front end sends them to the next host, which may be itself: the
// call succeeds once, whoever runs it.
func TestHandoverRunsEachCallExactlyOnce(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	a := startNode(t, root)
	b := startNode(t, root)
	c := startNode(t, root)
	h := a.cur.(*Host)
	h.mu.Lock()
	h.draining = true // from now on, a takes no call: as at the start of a handover
	h.mu.Unlock()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := []*Node{b, c}[i%2]
			_, res := call(t, n, owner, "create_note", fmt.Sprintf(`{"project":"acme/platform","body":"# Handover note %d\n\nwritten during a handover"}`, i))
			if res.IsError {
				mu.Lock()
				failures = append(failures, text(res))
				mu.Unlock()
			}
		}()
	}
	a.Close()
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("calls failed across a handover: %v", failures)
	}
	if (b.Hosting() == nil) == (c.Hosting() == nil) {
		t.Fatalf("after the handover exactly one of b and c hosts: b %v, c %v", b.Hosting() != nil, c.Hosting() != nil)
	}
	for i := range 8 {
		// Counted by path: "Handover note 1" is a hit of the query for
		// note 0 too (numbered notes form a sequence), via note 0.
		found := mustCall(t, c, "search", fmt.Sprintf(`{"query":"handover note %d","mode":"lexical","limit":50}`, i))
		results, _ := found["results"].([]any)
		n := 0
		for _, r := range results {
			if hit, _ := r.(map[string]any); strings.HasSuffix(fmt.Sprint(hit["path"]), fmt.Sprintf("/Handover note %d.md", i)) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("Handover note %d is there %d times: %v", i, n, found["results"])
		}
	}
}

// The host makes the identity from the claim itself: a front end cannot
// call a write tool for a read token, nor act for a revoked one.
func TestHostResolvesTheClaimItself(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	startNode(t, root)
	tokens := mcptools.NewTokenStore(root)
	_, rec, err := tokens.Create(mcptools.TokenRecord{Principal: "camille", Scope: "read", Toolsets: []string{mcptools.ToolsetGateway}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := dial(SocketPath(root), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.shut()
	send := func(claim mcptools.Claim, tool, args string) string {
		rep, err := r.do(context.Background(), request{Op: opCall, Claim: claim, Tool: tool, Args: json.RawMessage(args)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(rep.Result)
	}
	forged := mcptools.Claim{TokenID: rec.ID, Toolsets: mcptools.AllToolsets}
	if got := send(forged, "create_note", `{"project":"acme/platform","body":"# Forged"}`); !strings.Contains(got, "not available to this token") {
		t.Fatalf("a read token's claim wrote: %s", got)
	}
	if got := send(forged, "whoami", `{}`); !strings.Contains(got, "camille") || strings.Contains(got, "hindsight") {
		t.Fatalf("whoami for camille's claim: %s", got)
	}
	if err := tokens.Revoke(rec.ID); err != nil {
		t.Fatal(err)
	}
	if got := send(forged, "whoami", `{}`); !strings.Contains(got, "invalid or revoked token") {
		t.Fatalf("a revoked token's claim: %s", got)
	}
	if got := send(mcptools.Claim{TokenID: "made-up"}, "whoami", `{}`); !strings.Contains(got, "invalid or revoked token") {
		t.Fatalf("an unknown token's claim: %s", got)
	}
}

func TestLongVaultPathsUseAPrivateSocketFolder(t *testing.T) {
	deep := t.TempDir()
	for len(deep) < 120 {
		deep = filepath.Join(deep, "a-rather-long-folder-name")
	}
	root := newVault(t, filepath.Join(deep, "v"))
	sock := SocketPath(root)
	if strings.HasPrefix(sock, root) || len(sock) > maxSocketPath {
		t.Fatalf("socket path %s (%d bytes) for a vault at %d bytes", sock, len(sock), len(root))
	}
	a := startNode(t, root)
	b := startNode(t, root)
	if a.Hosting() == nil || b.Hosting() != nil {
		t.Fatal("the second node did not attach through the private socket folder")
	}
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi, err)
	}
	mustCall(t, b, "whoami", `{}`)
}

func TestAFrontEndOfAnotherProtocolSaysSo(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "host.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		json.NewDecoder(c).Decode(&greeting{})
		json.NewEncoder(c).Encode(greeting{Protocol: protocol + 1, PID: os.Getpid(), Version: "9.9"})
	}()
	_, err = dial(sock, "test")
	if err == nil || !strings.Contains(err.Error(), "cairn 9.9 speaking protocol") {
		t.Fatalf("dial a host of another protocol: %v", err)
	}
}

func TestCommandsRunInTheHostOrHoldTheVault(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	ctx := context.Background()
	// No host: the command holds the vault, and a server starting meanwhile
	// waits for it.
	c, v, err := Acquire(ctx, root, "test", vault.Options{}, time.Minute)
	if err != nil || c != nil || v == nil {
		t.Fatalf("Acquire without a host: %v %v %v", c, v, err)
	}
	n := Start(ctx, mcptools.NewRegistry(), Options{Root: root, Version: "test", NoWatch: true})
	defer n.Close()
	if n.Hosting() != nil {
		t.Fatal("a node hosts while a command holds the vault")
	}
	v.Close()
	if _, err := n.await(ctx, time.Now().Add(time.Minute), nil); err != nil || n.Hosting() == nil {
		t.Fatalf("the node did not host once the command let go: %v", err)
	}
	mustCall(t, n, "create_note", `{"project":"acme/platform","body":"# Capybara roster\n\nrodents"}`)
	c, v, err = Acquire(ctx, root, "test", vault.Options{}, time.Minute)
	if err != nil || c == nil || v != nil {
		t.Fatalf("Acquire with a host: %v %v %v", c, v, err)
	}
	defer c.Close()
	res, err := c.Search(ctx, vault.SearchArgs{Query: "capybara", Limit: 5})
	if err != nil || len(res.Results) == 0 || res.Results[0].Title != "Capybara roster" {
		t.Fatalf("search through the host: %+v %v", res, err)
	}
}

// Arguments reach the host as the client sent them: the checks on them
// answer the same through an attached process as in the host.
func TestArgumentsCrossTheWireUnchanged(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	a := startNode(t, root)
	b := startNode(t, root)
	for _, args := range []string{
		"{\"ref\":\"bad \xff byte\"}",
		`{"ref":"x","ref":"y"}`,
		`{"Ref":"Decision CDN provider"}`,
		`{"ref":"Decision CDN provider"} trailing`,
	} {
		_, local := call(t, a, owner, "get_note", args)
		_, remote := call(t, b, owner, "get_note", args)
		if !local.IsError || text(local) != text(remote) {
			t.Fatalf("get_note %q: in the host %q (isError %v), attached %q", args, text(local), local.IsError, text(remote))
		}
	}
	_, res := call(t, b, owner, "create_note", `{"project":"acme/platform","body":"# Angle <brackets> & ampersands\n\n<b>kept</b> as written & so on"}`)
	if res.IsError {
		t.Fatal(text(res))
	}
	got := mustCall(t, a, "get_note", `{"ref":"Angle <brackets> & ampersands"}`)
	if !strings.Contains(fmt.Sprint(got["content"]), "<b>kept</b> as written & so on") {
		t.Fatalf("content after the wire: %v", got["content"])
	}
}

// A call its client cancels, at a host that does not answer the cancel (a
// stuck host, or an older one without cancels), is told so, and that the
// write may have run; never a bare "context canceled".
func TestACancelTheHostLeavesUnansweredMayHaveRun(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "host.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	read := make(chan request, 2)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		dec := json.NewDecoder(c)
		dec.Decode(&greeting{})
		json.NewEncoder(c).Encode(greeting{Protocol: protocol, PID: os.Getpid(), Version: "stuck"})
		for {
			var req request
			if dec.Decode(&req) != nil {
				return
			}
			read <- req
		}
	}()
	r, err := dial(sock, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.shut()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-read // the call reached the host: cancel it there
		cancel()
	}()
	_, err = r.do(ctx, request{Op: opCall, Tool: "create_note", Args: json.RawMessage(`{}`)}, nil)
	if req := <-read; req.Op != opCancel {
		t.Fatalf("after the client gave up, the host read %+v; want a cancel", req)
	}
	var ue *mcptools.UnavailableError
	if !errors.As(remoteFailure(ctx, err, false, os.Getpid()), &ue) || !ue.MayHaveRun ||
		!strings.Contains(ue.Error(), "cancelled") || !strings.Contains(ue.Error(), "whether it had run it") {
		t.Fatalf("a write cancelled at a host that never answered: %v (from %v)", ue, err)
	}
	if !errors.As(remoteFailure(ctx, err, true, os.Getpid()), &ue) || ue.MayHaveRun {
		t.Fatalf("a read cancelled at a host that never answered: %v", ue)
	}
}
