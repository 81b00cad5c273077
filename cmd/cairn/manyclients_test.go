package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/host"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestHostKilledAgainAndAgainWhileOthersWrite serves one vault with four
// `cairn serve` processes over stdio, each driven by an MCP client that
// writes notes in a loop (create_note, then edit_note append). Each round
// the process hosting the vault is killed with SIGKILL once every client
// has a few writes acknowledged; the others carry on (a write answered
// "unavailable" is re-read, and sent again only when it did not land), and
// a new server takes the dead one's place. After each round every server
// reads and searches each acknowledged write; at the end every one is in
// HEAD exactly once (no write is anywhere twice), git fsck is clean and
// nothing is left uncommitted.
//
// CAIRN_HOST_KILLS sets the number of rounds (default 3). Waits are bounded
// only to fail instead of hanging; no timing is asserted. A call that gets
// no answer fails the test with each live server's goroutines (SIGQUIT).
func TestHostKilledAgainAndAgainWhileOthersWrite(t *testing.T) {
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("CAIRN_HOST_KILLS")); err == nil && n > 0 {
		rounds = n
	}
	const servers = 4
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	cl := &cluster{t: t, v: v}
	for i := 0; i < servers; i++ {
		// One call each, in turn: the first server hosts, the others attach.
		cl.mustCall(cl.start(), "whoami", map[string]any{})
	}
	if pid := host.HolderPID(v); pid != cl.nodes[0].pid() {
		cl.fatalf(false, "the first server (pid %d) should host the vault; the host lock names %d", cl.nodes[0].pid(), pid)
	}
	var acked []writtenNote
	var st writeStats
	for r := 0; r < rounds; r++ {
		notes := cl.killRound(r, &st)
		for i, n := range cl.nodes {
			cl.checkNotes(n, notes, i == r%len(cl.nodes))
		}
		acked = append(acked, notes...)
	}
	t.Logf("%d rounds: %d notes acknowledged; writes answered unavailable %d, found landed %d, sent again %d",
		rounds, len(acked), st.unavailable.Load(), st.landed.Load(), st.sentAgain.Load())

	git(t, v, "fsck", "--strict", "--no-progress")
	if out := git(t, v, "--no-optional-locks", "status", "--porcelain"); out != "" {
		t.Errorf("left uncommitted after the kills:\n%s", out)
	}
	inHead := map[string]int{}
	for _, m := range strings.Fields(git(t, v, "grep", "-h", "-o", "-E", "zzr[0-9]+s[0-9]+n[0-9]+[ca]0", "HEAD")) {
		inHead[m]++
	}
	for m, n := range inHead {
		if n != 1 {
			t.Errorf("%s is in HEAD %d times", m, n)
		}
	}
	for _, n := range acked {
		for _, m := range []string{n.cm, n.am} {
			if inHead[m] != 1 {
				t.Errorf("acknowledged write %s (%s) is in HEAD %d times", m, n.path, inHead[m])
			}
		}
	}
	// Still there after the later rounds' kills.
	cl.checkNotes(cl.nodes[0], acked, true)
}

// cluster is the servers on one vault: a failure shows all their logs.
type cluster struct {
	t     *testing.T
	v     string
	nodes []*stdioNode
	born  int // servers started, for their names
}

func (cl *cluster) start() *stdioNode {
	cl.t.Helper()
	n := startNode(cl.t, cl.v, fmt.Sprintf("s%d", cl.born))
	cl.born++
	cl.nodes = append(cl.nodes, n)
	return n
}

// fatalf fails the test with each server's log. When a call got no
// answer (hung), each server still running is first asked (SIGQUIT) for its
// goroutines, which end its log: they tell where the call is stuck.
func (cl *cluster) fatalf(hung bool, format string, args ...any) {
	cl.t.Helper()
	logs := ""
	for _, n := range cl.nodes {
		if hung && !n.killed.Load() {
			n.cmd.Process.Signal(syscall.SIGQUIT)
			n.c.Close() // waits for the process, so its log is whole
		}
		logs += fmt.Sprintf("\n--- %s (pid %d):\n%s", n.name, n.pid(), n.stderr.String())
	}
	cl.t.Fatalf(format+"%s", append(args, logs)...)
}

