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
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// callTimeout bounds every call, so that a hang fails the benchmark
// instead of stalling it.
const callTimeout = 2 * time.Minute

// proc is one `cairn serve` over stdio and the mcp-go client driving it
// (as in bench/hostbench).
type proc struct {
	name   string
	cmd    *exec.Cmd
	c      *client.Client
	stderr *lockedBuffer
}

// startProc starts `cairn serve --vault dir extra...` and initializes its
// client. The command is made here (WithCommandFunc) so that its pid is
// known; the transport still reaps it.
func startProc(bin, dir, name string, extra ...string) (*proc, error) {
	p := &proc{name: name, stderr: &lockedBuffer{}}
	args := append([]string{"serve", "--vault", dir}, extra...)
	tr := transport.NewStdioWithOptions(bin, nil, args,
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
	init.Params.ClientInfo = mcp.Implementation{Name: "teambench", Version: "1"}
	if _, err := p.c.Initialize(ctx, init); err != nil {
		p.c.Close()
		return nil, fmt.Errorf("initialize %s: %w\n%s", name, err, p.stderr)
	}
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// call makes one tool call and decodes its structured result into out
// (when not nil). A transport error or an isError result is an error
// whose text holds the result (e.g. versionConflict).
func (p *proc) call(tool string, args map[string]any, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := p.c.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", tool, p.name, err)
	}
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if t, ok := c.(mcp.TextContent); ok {
				text = append(text, t.Text)
			}
		}
		return fmt.Errorf("%s on %s: isError: %s", tool, p.name, strings.Join(text, " "))
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("%s on %s: encode its result: %w", tool, p.name, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s on %s: decode its result: %w", tool, p.name, err)
	}
	return nil
}

// close ends the client: stdin closes, the server exits and is reaped.
func (p *proc) close() error {
	if err := p.c.Close(); err != nil {
		return fmt.Errorf("close %s: %w", p.name, err)
	}
	return nil
}

// mem is a process's resident memory now and at its peak, in bytes.
type mem struct{ rss, hwm uint64 }

// memOf reads VmRSS and VmHWM from /proc/PID/status.
func memOf(pid int) (mem, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return mem{}, fmt.Errorf("memory of process %d: %w", pid, err)
	}
	var m mem
	for _, line := range strings.Split(string(data), "\n") {
		var kb uint64
		switch {
		case strings.HasPrefix(line, "VmRSS:"):
			fmt.Sscanf(strings.TrimPrefix(line, "VmRSS:"), "%d", &kb)
			m.rss = kb << 10
		case strings.HasPrefix(line, "VmHWM:"):
			fmt.Sscanf(strings.TrimPrefix(line, "VmHWM:"), "%d", &kb)
			m.hwm = kb << 10
		}
	}
	if m.rss == 0 {
		return m, fmt.Errorf("memory of process %d: no VmRSS in its status", pid)
	}
	return m, nil
}

// lockedBuffer is a process's stderr, written by the transport's drain
// while the benchmark reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *lockedBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *lockedBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
