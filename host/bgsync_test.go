package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
)

// The clock's rules, with the times it is given (no waiting).
func TestSyncClock(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	c := syncClock{every: 30 * time.Second, afterWrite: 2 * time.Second}
	c.observe("h1", at(0))
	if !c.due(at(0)) {
		t.Fatal("the first sync is due at once")
	}
	c.done(at(time.Second), "h1", true)
	if c.due(at(10 * time.Second)) {
		t.Fatal("nothing written: due before the period")
	}
	if !c.due(at(31 * time.Second)) {
		t.Fatal("not due after the period")
	}
	// A write: due afterWrite once HEAD stays still, not before.
	c.observe("h2", at(5*time.Second))
	if c.due(at(6 * time.Second)) {
		t.Fatal("due while HEAD has just moved")
	}
	c.observe("h3", at(6*time.Second)) // another write restarts the wait
	if c.due(at(7*time.Second)) || !c.due(at(8*time.Second)) {
		t.Fatal("not due afterWrite after the last write")
	}
	// Writes all the time: the period still holds.
	c.done(at(10*time.Second), "h3", true)
	for s := 11; s < 40; s++ {
		c.observe(fmt.Sprintf("w%d", s), at(time.Duration(s)*time.Second))
		if c.due(at(time.Duration(s) * time.Second)) {
			t.Fatalf("due at %ds, with a write every second and the period ending at 40s", s)
		}
	}
	if !c.due(at(40 * time.Second)) {
		t.Fatal("a steady stream of writes postponed the sync past its period")
	}
	// A failure: only the period, even with writes waiting.
	c.done(at(41*time.Second), "w39", false)
	c.observe("w41", at(42*time.Second))
	if c.due(at(50*time.Second)) || !c.due(at(71*time.Second)) {
		t.Fatal("after a failure the next try is a period later")
	}
	// A success after it brings the shortcut back.
	c.done(at(72*time.Second), "w41", true)
	c.observe("w42", at(73*time.Second))
	if !c.due(at(75 * time.Second)) {
		t.Fatal("a write after a success is pushed afterWrite later")
	}
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// reports collects what a node says.
type reports struct {
	mu   sync.Mutex
	said []string
}

func (r *reports) add(err error) {
	r.mu.Lock()
	r.said = append(r.said, err.Error())
	r.mu.Unlock()
}

func (r *reports) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.said, "\n")
}

// first is the first thing said containing sub.
func (r *reports) first(sub string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.said {
		if strings.Contains(s, sub) {
			return s
		}
	}
	return "\x00"
}

