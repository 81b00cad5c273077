package host

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/mcp"
)

// heldOpen starts a node whose open of the vault stops, host lock held,
// until release is called; locked is closed once it is held there. wait
// is its Wait (a millisecond shows a wait for its own open is not bounded
// by it).
func heldOpen(t *testing.T, root string, wait time.Duration) (n *Node, reg *mcptools.Registry, locked <-chan struct{}, release func()) {
	t.Helper()
	gate, lk := make(chan struct{}), make(chan struct{})
	reg = mcptools.NewRegistry()
	n = Start(context.Background(), reg, Options{Root: root, Version: "test", Quiet: testQuiet, NoWatch: true, Wait: wait,
		Report: func(err error) { t.Logf("node: %v", err) },
		holdOpen: func() {
			select {
			case <-lk: // a later open (after a failure) is not held
			default:
				close(lk)
				<-gate
			}
		}})
	released := false
	release = func() {
		if !released {
			released = true
			close(gate)
		}
	}
	t.Cleanup(func() { release(); n.Close() })
	return n, reg, lk, release
}

// stdioClient is an MCP client on pipes to a front server served in this
// process, as `cairn serve` serves its own client over stdio.
type stdioClient struct {
	in  io.Writer
	out *bufio.Reader
}

func serveOnPipes(t *testing.T, n *Node, reg *mcptools.Registry) *stdioClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		who := func() (mcptools.Caller, error) { return owner, nil }
		mcptools.ServeStdio(ctx, mcptools.NewFrontServer(n, reg, "test"), who, inR, outW)
	}()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close(); <-done })
	return &stdioClient{in: inW, out: bufio.NewReader(outR)}
}

func (c *stdioClient) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := fmt.Fprintln(c.in, msg); err != nil {
		t.Fatal(err)
	}
}

