package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/mcptools"
)

// configuredVault makes a vault whose committed .cairn/config.yaml asks
// for background sync every second, with an empty bare remote as origin.
func configuredVault(t *testing.T) (root, remote string) {
	t.Helper()
	base := t.TempDir()
	remote = filepath.Join(base, "remote.git")
	gitT(t, base, "init", "-q", "--bare", "-b", "main", remote)
	root = newVault(t, filepath.Join(base, "a"))
	cfg := filepath.Join(root, ".cairn", "config.yaml")
	old, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(old, "sync: {every: 1s}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, root, "add", ".cairn/config.yaml")
	gitT(t, root, "commit", "-qm", "sync every second")
	gitT(t, root, "remote", "add", "origin", remote)
	return root, remote
}

// remoteHolds says whether the remote's main branch holds p.
func remoteHolds(remote, p string) bool {
	out, err := exec.Command("git", "--git-dir", remote, "ls-tree", "-r", "--name-only", "main").Output()
	return err == nil && strings.Contains(string(out), p)
}

// sync.every in .cairn/config.yaml alone, no --sync-every: the host syncs
// in the background, and a write through MCP reaches the remote.
func TestTheConfigFileAloneStartsBackgroundSync(t *testing.T) {
	root, remote := configuredVault(t)
	var said reports
	n := Start(context.Background(), mcptools.NewRegistry(), Options{Root: root, Version: "test", Quiet: testQuiet, NoWatch: true, Report: said.add})
	defer n.Close()
	created := mustCall(t, n, "create_note", `{"project":"acme/platform","body":"# Pushed by the config\n\nwombat"}`)
	path := created["path"].(string)
	testwait.Until(t, "the write reaches the remote", func() bool { return remoteHolds(remote, path) }, &said)
	if s := said.first("background sync with"); !strings.Contains(s, "origin main every 1s") {
		t.Fatalf("the node did not say it syncs every 1s, from the file:\n%s", &said)
	}
}

// --sync-every 0 turns background sync off even when the vault's
// config.yaml asks for it: the plan says off, the host never says it
// syncs, and nothing written reaches the remote.
func TestSyncEveryZeroOverridesTheConfigFile(t *testing.T) {
	root, remote := configuredVault(t)
	if every, _, err := syncPlan(root, nil); err != nil || every != time.Second {
		t.Fatalf("without the flag the file's plan is every 1s: %s %v", every, err)
	}
	off := time.Duration(0)
	if every, _, err := syncPlan(root, &off); err != nil || every != 0 {
		t.Fatalf("--sync-every 0: the plan is every %s (%v), want off", every, err)
	}

	var said reports
	n := Start(context.Background(), mcptools.NewRegistry(), Options{Root: root, Version: "test", Quiet: testQuiet, NoWatch: true,
		SyncEvery: &off, Report: said.add})
	created := mustCall(t, n, "create_note", `{"project":"acme/platform","body":"# Never pushed\n\nnumbat"}`)
	// The host decides its background sync before it serves a call, and
	// says so when it starts one: by now it has decided.
	if n.Hosting() == nil {
		t.Fatalf("the node does not host the vault:\n%s", &said)
	}
	n.Close()
	if said.count("background sync") != 0 {
		t.Fatalf("the host started a background sync:\n%s", &said)
	}
	if out, err := exec.Command("git", "--git-dir", remote, "rev-parse", "--verify", "-q", "main").CombinedOutput(); err == nil || remoteHolds(remote, created["path"].(string)) {
		t.Fatalf("the remote got a branch (%s) with --sync-every 0", out)
	}
	// The write is there, committed, for a later sync.
	if gitT(t, root, "ls-tree", "--name-only", "HEAD", "--", created["path"].(string)) == "" {
		t.Fatal("the write was not committed")
	}
}