// hung says whether err is a call that got no answer in time.
func hung(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

func (cl *cluster) mustCall(n *stdioNode, tool string, args map[string]any) toolResult {
	cl.t.Helper()
	res, err := n.call(tool, args)
	if err != nil {
		cl.fatalf(hung(err), "%v", err)
	}
	if res.isError {
		cl.fatalf(false, "%s: %s %v: %s", n.name, tool, args, res.text)
	}
	return res
}

// checkNotes has n read each note (as acknowledged, each marker once) and,
// with search, find it by its append's marker alone.
func (cl *cluster) checkNotes(n *stdioNode, notes []writtenNote, search bool) {
	cl.t.Helper()
	for _, w := range notes {
		var got struct{ Content, VersionToken string }
		cl.mustCall(n, "get_note", map[string]any{"ref": w.id}).decode(cl.t, &got)
		if got.VersionToken != w.versionToken || strings.Count(got.Content, w.cm) != 1 || strings.Count(got.Content, w.am) != 1 {
			cl.t.Errorf("%s reads %s %q, acknowledged as %s with %s and %s", n.name, w.path, got.Content, w.versionToken, w.cm, w.am)
		}
		if !search {
			continue
		}
		var found struct{ Results []struct{ ID string } }
		cl.mustCall(n, "search", map[string]any{"query": w.am, "mode": "lexical"}).decode(cl.t, &found)
		// First, and once: its numbered neighbours may follow it.
		once := 0
		for _, r := range found.Results {
			if r.ID == w.id {
				once++
			}
		}
		if len(found.Results) == 0 || found.Results[0].ID != w.id || once != 1 {
			cl.t.Errorf("%s: search %s: %+v, want %s first, once", n.name, w.am, found.Results, w.id)
		}
	}
}

// killRound has every server write while the host is killed, replaces the
// killed server with a new one, and returns the notes acknowledged.
func (cl *cluster) killRound(r int, st *writeStats) []writtenNote {
	cl.t.Helper()
	const perWriter, killAfter = 6, 2
	victim, hosting := -1, host.HolderPID(cl.v)
	for i, n := range cl.nodes {
		if n.pid() == hosting {
			victim = i
		}
	}
	if victim < 0 {
		cl.fatalf(false, "round %d: the host lock names pid %d, none of the servers", r, hosting)
	}
	type outcome struct {
		n     *stdioNode
		notes []writtenNote
		err   error
	}
	reached := make(chan struct{}, len(cl.nodes))
	done := make(chan outcome, len(cl.nodes))
	for i, n := range cl.nodes {
		go func() {
			notes, err := n.writeLoop(r, i, perWriter, killAfter, reached, st)
			done <- outcome{n, notes, err}
		}()
	}
	// A writer may finish all its notes before the slowest reaches
	// killAfter: its reached and done are then both ready, and select picks
	// either. Such a writer is kept for the count below, not a failure.
	var finished []outcome
	for got := 0; got < len(cl.nodes); {
		select {
		case <-reached:
			got++
		case o := <-done:
			if o.err != nil {
				cl.fatalf(hung(o.err), "round %d: a writer stopped before the kill: %v", r, o.err)
			}
			finished = append(finished, o)
		case <-time.After(60 * time.Second):
			cl.fatalf(true, "round %d: the writers did not all reach %d notes", r, killAfter)
		}
	}
	killed := cl.nodes[victim]
	killed.kill()
	var out []writtenNote
	for _, o := range finished {
		out = append(out, o.notes...)
	}
	for range len(cl.nodes) - len(finished) {
		select {
		case o := <-done:
			out = append(out, o.notes...)
			// The killed server's client fails with it: expected.
			if o.err != nil && o.n != killed {
				cl.fatalf(hung(o.err), "round %d: %v", r, o.err)
			}
		case <-time.After(90 * time.Second):
			cl.fatalf(true, "round %d: the writers did not finish", r)
		}
	}
	cl.nodes = append(cl.nodes[:victim], cl.nodes[victim+1:]...)
	late := cl.start()
	cl.mustCall(late, "whoami", map[string]any{})
	hosting = host.HolderPID(cl.v)
	if hosting == late.pid() {
		cl.t.Errorf("round %d: the new server hosts the vault instead of attaching to the one that took over", r)
	}
	for _, n := range cl.nodes {
		if n.pid() == hosting {
			return out
		}
	}
	cl.fatalf(false, "round %d: the host lock names pid %d, none of the servers", r, hosting)
	return nil
}

// stdioNode is `cairn serve` over stdio with an mcp-go client on it.
type stdioNode struct {
	name   string
	cmd    *exec.Cmd
	c      *client.Client
	stderr *syncBuffer
	killed atomic.Bool
}

// startNode starts `cairn serve --vault v` over stdio, with extra flags.
func startNode(t *testing.T, v, name string, extra ...string) *stdioNode {
	t.Helper()
	n := &stdioNode{name: name, stderr: &syncBuffer{}}
	newCmd := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		n.cmd = exec.Command(command, args...)
		n.cmd.Env = append(os.Environ(), "CAIRN_VAULT=", "CAIRN_TOKEN=")
		n.cmd.Stderr = n.stderr
		return n.cmd, nil
	}
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, append([]string{"serve", "--vault", v}, extra...), transport.WithCommandFunc(newCmd))
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	n.c = c
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "manyclients-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize %s: %v\n%s", name, err, n.stderr.String())
	}
	return n
}

