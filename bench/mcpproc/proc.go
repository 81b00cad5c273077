// Package mcpproc runs `cairn serve` as a separate process over stdio and
// drives it with mcp-go's client, as an MCP client such as an editor does:
// for the benchmarks that measure the process itself (its start, its
// memory), with the figures they print (percentiles, the machine's load).
// bench/hostbench, bench/servebench and bench/teambench all drive their
// processes through it, so that there is one copy of the driver to keep.
package mcpproc

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

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// CallTimeout bounds every call, so that a hang fails the benchmark
// instead of stalling it.
const CallTimeout = 2 * time.Minute

// Proc is one `cairn serve` over stdio and the mcp-go client driving it.
type Proc struct {
	Name   string
	Cmd    *exec.Cmd
	Client *client.Client
	Stderr *Log
	// Started is when the process was started; Initialized how long after
	// that its MCP initialize was answered.
	Started     time.Time
	Initialized time.Duration
}

// Start starts `bin serve --vault dir extra...` and initializes its
// client. The command is made here (WithCommandFunc) so that its pid is
// known and it can be killed; the transport still reaps it.
func Start(bin, dir, name string, extra ...string) (*Proc, error) {
	p := &Proc{Name: name, Stderr: &Log{}}
	args := append([]string{"serve", "--vault", dir}, extra...)
	tr := transport.NewStdioWithOptions(bin, nil, args,
		transport.WithCommandFunc(func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			p.Cmd = exec.Command(command, args...)
			p.Cmd.Env = append(os.Environ(), env...)
			return p.Cmd, nil
		}),
		transport.WithCommandStderrWriter(p.Stderr))
	p.Client = client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	p.Started = time.Now()
	if err := p.Client.Start(ctx); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "cairn-bench", Version: "1"}
	if _, err := p.Client.Initialize(ctx, init); err != nil {
		p.Client.Close()
		return nil, fmt.Errorf("initialize %s: %w\n%s", name, err, p.Stderr)
	}
	p.Initialized = time.Since(p.Started)
	return p, nil
}

// PID is the process's id.
func (p *Proc) PID() int { return p.Cmd.Process.Pid }

// Call makes one tool call and decodes its structured result into out
// (when not nil). A transport error or an isError result is an error
// whose text holds the result's text.
func (p *Proc) Call(tool string, args map[string]any, out any) error {
	_, err := p.CallResult(tool, args, out)
	return err
}

// CallResult is Call that also returns the whole result, for a benchmark
// that measures the answer itself (its size as JSON, say) rather than only
// what it decodes.
func (p *Proc) CallResult(tool string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := p.Client.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", tool, p.Name, err)
	}
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if t, ok := c.(mcp.TextContent); ok {
				text = append(text, t.Text)
			}
		}
		return nil, fmt.Errorf("%s on %s: isError: %s", tool, p.Name, strings.Join(text, " "))
	}
	if out == nil {
		return res, nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: encode its result: %w", tool, p.Name, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("%s on %s: decode its result: %w", tool, p.Name, err)
	}
	return res, nil
}

// Kill sends SIGKILL; the process is reaped by Close.
func (p *Proc) Kill() error {
	if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s: %w", p.Name, err)
	}
	return nil
}

// Close ends the client: stdin closes, the server exits (saving what it
// saves at a clean stop) and is reaped.
func (p *Proc) Close() error {
	if err := p.Client.Close(); err != nil && !strings.Contains(err.Error(), "signal: killed") {
		return fmt.Errorf("close %s: %w", p.Name, err)
	}
	return nil
}

// Log is a process's stderr, written by the transport's drain while the
// benchmark reads it, with the time each write arrived: a benchmark times
// what the process did by the lines it logged (When).
type Log struct {
	mu   sync.Mutex
	b    bytes.Buffer
	ends []int       // where each write ended in b
	at   []time.Time // when it arrived
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.b.Write(p)
	l.ends, l.at = append(l.ends, l.b.Len()), append(l.at, time.Now())
	return n, err
}

// When is the time text arrived: that of the write that completed its
// first occurrence at or after byte offset from (a length of String taken
// earlier, so that a line logged before then is not the one timed). It
// is false when text is not there.
func (l *Log) When(text string, from int) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if from < 0 || from > l.b.Len() {
		return time.Time{}, false
	}
	i := strings.Index(l.b.String()[from:], text)
	if i < 0 {
		return time.Time{}, false
	}
	end := from + i + len(text)
	for k, e := range l.ends {
		if e >= end {
			return l.at[k], true
		}
	}
	return time.Time{}, false
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
