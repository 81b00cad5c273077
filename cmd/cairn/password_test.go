package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cairn password set: read from standard input, stored as a bcrypt hash
// (never the password) in a file only its owner reads; bad input refused
// by name; and serve's OAuth flags refused where they make no sense.
func TestPasswordAndPublicURLTranscript(t *testing.T) {
	v := filepath.Join(t.TempDir(), "notes")
	run(t, true, "init", "--from", "../../sample-vault", "--owner", "me", v)
	setPw := func(pw string, wantOK bool, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"password", "set"}, args...)...)
		cmd.Env = append(os.Environ(), "CAIRN_VAULT=")
		cmd.Stdin = strings.NewReader(pw + "\n")
		out, err := cmd.CombinedOutput()
		if (err == nil) != wantOK {
			t.Fatalf("password set %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := setPw("short", false, "me", "--vault", v); !strings.Contains(out, "password: at least 12 characters") {
		t.Errorf("a short password: %s", out)
	}
	if out := setPw("a long enough password", false, "Not A Principal!", "--vault", v); !strings.Contains(out, "principal") {
		t.Errorf("a bad principal: %s", out)
	}
	setPw("a long enough password", true, "me", "--vault", v)
	file := filepath.Join(v, ".cairn", "secrets", "passwords.json")
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("passwords file: %v %v", fi, err)
	}
	data, _ := os.ReadFile(file)
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil || !strings.HasPrefix(m["me"], "$2a$12$") || strings.Contains(string(data), "long enough") {
		t.Fatalf("passwords file holds %s", data)
	}
	if git(t, v, "status", "--porcelain") != "" {
		t.Fatal("the passwords file is not ignored by git")
	}
	run(t, true, "password", "remove", "me", "--vault", v)
	_, stderr := run(t, false, "password", "remove", "me", "--vault", v)
	if !strings.Contains(stderr, `principal "me" has no password`) {
		t.Errorf("removing twice: %s", stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--vault", v, "--http", "127.0.0.1:0", "--public-url", "http://notes.example.com"}, "--public-url: http://notes.example.com: sign-in sends passwords"},
		{[]string{"serve", "--vault", v, "--http", "127.0.0.1:0", "--public-url", "https://notes.example.com/mcp"}, "--public-url: \"https://notes.example.com/mcp\" is not an origin"},
		{[]string{"serve", "--vault", v, "--public-url", "https://notes.example.com"}, "--public-url applies to --http only"},
		{[]string{"serve", "--vault", v, "--http", "127.0.0.1:0", "--allow-private-client-documents"}, "--allow-private-client-documents applies to --public-url only"},
		{[]string{"serve", "--vault", v, "--http", "127.0.0.1:0", "--no-auth", "--public-url", "http://127.0.0.1:1"}, "contradict"},
		{[]string{"serve", "--vault", v, "--http", "127.0.0.1:0", "--oidc-issuer", "https://id.example.com"}, "--oidc-issuer and --oidc-client-id go together"},
		{[]string{"serve", "--vault", v, "--http", "127.0.0.1:0", "--public-url", "http://127.0.0.1:1", "--oidc-issuer", "http://127.0.0.1:1", "--oidc-client-id", "c"}, "--oidc-issuer http://127.0.0.1:1:"},
	} {
		if _, stderr := run(t, false, c.args...); !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %s", c.args, stderr)
		}
	}
}