func (n *stdioNode) pid() int { return n.cmd.Process.Pid }

// kill ends the server the hard way; its client's calls then fail.
func (n *stdioNode) kill() {
	n.killed.Store(true)
	n.cmd.Process.Signal(syscall.SIGKILL)
}

// toolResult is a call's result: isError, and its structured content.
type toolResult struct {
	isError bool
	data    json.RawMessage
	text    string
}

func (r toolResult) decode(t *testing.T, into any) {
	t.Helper()
	if err := json.Unmarshal(r.data, into); err != nil {
		t.Fatalf("decode %s: %v", r.data, err)
	}
}

// call calls a tool; err is a failed request (the server is gone, or the
// call hung), not an isError result.
func (n *stdioNode) call(tool string, args map[string]any) (toolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	// Longer than the 30 s a call waits for a new host: the server's own
	// answer comes first.
	ctx, cancel := context.WithTimeout(context.Background(), 35*time.Second)
	defer cancel()
	res, err := n.c.CallTool(ctx, req)
	if err != nil {
		return toolResult{}, fmt.Errorf("%s: %s %v: %w", n.name, tool, args, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return toolResult{}, fmt.Errorf("%s: %s: structured content: %w", n.name, tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return toolResult{isError: res.IsError, data: b, text: strings.Join(text, "\n")}, nil
}

type writeStats struct{ unavailable, landed, sentAgain atomic.Int64 }

// writtenNote is a note a writer created and appended to, both acknowledged.
type writtenNote struct {
	writer, id, path, versionToken string
	cm, am                         string // the markers of the create and the append
}

// writeLoop writes count notes (create_note, then append), telling reached
// once killAfter are acknowledged. It returns the notes acknowledged and,
// if it stopped early, why.
func (n *stdioNode) writeLoop(r, w, count, killAfter int, reached chan<- struct{}, st *writeStats) ([]writtenNote, error) {
	var notes []writtenNote
	for i := 0; i < count; i++ {
		title := fmt.Sprintf("Round %d s%d n%d", r, w, i)
		note := writtenNote{writer: n.name, path: "acme/" + title + ".md",
			cm: fmt.Sprintf("zzr%ds%dn%dc0", r, w, i), am: fmt.Sprintf("zzr%ds%dn%da0", r, w, i)}
		create := map[string]any{"project": "acme", "body": fmt.Sprintf("# %s\n\n%s killround\n", title, note.cm)}
		var created struct{ ID, Path, VersionToken string }
		how, err := n.carefulWrite("create_note", create, &created, st, func() (map[string]any, json.RawMessage, error) {
			got, ok, err := n.readNote(note.path)
			if err != nil || ok {
				return nil, got, err
			}
			return create, nil, nil
		})
		if err != nil {
			return notes, err
		}
		note.id = created.ID
		edit := func(token string) map[string]any {
			return map[string]any{"ref": created.ID, "versionToken": token, "operation": "append", "content": "\n" + note.am + "\n"}
		}
		var appended struct{ VersionToken, Content string }
		_, err = n.carefulWrite("edit_note", edit(created.VersionToken), &appended, st, func() (map[string]any, json.RawMessage, error) {
			got, ok, err := n.readNote(created.ID)
			if err != nil || !ok {
				return nil, nil, fmt.Errorf("%s: note %s (%s) is gone (%v)", n.name, created.ID, how, err)
			}
			var cur struct{ Content, VersionToken string }
			if err := json.Unmarshal(got, &cur); err != nil {
				return nil, nil, err
			}
			if strings.Contains(cur.Content, note.am) {
				return nil, got, nil
			}
			return edit(cur.VersionToken), nil, nil
		})
		if err != nil {
			return notes, fmt.Errorf("%w (the note was created: %s)", err, how)
		}
		note.versionToken = appended.VersionToken
		notes = append(notes, note)
		if len(notes) == killAfter {
			reached <- struct{}{}
		}
	}
	return notes, nil
}

// carefulWrite makes a write the way a careful client does while the host
// may die: an "unavailable" answer (the write may have run) is followed by
// reread, which gives the note as it now is when the write landed, or the
// arguments to send again. The acknowledged result is decoded into out;
// how says how it came (for a failure's message).
func (n *stdioNode) carefulWrite(tool string, args map[string]any, out any, st *writeStats,
	reread func() (again map[string]any, landed json.RawMessage, err error)) (how string, err error) {
	for attempt := 1; ; attempt++ {
		res, err := n.call(tool, args)
		if err != nil {
			return "", err
		}
		if !res.isError {
			return fmt.Sprintf("acknowledged at attempt %d", attempt), json.Unmarshal(res.data, out)
		}
		var u struct {
			Error      string
			MayHaveRun bool
		}
		json.Unmarshal(res.data, &u)
		if u.Error != "unavailable" || !u.MayHaveRun || attempt == 4 {
			return "", fmt.Errorf("%s: %s %v (attempt %d): %s", n.name, tool, args, attempt, res.text)
		}
		st.unavailable.Add(1)
		again, landed, err := reread()
		if err != nil {
			return "", err
		}
		if landed != nil {
			st.landed.Add(1)
			return fmt.Sprintf("found landed after attempt %d", attempt), json.Unmarshal(landed, out)
		}
		st.sentAgain.Add(1)
		args = again
	}
}

// readNote reads a note; ok is false when there is no such note.
func (n *stdioNode) readNote(ref string) (json.RawMessage, bool, error) {
	res, err := n.call("get_note", map[string]any{"ref": ref})
	if err != nil {
		return nil, false, err
	}
	if res.isError {
		if strings.Contains(res.text, "not found") {
			return nil, false, nil
		}
		return nil, false, errors.New(n.name + ": get_note " + ref + ": " + res.text)
	}
	return res.data, true, nil
}
