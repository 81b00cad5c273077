package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// openCountingWaits opens dir with its version map's build held until a
// call waits for it: each wait is counted, and lets the build go.
func openCountingWaits(t *testing.T, dir string) (*Store, *atomic.Int32) {
	t.Helper()
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	waits := new(atomic.Int32)
	buildGate = func() { <-gate }
	buildWaiting = func() { waits.Add(1); release() }
	t.Cleanup(func() { buildGate, buildWaiting = nil, nil })
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	t.Cleanup(release)
	return s, waits
}

// While the version map is still being built in the background, writes
// go on (issue 34: no call waits behind the build): each checks its
// versionToken against what it knows, refuses a stale one naming the
// current version, and leaves the versions the map gives once built. A
// commit made by hand meanwhile makes the next write wait for the map,
// and that write is checked against the hand commit.
func TestWritesGoOnWhileTheMapIsBuilt(t *testing.T) {
	dir := onDemandHistory(t)
	s, waits := openCountingWaits(t, dir)
	start := mustHead(t, s).String()
	version := func(p string) (string, bool) {
		t.Helper()
		v, ok, err := s.Version(p)
		if err != nil {
			t.Fatal(err)
		}
		return v, ok
	}
	conflict := func(c Change, want string) {
		t.Helper()
		_, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: "stale", Changes: []Change{c}})
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Current != want {
			t.Errorf("a commit of %s expecting %q: %v, want a conflict naming %q", c.Path, c.ExpectVersion, err, want)
		}
	}

	edited, _ := version("edited.md")
	deep, _ := version("f/deep/in folder.md")
	first := runGit(t, dir, "rev-list", "--max-parents=0", "HEAD")
	conflict(Change{Path: "edited.md", Content: []byte("three"), CheckVersion: true, ExpectVersion: first}, edited)
	c1 := commit(t, s, "edit during", Change{Path: "edited.md", Content: []byte("three"), CheckVersion: true, ExpectVersion: edited})
	if v, _ := version("edited.md"); v != c1 {
		t.Errorf("edited.md's version after its commit during the build: %s, want %s", v, c1)
	}
	conflict(Change{Path: "edited.md", Content: []byte("four"), CheckVersion: true, ExpectVersion: edited}, c1)

	old, _ := version("old.md")
	last, _ := version("last.md")
	c2 := commit(t, s, "create and delete",
		Change{Path: "new.md", Content: []byte("new"), CheckVersion: true},
		Change{Path: "old.md", Delete: true, CheckVersion: true, ExpectVersion: old})
	if v, ok := version("new.md"); !ok || v != c2 {
		t.Errorf("new.md after its creation: %q %v, want %s", v, ok, c2)
	}
	if v, ok := version("old.md"); ok {
		t.Errorf("old.md after its deletion still has a version: %s", v)
	}
	conflict(Change{Path: "last.md", Content: []byte("again"), CheckVersion: true}, last)
	conflict(Change{Path: "old.md", Content: []byte("back"), CheckVersion: true, ExpectVersion: old}, "")
	if v, _ := version("f/deep/in folder.md"); v != deep {
		t.Errorf("an untouched note's version moved: %s, was %s", v, deep)
	}
	if n := waits.Load(); n != 0 {
		t.Fatalf("%d calls waited for the map's build", n)
	}
	select {
	case <-s.build.done:
		t.Fatal("the build ended while held")
	default:
	}
	if got := runGit(t, dir, "log", "--format=%H", "-3"); got != c2+"\n"+c1+"\n"+start {
		t.Errorf("the branch after the writes:\n%s\nwant %s, %s on %s", got, c2, c1, start)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "new.md")); string(data) != "new" {
		t.Errorf("new.md in the work tree: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.md")); !os.IsNotExist(err) {
		t.Errorf("old.md in the work tree after its deletion: %v", err)
	}

	// A commit by hand: HEAD is no longer the build's tip.
	os.WriteFile(filepath.Join(dir, "last.md"), []byte("by hand"), 0o644)
	runGit(t, dir, "commit", "-q", "-am", "by hand")
	hand := runGit(t, dir, "rev-parse", "HEAD")
	conflict(Change{Path: "last.md", Content: []byte("agent"), CheckVersion: true, ExpectVersion: last}, hand)
	if waits.Load() == 0 {
		t.Error("a write after a commit by hand did not wait for the map")
	}
	commit(t, s, "after the hand", Change{Path: "last.md", Content: []byte("agent"), CheckVersion: true, ExpectVersion: hand})

	// The map, built and brought to HEAD, is the one built from nothing.
	s.mu.Lock()
	err := s.refreshLocked()
	got, head := s.versions.paths, s.versions.head
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	want, err := buildVersions(dir, head, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.paths) {
		t.Errorf("the map holds %d paths, a fresh one %d", len(got), len(want.paths))
	}
	for p, v := range want.paths {
		if got[p] != v {
			t.Errorf("%s: the map says %s, a fresh one %s", p, got[p], v)
		}
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after the writes:\n%s", st)
	}
}

// A commit of more paths than maxChangesDuringBuild waits for the map
// rather than ask git for each.
func TestABigCommitWaitsForTheMap(t *testing.T) {
	s, waits := openCountingWaits(t, onDemandHistory(t))
	var changes []Change
	for i := 0; i <= maxChangesDuringBuild; i++ {
		changes = append(changes, Change{Path: fmt.Sprintf("big/%02d.md", i), Content: []byte("x"), CheckVersion: true})
	}
	commit(t, s, "big", changes...)
	if waits.Load() != 1 {
		t.Errorf("a commit of %d paths during the build waited %d times for the map, want once", len(changes), waits.Load())
	}
}
