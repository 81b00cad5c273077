package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/host"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// callTimeout bounds every call, so that a hang fails the benchmark
// instead of stalling it (a call waits at most host.DefaultWait for a host).
const callTimeout = 2 * time.Minute

// proc is one `cairn serve` over stdio and the mcp-go client driving it.
type proc struct {
	name   string
	cmd    *exec.Cmd
	c      *client.Client
	stderr *syncBuffer
}

// startProc starts `cairn serve --vault dir` and initializes its client.
// The command is made here (WithCommandFunc) so that its pid is known and
// it can be killed; the transport still reaps it.
func startProc(bin, dir, name string) (*proc, error) {
	p := &proc{name: name, stderr: &syncBuffer{}}
	tr := transport.NewStdioWithOptions(bin, nil, []string{"serve", "--vault", dir},
		transport.WithCommandFunc(func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			p.cmd = exec.Command(command, args...)
			p.cmd.Env = append(os.Environ(), env...)
			return p.cmd, nil
		}),
		transport.WithCommandStderrWriter(p.stderr))
	p.c = client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := p.c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "hostbench", Version: "1"}
	if _, err := p.c.Initialize(ctx, init); err != nil {
		p.c.Close()
		return nil, fmt.Errorf("initialize %s: %w\n%s", name, err, p.stderr)
	}
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// call makes one tool call and decodes its structured result into out
// (when not nil). A transport error or an isError result is an error.
func (p *proc) call(tool string, args map[string]any, out any) error {
	_, err := p.callResult(tool, args, out)
	return err
}

// answerSize is the size of a call's result as JSON (content and
// structured content): what the host encodes and the front end decodes
// and encodes again.
func (p *proc) answerSize(tool string, args map[string]any) (int, error) {
	res, err := p.callResult(tool, args, nil)
	if err != nil {
		return 0, err
	}
	b, err := json.Marshal(res)
	return len(b), err
}

func (p *proc) callResult(tool string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := p.c.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", tool, p.name, err)
	}
	if res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		return nil, fmt.Errorf("%s on %s: isError %s %v", tool, p.name, b, res.Content)
	}
	if out == nil {
		return res, nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: encode its result: %w", tool, p.name, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("%s on %s: decode its result: %w", tool, p.name, err)
	}
	return res, nil
}

// kill sends SIGKILL; the process is reaped by close.
func (p *proc) kill() error {
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s: %w", p.name, err)
	}
	return nil
}

// close ends the client: stdin closes, the server exits (handing over
// when it hosts) and is reaped.
func (p *proc) close() error {
	if err := p.c.Close(); err != nil && !strings.Contains(err.Error(), "signal: killed") {
		return fmt.Errorf("close %s: %w", p.name, err)
	}
	return nil
}

// hostOf is the process among procs that holds the host lock.
func hostOf(dir string, procs []*proc) (*proc, error) {
	pid := host.HolderPID(dir)
	for _, p := range procs {
		if p.pid() == pid {
			return p, nil
		}
	}
	return nil, fmt.Errorf("the host lock names process %d, none of the benchmark's", pid)
}

// searchOut is the part of search's answer the benchmark reads.
type searchOut struct {
	VectorsPending int               `json:"vectorsPending"`
	IndexPending   int               `json:"indexPending"`
	Results        []json.RawMessage `json:"results"`
}

// waitReady searches through p until the index holds every note and
// every vector (a search answered while they are made is slower).
func waitReady(p *proc, query string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		var s searchOut
		if err := p.call("search", map[string]any{"query": query}, &s); err != nil {
			return err
		}
		if s.VectorsPending == 0 && s.IndexPending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("index not ready after %s: %d vectors and %d notes pending", within, s.VectorsPending, s.IndexPending)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// syncBuffer is a process's stderr, written by the transport's drain,
// with the time each piece arrived (to time the lines a process logs).
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	ends []int       // where each write ended in b
	at   []time.Time // when it arrived
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	s.ends, s.at = append(s.ends, s.b.Len()), append(s.at, time.Now())
	return n, err
}

// when is the time text, looked for from offset from, arrived.
func (s *syncBuffer) when(text string, from int) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := strings.Index(s.b.String()[from:], text)
	if i < 0 {
		return time.Time{}, false
	}
	end := from + i + len(text)
	for k, e := range s.ends {
		if e >= end {
			return s.at[k], true
		}
	}
	return time.Time{}, false
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
