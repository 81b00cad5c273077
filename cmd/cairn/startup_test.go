package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	lockPath := filepath.Join(v, vault.HostLockFile)
	os.MkdirAll(filepath.Dir(lockPath), 0o755)
	lock, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

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
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	if line := next(4); !strings.Contains(line, `"isError":true`) || !strings.Contains(line, "cancelled") || !strings.Contains(line, "did not run") {
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
