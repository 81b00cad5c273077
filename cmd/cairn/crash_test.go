package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestServerKilledAgainAndAgainLosesNothing kills `cairn serve` with SIGKILL
// at random moments while agents write through MCP and a person edits
// notes in an editor, restarts it each time, and then checks: git fsck is
// clean, every acknowledged write is in HEAD, every hand edit is committed
// as the person's, nothing cairn left behind remains, the search index
// answers as a rebuilt one does, and writes work without a hand.
//
// CAIRN_CRASH_KILLS sets the number of kills (default 8); the test logs the
// figures (kills, acknowledged writes, writes found, recoveries).
func TestServerKilledAgainAndAgainLosesNothing(t *testing.T) {
	kills := 8
	if n, err := strconv.Atoi(os.Getenv("CAIRN_CRASH_KILLS")); err == nil && n > 0 {
		kills = n
	}
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	addr := freeAddr(t)
	seed := time.Now().UnixNano()
	if n, err := strconv.ParseInt(os.Getenv("CAIRN_CRASH_SEED"), 10, 64); err == nil {
		seed = n
	}
	rng := rand.New(rand.NewSource(seed))
	t.Logf("kills %d, CAIRN_CRASH_SEED=%d", kills, seed)

	editor := startEditor(v)
	var acked []string // markers of acknowledged writes
	recovered := 0
	for k := 0; k < kills; k++ {
		srv := startHTTP(t, v, addr)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for _, m := range agentWrites(srv.url, fmt.Sprintf("k%dw%d", k, w)) {
					mu.Lock()
					acked = append(acked, m)
					mu.Unlock()
				}
			}(w)
		}
		time.Sleep(time.Duration(150+rng.Intn(500)) * time.Millisecond)
		srv.kill()
		wg.Wait()
		if strings.Contains(srv.stderr.String(), "recovered:") {
			recovered++
		}
	}
	editor.stop()

	// One more start, with the watcher, to take in what the last run left.
	srv := startHTTP(t, v, addr)
	if strings.Contains(srv.stderr.String(), "recovered:") {
		recovered++
	}
	deadline := time.Now().Add(60 * time.Second)
	for git(t, v, "status", "--porcelain") != "" {
		if time.Now().After(deadline) {
			t.Fatalf("the work tree never came clean:\n%s\nserver:\n%s", git(t, v, "status", "--porcelain"), srv.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	git(t, v, "fsck", "--strict", "--no-progress")
	inHead := git(t, v, "grep", "-h", "-o", "marker-[a-z0-9-]*", "HEAD")
	found := 0
	for _, m := range acked {
		if strings.Contains(inHead, m+"\n") || strings.HasSuffix(inHead, m) {
			found++
		} else {
			t.Errorf("acknowledged write %s is not in HEAD", m)
		}
	}
	for rel, content := range editor.files() {
		if got := git(t, v, "show", "HEAD:"+rel); got != strings.TrimSpace(content) {
			t.Errorf("the person's edit of %s is not what HEAD holds:\n%q\nwant\n%q", rel, got, content)
		}
		if who := git(t, v, "log", "-1", "--format=%(trailers:key=Cairn-Actor,valueonly)", "--", rel); who != "human" {
			t.Errorf("%s was last committed as %q, not the person's", rel, who)
		}
	}
	c := mcpClient(t, srv.url)
	// Each writer's id is a word of its notes alone: few enough results
	// that the limit never cuts the list.
	var writers []string
	for _, m := range sample(acked, 20, rng) {
		writers = append(writers, strings.Split(m, "-")[1])
	}
	queries := append(writers, "pricing", "hand line")
	before := searchAll(t, c, queries)
	srv.stop(t)
	out, _ := run(t, true, "doctor", "--vault", v)
	for _, bad := range []string{"crash ", "git lock", "temp file", "uncommitted  "} {
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, bad) && !strings.HasPrefix(line, "ok") {
				t.Errorf("doctor after the crashes: %s", line)
			}
		}
	}
	run(t, true, "reindex", "--vault", v)
	srv = startHTTP(t, v, addr)
	defer srv.stop(t)
	after := searchAll(t, mcpClient(t, srv.url), queries)
	for i, q := range queries {
		if before[i] != after[i] {
			t.Errorf("search %q: the live index answered\n%s\na rebuilt one answers\n%s", q, before[i], after[i])
		}
	}
	if _, err := callToolRaw(mcpClient(t, srv.url), "create_note", map[string]any{"project": "acme", "body": "# After the crashes\n\nmarker-after\n"}); err != nil {
		t.Fatalf("a write after the crashes: %v", err)
	}
	t.Logf("kills %d, acknowledged writes %d, found in HEAD %d, restarts that recovered an interrupted commit %d, hand-edited notes %d, all recovered without a hand",
		kills, len(acked), found, recovered, len(editor.files()))
}

