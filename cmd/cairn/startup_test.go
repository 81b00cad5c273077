package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault"
)

// Another process holds the vault (as `cairn reindex` does while it runs,
// or a host still opening it): `cairn serve` answers initialize and
// tools/list at once; a call made meanwhile waits and runs once the vault
// is free; one cancelled while it waits is answered so and changes
// nothing.
func TestServeAnswersBeforeTheVaultIsFree(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	head := git(t, v, "rev-parse", "HEAD")
	lock := holdHostLock(t, v)
	defer lock.Close()

	srv := startStdio(t, v) // initialize answered
	defer srv.stop()
	send := func(msg string) { fmt.Fprintln(srv.in, msg) }
	next := func(id int) string {
		t.Helper()
		line, err := srv.out.ReadString('\n')
		var head struct {
			ID int `json:"id"`
		}
		if err != nil || json.Unmarshal([]byte(line), &head) != nil || head.ID != id {
			t.Fatalf("want the reply to %d next, got %s (%v)", id, line, err)
		}
		return line
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if line := next(2); !strings.Contains(line, `"get_note"`) {
		t.Fatalf("tools/list: %s", line)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Patient note\n\nwritten once the vault was free"}}}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Impatient note\n\nnever written"}}}`)
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	next(5) // 3 and 4 wait
	// The server hands tool calls to workers, which may take call 4 up
	// after the cancel is read, and a cancel that comes first finds nothing
	// to cancel: it is sent again until call 4 is answered (a cancel of a
	// call already answered is ignored).
	answered, stopped := make(chan struct{}), make(chan struct{})
	var stop sync.Once
	stopCancels := func() { stop.Do(func() { close(answered) }); <-stopped }
	defer stopCancels() // also when the wait for call 4 fails
	go func() {
		defer close(stopped)
		for {
			send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
			select {
			case <-answered:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	line := next(4)
	stopCancels()
	if !strings.Contains(line, `"isError":true`) || !strings.Contains(line, "cancelled") || !strings.Contains(line, "did not run") {
		t.Fatalf("the cancelled call: %s", line)
	}

	lock.Close() // the vault is free: serve opens it
	if line := next(3); strings.Contains(line, `"isError":true`) || !strings.Contains(line, "Patient note") {
		t.Fatalf("the waiting call: %s", line)
	}
	if got := git(t, v, "log", "--format=%s", head+"..HEAD"); got == "" || strings.Contains(got, "\n") {
		t.Fatalf("commits since serve started: %q; want the waiting call's only", got)
	}
	if got := git(t, v, "log", "--all", "--format=%H", "-S", "Impatient note"); got != "" {
		t.Fatalf("the cancelled call was committed: %s", got)
	}
}

// Over HTTP too: the listener initializes sessions while another process
// holds the vault, and a call made then runs once it is free.
func TestServeHTTPInitializesBeforeTheVaultIsFree(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	lock := holdHostLock(t, v)
	defer lock.Close()
	cmd := exec.Command(bin, "serve", "--vault", v, "--http", "127.0.0.1:0", "--no-auth", "--no-watch")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	lines := bufio.NewReader(stderr)
	url := ""
	for url == "" {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("serve ended before serving: %v", err)
		}
		if _, after, ok := strings.Cut(line, " at http://"); ok {
			url = "http://" + strings.TrimSpace(after)
		}
	}
	go io.Copy(io.Discard, lines)
	session := ""
	post := func(body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, body := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"serverInfo"`) || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize while the vault is held: %d %s", resp.StatusCode, body)
	}
	session = resp.Header.Get("Mcp-Session-Id")
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if _, body := post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); !strings.Contains(body, `"get_note"`) {
		t.Fatalf("tools/list while the vault is held: %s", body)
	}
	whoami := make(chan string, 1)
	go func() {
		_, body := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
		whoami <- body
	}()
	lock.Close()
	if body := <-whoami; strings.Contains(body, `"isError":true`) || !strings.Contains(body, "principal") {
		t.Fatalf("whoami made while the vault was held: %s", body)
	}
}

// holdHostLock takes the vault's host lock, as a process hosting it or a
// command holding it does; closing the file releases it.
func holdHostLock(t *testing.T, v string) *os.File {
	t.Helper()
	path := filepath.Join(v, vault.HostLockFile)
	os.MkdirAll(filepath.Dir(path), 0o755)
	lock, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return lock
}
