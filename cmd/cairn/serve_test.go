package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM stops `cairn serve` while it builds its search index (2,000
// notes and long notes queued), and the next start serves searches: the
// ordinary notes at once, the long ones once the lane has them. No timing
// is asserted; the waits are hang checks.
func TestSigtermMidIndexThenRestartServesSearches(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	for i := 0; i < 2000; i++ {
		dir := filepath.Join(v, "notes", fmt.Sprintf("f%02d", i%20))
		os.MkdirAll(dir, 0o755)
		body := fmt.Sprintf("# Note %04d\n\nword%04d %s\n", i, i, strings.Repeat("plain words of an ordinary note ", 40))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("Note %04d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 4; i++ {
		body := fmt.Sprintf("# Long %d\n\nmarkerlong%d\n\n%s", i, i, strings.Repeat("y", 900<<10))
		os.WriteFile(filepath.Join(v, "notes", fmt.Sprintf("Long %d.md", i)), []byte(body), 0o644)
	}
	run(t, true, "init", v)

	srv := startStdio(t, v) // the index is being built from here on
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v", err)
		}
	case <-time.After(60 * time.Second):
		srv.cmd.Process.Kill()
		t.Fatal("serve did not stop within 60 s of SIGTERM")
	}

	srv = startStdio(t, v)
	defer srv.stop()
	// The restart builds again what the first run left unfinished: a
	// search made meanwhile answers from what is indexed and says so;
	// once the build is done, it finds the note.
	id := 2
	deadline := time.Now().Add(60 * time.Second)
	for ; ; id++ {
		line := srv.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"word1234","mode":"lexical"}}}`, id), `"result"`)
		if strings.Contains(line, `Note 1234`) {
			break
		}
		if !strings.Contains(line, `still being built`) || time.Now().After(deadline) {
			t.Fatalf("a search after the restart neither finds the note nor says the index is being built: %s", line)
		}
		time.Sleep(50 * time.Millisecond)
	}
	deadline = time.Now().Add(60 * time.Second)
	for i := id + 1; ; i++ {
		line := srv.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"markerlong3","mode":"lexical"}}}`, i), `"result"`)
		if strings.Contains(line, `Long 3.md`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the long note is not searchable 60 s after the restart: %s", line)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A client may close its end of the server's stderr before the server
// has stopped: mcp-go's stdio client does so on Close, then waits for the
// process. A log line then (a big vault's "still saving" at a stop) must
// not end the server by SIGPIPE before it has saved what it saves: it is
// lost, and the server goes on. Here no one ever reads its stderr, so its
// first log line, at start, already meets the closed pipe.
func TestServeOutlivesAClosedStderr(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command(bin, "serve", "--vault", v)
	cmd.Stderr = w
	s := startStdioCmd(t, cmd)
	w.Close()
	s.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Unheard\n\nwritten with no one reading the log"}}}`, `"versionToken`)
	s.in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server, its stderr closed, ended with %v", err)
	}
	if log := git(t, v, "log", "-1", "--format=%s"); !strings.Contains(log, "Unheard") {
		t.Fatalf("the note's commit is missing: %s", log)
	}
}