// agentWrites creates notes and appends to them through one MCP client
// until the server goes away; it returns the markers of the writes the
// server acknowledged.
func agentWrites(url, who string) []string {
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		return nil
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "crash-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil
	}
	var acked []string
	for i := 0; ; i++ {
		marker := fmt.Sprintf("marker-%s-%d", strings.ToLower(who), i)
		res, err := callToolRaw(c, "create_note", map[string]any{"project": "acme", "body": fmt.Sprintf("# Crash %s %d\n\n%s\n", who, i, marker)})
		if err != nil {
			return acked
		}
		acked = append(acked, marker)
		var created struct{ ID, VersionToken string }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &created)
		more := marker + "-appended"
		if _, err := callToolRaw(c, "edit_note", map[string]any{"ref": created.ID, "versionToken": created.VersionToken, "operation": "append", "content": "\n" + more + "\n"}); err != nil {
			return acked
		}
		acked = append(acked, more)
	}
}

// callToolRaw calls a tool; a transport failure or an isError result is an
// error (the write was not acknowledged).
func callToolRaw(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: %v", name, res.Content)
	}
	return res, nil
}

func mcpClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "crash-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// searchAll runs each query lexically and returns the set of result
// paths, one sorted string per query. (Ranks among near-equal hits may
// differ from a rebuilt index: an updated document's old version still
// counts in BM25's statistics until its segment is merged.)
func searchAll(t *testing.T, c *client.Client, queries []string) []string {
	t.Helper()
	out := make([]string, len(queries))
	for i, q := range queries {
		res, err := callToolRaw(c, "search", map[string]any{"query": q, "mode": "lexical", "limit": 50})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		var r struct {
			Results []struct{ Path string }
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &r)
		var paths []string
		for _, x := range r.Results {
			paths = append(paths, x.Path)
		}
		sort.Strings(paths)
		out[i] = strings.Join(paths, "\n")
	}
	return out
}

func sample(list []string, n int, rng *rand.Rand) []string {
	var out []string
	for _, i := range rng.Perm(len(list)) {
		if len(out) == n {
			break
		}
		out = append(out, list[i])
	}
	return out
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// httpServer is `cairn serve --http` as a child process.
type httpServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	done   chan struct{} // closed once the process has exited
	err    error         // its exit status, once done
}

func startHTTP(t *testing.T, vaultDir, addr string) *httpServer {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := &httpServer{url: "http://" + addr + "/mcp", stderr: &syncBuffer{}, done: make(chan struct{})}
		s.cmd = exec.Command(bin, "serve", "--vault", vaultDir, "--http", addr, "--no-auth", "--commit-after", "200ms")
		s.cmd.Stderr = s.stderr
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { s.err = s.cmd.Wait(); close(s.done) }()
		for !strings.Contains(s.stderr.String(), "serving ") {
			select {
			case <-s.done:
			case <-time.After(10 * time.Millisecond):
				continue
			}
			break
		}
		select {
		case <-s.done:
		default:
			return s
		}
		// The port may still be held by the killed server's last moments.
		if !strings.Contains(s.stderr.String(), "address already in use") || time.Now().After(deadline) {
			t.Fatalf("cairn serve did not start (%v):\n%s", s.err, s.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill ends the server the hard way: no deferred cleanup, no flush.
func (s *httpServer) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

func (s *httpServer) stop(t *testing.T) {
	s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
	if s.err != nil {
		t.Errorf("cairn serve exited with %v:\n%s", s.err, s.stderr.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// editor is a person saving notes in an editor the whole time, server up
// or down: each save rewrites one of a few notes with one more line.
type editor struct {
	dir  string
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	last map[string]string
}

func startEditor(dir string) *editor {
	e := &editor{dir: dir, done: make(chan struct{}), last: map[string]string{}}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for i := 0; ; i++ {
			select {
			case <-e.done:
				return
			case <-time.After(40 * time.Millisecond):
			}
			rel := fmt.Sprintf("acme/Hand edit %d.md", i%4)
			e.mu.Lock()
			content := e.last[rel]
			if content == "" {
				content = fmt.Sprintf("# Hand edit %d\n", i%4)
			}
			content += fmt.Sprintf("\nhand line %d\n", i)
			os.WriteFile(filepath.Join(e.dir, rel), []byte(content), 0o644)
			e.last[rel] = content
			e.mu.Unlock()
		}
	}()
	return e
}

func (e *editor) stop() {
	close(e.done)
	e.wg.Wait()
}

func (e *editor) files() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]string{}
	for k, v := range e.last {
		out[k] = v
	}
	return out
}
