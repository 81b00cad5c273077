package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestServeRefusesBadHTTPLimitFlags(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", v)
	head := git(t, v, "rev-parse", "HEAD")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-body", "100"}, "--max-body: 100 is under 4 KiB"},
		{[]string{"--max-body", "lots"}, `--max-body: "lots" is not a size`},
		{[]string{"--max-body", "-5MiB"}, "--max-body"},
		{[]string{"--session-idle", "0"}, "--session-idle"},
		{[]string{"--session-idle", "10ms"}, "--session-idle: 10ms is under a second"},
		{[]string{"--max-sessions", "0"}, "--max-sessions"},
		{[]string{"--max-sessions", "-3"}, "--max-sessions"},
		{[]string{"--allow-origin", "*"}, "--allow-origin"},
		{[]string{"--allow-origin", "https://app.example/path"}, "--allow-origin"},
		{[]string{"--allow-origin", "app.example"}, "--allow-origin"},
	} {
		args := append([]string{"serve", "--vault", v, "--http", "127.0.0.1:0"}, tc.args...)
		if _, errOut := run(t, false, args...); !strings.Contains(errOut, tc.want) {
			t.Fatalf("%v said: %s", tc.args, errOut)
		}
	}
	// Over stdio they mean nothing: refused rather than ignored.
	if _, errOut := run(t, false, "serve", "--vault", v, "--max-body", "1MiB"); !strings.Contains(errOut, "--max-body applies to --http only") {
		t.Fatalf("--max-body over stdio: %s", errOut)
	}
	if git(t, v, "rev-parse", "HEAD") != head || git(t, v, "status", "--porcelain") != "" {
		t.Fatal("a refused serve changed the vault")
	}
}

// TestServeHTTPLimitFlags drives the built binary: the flags reach the
// handler.
func TestServeHTTPLimitFlags(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", v)
	cmd := exec.Command(bin, "serve", "--vault", v, "--http", "127.0.0.1:0", "--no-auth", "--no-watch",
		"--max-body", "8KiB", "--allow-origin", "https://app.example")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	lines := bufio.NewReader(stderr)
	serving := regexp.MustCompile(`at (http://\S+/mcp)`)
	url := ""
	for url == "" {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("serve ended before serving: %v", err)
		}
		if m := serving.FindStringSubmatch(line); m != nil {
			url = m[1]
		}
	}
	go io.Copy(io.Discard, lines)
	post := func(origin, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if resp, body := post("", init[:len(init)-1]+`,"pad":"`+strings.Repeat("x", 8192)+`"}`); resp.StatusCode != http.StatusRequestEntityTooLarge ||
		!strings.Contains(body, "8192 bytes (8 KiB)") || !strings.Contains(body, "--max-body") {
		t.Fatalf("over --max-body: %d %s", resp.StatusCode, body)
	}
	if resp, body := post("https://evil.example", init); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "--allow-origin") {
		t.Fatalf("foreign origin: %d %s", resp.StatusCode, body)
	}
	resp, body := post("https://app.example", init)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("allowed origin: %d %v %s", resp.StatusCode, resp.Header, body)
	}
}