func (r *reports) count(sub string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.said {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// A host with --sync-every pushes what is written through it and brings
// in what others pushed; a sync that fails (no such remote yet) is said
// and tried again, and the server goes on serving meanwhile.
func TestTheHostSyncsInTheBackground(t *testing.T) {
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	gitT(t, base, "init", "-q", "--bare", "-b", "main", remote)
	root := newVault(t, filepath.Join(base, "a"))
	every := time.Second
	var said reports
	n := Start(context.Background(), mcptools.NewRegistry(), Options{Root: root, Version: "test", Quiet: testQuiet, NoWatch: true,
		SyncEvery: &every, Report: said.add})
	defer n.Close()

	testwait.Until(t, "the missing remote is reported", func() bool { return said.count("background sync failed") > 0 }, &said)
	if s := said.String(); !strings.Contains(s, "origin") || !strings.Contains(s, "nothing changed here") {
		t.Fatalf("the failure does not say what is wrong:\n%s", s)
	}
	created := mustCall(t, n, "create_note", `{"project":"acme/platform","body":"# Written before the remote\n\nwombat"}`)
	path := created["path"].(string)

	gitT(t, root, "remote", "add", "origin", remote)
	onRemote := func(p string) bool {
		out, err := exec.Command("git", "--git-dir", remote, "ls-tree", "-r", "--name-only", "main").Output()
		return err == nil && strings.Contains(string(out), p)
	}
	testwait.Until(t, "the note written before the remote existed reaches it", func() bool { return onRemote(path) }, &said)
	testwait.Until(t, "the recovery is said", func() bool { return said.count("background sync works again") > 0 }, &said)
	if first := said.first("background sync failed"); said.count(first) != 1 {
		t.Fatalf("the same failure was said %d times (once, then every %s at most):\n%s", said.count(first), repeatFailure, &said)
	}

	created = mustCall(t, n, "create_note", `{"project":"acme/platform","body":"# Written while syncing\n\nnumbat"}`)
	testwait.Until(t, "a write through MCP is pushed", func() bool { return onRemote(created["path"].(string)) }, &said)

	// A teammate pushes; the host brings it in, and it is searchable.
	other := filepath.Join(base, "b")
	gitT(t, base, "clone", "-q", remote, other)
	if err := os.WriteFile(filepath.Join(other, "acme/From a teammate.md"), []byte("# From a teammate\n\nquokka\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	access, err := os.ReadFile(filepath.Join(other, ".cairn", "access.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, ".cairn", "access.yaml"), append(access, "  dana:\n    acme: read\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, other, "add", "-A")
	gitT(t, other, "commit", "-qm", "teammate")
	gitT(t, other, "push", "-q", "origin", "main")
	// A file here that is never shared (a symbolic link) is said, once.
	if err := os.Symlink("/etc/hostname", filepath.Join(root, "acme", "link.txt")); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the teammate's note arrives and is found", func() bool {
		out, res := call(t, n, owner, "search", `{"query":"quokka"}`)
		return !res.IsError && strings.Contains(fmt.Sprint(out["results"]), "From a teammate")
	}, &said)

	testwait.Until(t, "the access change that came in is said", func() bool {
		return said.count("settings changed by the sync (applied): .cairn/access.yaml") > 0
	}, &said)
	testwait.Until(t, "the file kept here is said", func() bool { return said.count("kept here, not shared: acme/link.txt") > 0 }, &said)

	// `cairn sync` beside the background one: they take turns.
	c, v, err := Acquire(context.Background(), root, "test", vault.Options{}, time.Minute)
	if err != nil || c == nil || v != nil {
		t.Fatalf("Acquire with a host: %v %v %v", c, v, err)
	}
	defer c.Close()
	rep, err := c.Sync(context.Background(), teamsync.Options{})
	if err != nil || !rep.Pushed {
		t.Fatalf("cairn sync beside the background sync: %+v %v", rep, err)
	}
	if st := gitT(t, root, "status", "--porcelain"); st != "?? acme/link.txt" {
		t.Fatalf("not clean:\n%s", st)
	}
	gitT(t, root, "fsck", "--strict", "--no-progress")
	if n := said.count("kept here, not shared"); n != 1 {
		t.Fatalf("the file kept here was said %d times, not once:\n%s", n, &said)
	}
	t.Logf("the node said:\n%s", &said)
}

// A bad sync section is said once at start, and the server serves.
func TestABadSyncSectionTurnsBackgroundSyncOffOnly(t *testing.T) {
	root := newVault(t, filepath.Join(t.TempDir(), "v"))
	os.WriteFile(filepath.Join(root, ".cairn/config.yaml"), []byte("format: 1\nsync: {every: 1s, remote: 'https://elsewhere.example/x.git'}\n"), 0o644)
	var said reports
	n := Start(context.Background(), mcptools.NewRegistry(), Options{Root: root, Version: "test", Quiet: testQuiet, NoWatch: true, Report: said.add})
	defer n.Close()
	mustCall(t, n, "create_note", `{"project":"acme/platform","body":"# Still served\n\nyes"}`)
	testwait.Until(t, "the bad section is said", func() bool { return said.count("background sync is off") > 0 }, &said)
	if s := said.String(); !strings.Contains(s, "sync.remote") || strings.Contains(s, "background sync with") {
		t.Fatalf("the node said:\n%s", s)
	}
}

// What a sync's report says is said once per path, as it landed.
func TestOnlyLandedConflictsAreSaid(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "N (conflict 2).md"), []byte("x"), 0o644)
	rep := &teamsync.Report{Conflicts: []teamsync.Conflict{
		{Path: "N.md", Copy: "N (conflict 1).md", Why: "first merge, made again"},
		{Path: "Gone.md", Why: "deleted on one side"},
		{Path: "N.md", Copy: "N (conflict 2).md", Why: "the merge that landed"},
		{Path: "M.md", Copy: "M (conflict 2).md", Why: "not landed"},
	}}
	got := fmt.Sprint(landedConflicts(root, rep, true))
	if got != "[{N.md N (conflict 2).md the merge that landed} {Gone.md  deleted on one side}]" {
		t.Fatalf("a sync that succeeded: %s", got)
	}
	if got := fmt.Sprint(landedConflicts(root, rep, false)); got != "[{N.md N (conflict 2).md the merge that landed}]" {
		t.Fatalf("a sync that failed: %s", got)
	}
}