// next reads the next reply and checks it answers request id.
func (c *stdioClient) next(t *testing.T, id int) string {
	t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the reply to %d: %v", id, err)
	}
	var head struct {
		ID int `json:"id"`
	}
	if json.Unmarshal([]byte(line), &head) != nil || head.ID != id {
		t.Fatalf("want the reply to %d first, got %s", id, line)
	}
	return line
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// The vault's open is held (host lock taken, nothing loaded): initialize
// and tools/list are answered, a call made meanwhile waits and then
// succeeds, and a call cancelled while it waits is answered at once and
// changes nothing.
func TestInitializeIsAnsweredWhileTheVaultOpens(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	head := gitT(t, root, "rev-parse", "HEAD")
	n, reg, locked, release := heldOpen(t, root, time.Millisecond)
	<-locked
	c := serveOnPipes(t, n, reg)

	c.send(t, initialize)
	if line := c.next(t, 1); !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("initialize: %s", line)
	}
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if line := c.next(t, 2); !strings.Contains(line, `"create_note"`) {
		t.Fatalf("tools/list: %s", line)
	}

	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Early bird\n\nmade before the vault was open"}}}`)
	c.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Cancelled bird\n\nnever written"}}}`)
	c.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	c.next(t, 5) // 3 and 4 are still waiting
	// A cancel that came before the server's worker took the call up
	// would find nothing to cancel: it is sent once both calls wait.
	testwait.Until(t, "calls 3 and 4 wait for the open", func() bool { return n.awaiting.Load() == 2 })
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"the user gave up"}}`)
	if line := c.next(t, 4); !strings.Contains(line, `"isError":true`) || !strings.Contains(line, "cancelled") ||
		!strings.Contains(line, "did not run") || !strings.Contains(line, "for the vault to open") {
		t.Fatalf("cancelled call: %s", line)
	}
	if n.Hosting() != nil {
		t.Fatal("the node hosts the vault while its open is held")
	}

	release()
	if line := c.next(t, 3); strings.Contains(line, `"isError":true`) || !strings.Contains(line, "Early bird") {
		t.Fatalf("the early call after the open: %s", line)
	}
	if got := gitT(t, root, "log", "--format=%s", head+"..HEAD"); strings.Count(got, "\n") != 0 || got == "" {
		t.Fatalf("commits since the start: %q; want the early call's only", got)
	}
	if out := gitT(t, root, "log", "--all", "--format=%H", "-S", "Cancelled bird"); out != "" {
		t.Fatalf("the cancelled call was committed: %s", out)
	}
	if path := fileHolding(t, root, "Cancelled bird"); path != "" {
		t.Fatalf("the cancelled call's note is in the work tree: %s", path)
	}
	if _, res := call(t, n, owner, "get_note", `{"ref":"Cancelled bird"}`); !res.IsError {
		t.Fatal("the cancelled call's note exists")
	}
}

// The open fails after the host lock was taken (the access file was
// broken meanwhile): the calls that waited for it, in the opening process
// and in one attached to it, and every call after them, are answered with
// the open's error.
func TestAFailedOpenIsTheAnswerOfEveryCall(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	n, _, locked, release := heldOpen(t, root, 0) // after the failure, another try may hold the vault a moment
	<-locked
	front, r := attached(t, root)
	early := make(chan string, 2)
	for _, node := range []*Node{n, front} {
		go func() {
			_, res := call(t, node, owner, "create_note", `{"project":"acme/platform","body":"# Never\n\nno vault"}`)
			early <- fmt.Sprint(res.IsError, " ", text(res))
		}()
	}
	testwait.Until(t, "the front end's call waits at the host", func() bool { return pending(r) == 1 })
	if err := os.WriteFile(filepath.Join(root, vault.AccessFile), []byte("owner: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	release()
	want := "the vault cannot be served: open vault: " + vault.AccessFile
	for range 2 {
		if got := <-early; !strings.HasPrefix(got, "true ") || !strings.Contains(got, want) {
			t.Fatalf("a call made during the open: %s", got)
		}
	}
	// The process that failed to open the vault says why at every call
	// until an open succeeds (the front end, meanwhile, tries to open the
	// vault itself, or attaches to the next try).
	for _, tool := range []string{"whoami", "search", "list_notes"} {
		_, res := call(t, n, owner, tool, `{"query":"x"}`)
		if !res.IsError || !strings.Contains(text(res), want) {
			t.Fatalf("%s after the failed open: %s", tool, text(res))
		}
	}
	if n.Hosting() != nil {
		t.Fatal("a node hosts a vault it could not open")
	}
}

// A call waiting for another process that holds the vault (a command, a
// host starting) still gives up after Wait, naming it; one cancelled
// meanwhile says so.
func TestACallWaitsForAnotherHolderAtMostWait(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	held, err := vault.Open(root, vault.Options{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	n := Start(context.Background(), mcptools.NewRegistry(), Options{Root: root, Version: "test", NoWatch: true, Wait: 200 * time.Millisecond})
	defer func() { held.Close(); n.Close() }()
	if _, res := call(t, n, owner, "whoami", `{}`); !res.IsError || !strings.Contains(text(res), "no process could host the vault within 200ms") {
		t.Fatalf("whoami while another process holds the vault: %s", text(res))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := n.CallTool(ctx, owner, "whoami", json.RawMessage(`{}`))
	if !res.IsError || !strings.Contains(text(res), "for a process to host the vault") || !strings.Contains(text(res), "did not run") {
		t.Fatalf("a cancelled call: %s", text(res))
	}
}

// fileHolding is a file of the work tree (outside .git and the cache)
// that holds s, or "".
func fileHolding(t *testing.T, root, s string) string {
	t.Helper()
	found := ""
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (rel == ".git" || rel == filepath.FromSlash(vault.CacheDir)) {
			return filepath.SkipDir
		}
		if data, err := os.ReadFile(path); err == nil && !d.IsDir() && strings.Contains(string(data), s) {
			found = rel
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// attached starts a node and waits until it is attached to the host (the
// one opening the vault, here).
func attached(t *testing.T, root string) (*Node, *remote) {
	t.Helper()
	n := Start(context.Background(), mcptools.NewRegistry(), Options{Root: root, Version: "test", NoWatch: true, Wait: time.Millisecond,
		Report: func(err error) { t.Logf("front end: %v", err) }})
	t.Cleanup(n.Close)
	cur, err := n.await(context.Background(), time.Now().Add(time.Minute), nil)
	r, ok := cur.(*remote)
	if err != nil || !ok {
		t.Fatalf("not attached: %v %T", err, cur)
	}
	return n, r
}

// pending counts the requests a front end sent and has no answer to.
func pending(r *remote) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// A process started while another opens the vault attaches to it at once
// (it listens before the open is done): a call sent then waits at the
// host and runs once the vault is open; one its client cancels while it
// waits there is answered so, and never runs.
func TestAFrontEndAttachesWhileTheHostOpens(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	head := gitT(t, root, "rev-parse", "HEAD")
	_, _, locked, release := heldOpen(t, root, time.Millisecond)
	<-locked
	front, r := attached(t, root)
	early := make(chan *mcp.CallToolResult, 1)
	go func() {
		_, res := call(t, front, owner, "create_note", `{"project":"acme/platform","body":"# Early wombat\n\nsent while the host opened the vault"}`)
		early <- res
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan *mcp.CallToolResult, 1)
	go func() {
		cancelled <- front.CallTool(ctx, owner, "create_note", json.RawMessage(`{"project":"acme/platform","body":"# Cancelled wombat\n\nnever written"}`))
	}()
	testwait.Until(t, "both calls wait at the host", func() bool { return pending(r) == 2 })
	cancel()
	if res := <-cancelled; !res.IsError || !strings.Contains(text(res), "cancelled") || !strings.Contains(text(res), "did not run") {
		t.Fatalf("the cancelled call: %s", text(res))
	}
	release()
	if res := <-early; res.IsError || !strings.Contains(fmt.Sprint(res.StructuredContent), "Early wombat") {
		t.Fatalf("the call sent while the host opened the vault: %s", text(res))
	}
	if got := gitT(t, root, "log", "--format=%s", head+"..HEAD"); got == "" || strings.Contains(got, "\n") {
		t.Fatalf("commits since the start: %q; want the early call's only", got)
	}
	if out := gitT(t, root, "log", "--all", "--format=%H", "-S", "Cancelled wombat"); out != "" {
		t.Fatalf("the cancelled call was committed: %s", out)
	}
	if path := fileHolding(t, root, "Cancelled wombat"); path != "" {
		t.Fatalf("the cancelled call's note is in the work tree: %s", path)
	}
}

// A cancel the host reads before the goroutine of the call it cancels has
// started is heeded: the call is answered not run while the vault is
// still opening, not left waiting for the open (the goroutine once looked
// its cancel channel up itself, found the entry the cancel had removed,
// and waited for the open regardless).
func TestACancelReadBeforeItsCallStartsIsHeeded(t *testing.T) {
	h := &Host{ready: make(chan struct{})} // a vault being opened, never done here
	hc := &hostConn{waiting: map[uint64]chan struct{}{}}
	cancelled := hc.startWait(7)
	hc.cancelWait(7) // read by the connection's loop before the call's goroutine runs
	done := make(chan reply, 1)
	go func() {
		rep, ok := h.awaitVault(context.Background(), request{ID: 7, Op: opCall, Tool: "whoami"}, hc, cancelled)
		if ok {
			t.Error("a cancelled call was let through to run")
		}
		done <- rep
	}()
	select {
	case rep := <-done:
		if !rep.NotRun || rep.ID != 7 {
			t.Fatalf("the cancelled call's answer: %+v; want request 7 not run", rep)
		}
	case <-time.After(openWait / 2):
		t.Fatalf("the call still waits for the vault to open %s after its cancel was read", openWait/2)
	}
}
