package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSyncSectionIsReadAndChecked(t *testing.T) {
	good := []struct {
		yaml string
		want SyncSettings
	}{
		{"", SyncSettings{}},
		{"sync: {every: 30s}\n", SyncSettings{Every: 30 * time.Second}},
		{"sync: {every: 0}\n", SyncSettings{}},
		{"sync: {every: off, remote: team, branch: notes/main}\n", SyncSettings{Remote: "team", Branch: "notes/main"}},
		{"sync:\n  every: 2m\n  remote: origin\n  branch: main\n", SyncSettings{Every: 2 * time.Minute, Remote: "origin", Branch: "main"}},
	}
	for _, g := range good {
		root := t.TempDir()
		writeConfig(t, root, "format: 1\n"+g.yaml)
		cfg, err := LoadConfig(root)
		if err != nil {
			t.Fatalf("%q: %v", g.yaml, err)
		}
		got, err := cfg.Sync.Settings()
		if err != nil || got != g.want {
			t.Fatalf("%q: got %+v, %v; want %+v", g.yaml, got, err, g.want)
		}
	}
	bad := []struct{ yaml, names, says string }{
		{"sync: {every: 30}\n", "sync.every", "not a duration"},
		{"sync: {every: -5s}\n", "sync.every", "negative"},
		{"sync: {every: 200ms}\n", "sync.every", "under 1s"},
		{"sync: {remote: 'https://evil.example/x.git'}\n", "sync.remote", "URL"},
		{"sync: {remote: 'git@host:x.git'}\n", "sync.remote", "URL"},
		{"sync: {remote: '--upload-pack=touch /tmp/x'}\n", "sync.remote", "may not start"},
		{"sync: {remote: 'a b'}\n", "sync.remote", "not allowed"},
		{"sync: {branch: '-f'}\n", "sync.branch", "may not start"},
		{"sync: {branch: 'a..b'}\n", "sync.branch", "not a branch name"},
		{"sync: {branch: 'main.lock'}\n", "sync.branch", "not a branch name"},
	}
	for _, b := range bad {
		root := t.TempDir()
		writeConfig(t, root, "format: 1\nembedder: {provider: none}\n"+b.yaml)
		cfg, err := LoadConfig(root)
		if err != nil {
			t.Fatalf("%q: a bad sync section must not fail the whole file (semantic search): %v", b.yaml, err)
		}
		if cfg.Embedder.Provider != "none" {
			t.Fatalf("%q: the rest of the file was not read", b.yaml)
		}
		_, err = cfg.Sync.Settings()
		if err == nil || !strings.Contains(err.Error(), b.names) || !strings.Contains(err.Error(), b.says) {
			t.Fatalf("%q: error %v, want it to name %s and say %q", b.yaml, err, b.names, b.says)
		}
	}
	root := t.TempDir()
	writeConfig(t, root, "format: 1\nsync: {every: 30s, peers: 3}\n")
	if _, err := LoadConfig(root); err == nil || !strings.Contains(err.Error(), "peers") {
		t.Fatalf("an unknown key under sync: %v", err)
	}
}

func writeConfig(t *testing.T, root, content string) {
	t.Helper()
	p := filepath.Join(root, ConfigFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
