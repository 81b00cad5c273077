package gitstore

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// onDemandHistory makes a history with what a version can hide behind:
// a note edited after its first commit, one in a folder, one edited on a
// side branch merged without fast-forward (its version is the merge), one
// deleted, a commit that touches none of them last.
func onDemandHistory(t *testing.T) string {
	dir := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		runGit(t, dir, "add", p)
	}
	runGit(t, dir, "init", "-q", "-b", "main")
	write(".gitignore", ".cairn/\n")
	write("old.md", "old")
	write("edited.md", "one")
	write("f/deep/in folder.md", "deep")
	write("gone.md", "gone")
	runGit(t, dir, "commit", "-q", "-m", "first")
	write("edited.md", "two")
	runGit(t, dir, "commit", "-q", "-m", "edit")
	runGit(t, dir, "checkout", "-q", "-b", "side")
	write("side.md", "side")
	runGit(t, dir, "commit", "-q", "-m", "side")
	write("f/deep/in folder.md", "deeper")
	runGit(t, dir, "commit", "-q", "-m", "side edit")
	runGit(t, dir, "checkout", "-q", "main")
	write("main.md", "main")
	runGit(t, dir, "commit", "-q", "-m", "main")
	runGit(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	runGit(t, dir, "rm", "-q", "gone.md")
	runGit(t, dir, "commit", "-q", "-m", "remove")
	write("last.md", "last")
	runGit(t, dir, "commit", "-q", "-m", "last")
	return dir
}

// openBuilding opens dir's store with the version map's build held at its
// start until release is called (at the latest when the test ends,
// before the store is closed).
func openBuilding(t *testing.T, dir string) (s *Store, release func()) {
	t.Helper()
	gate, started := make(chan struct{}), make(chan struct{})
	buildGate = func() { close(started); <-gate }
	s, err := Open(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		buildGate = nil
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() { close(gate) })
	t.Cleanup(func() {
		release()
		s.Close()
		buildGate = nil
	})
	<-started
	return s, release
}

// While the version map is still being built in the background, a read
// gets a path's version from git alone (issue 34: every read during a
// 100,000-note build within 1 s; the whole map takes 12 s to minutes),
// the same version the map gives once built, for every kind of path.
func TestAReadGetsItsVersionWhileTheMapIsBuilt(t *testing.T) {
	dir := onDemandHistory(t)
	paths := []string{"old.md", "edited.md", "f/deep/in folder.md", "side.md", "main.md", "last.md", ".gitignore", "gone.md", "never.md", "f", "f/deep"}

	s, release := openBuilding(t, dir)

	type version struct {
		v  string
		ok bool
	}
	during := map[string]version{}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		for _, p := range paths {
			v, ok, err := s.Version(p)
			if err != nil {
				t.Errorf("Version(%q) during the build: %v", p, err)
			}
			during[p] = version{v, ok}
		}
		data, _ := os.ReadFile(filepath.Join(dir, "edited.md"))
		if v, whole, err := s.CommittedAs("edited.md", data); err != nil || !whole || v != during["edited.md"].v {
			t.Errorf("CommittedAs(edited.md) during the build: %q %v %v, want %q", v, whole, err, during["edited.md"].v)
		}
		if _, whole, err := s.CommittedAs("edited.md", []byte("one")); err != nil || whole {
			t.Errorf("CommittedAs(edited.md, an older text) during the build: %v %v", whole, err)
		}
	}()
	select {
	case <-answered:
	case <-time.After(time.Minute): // bounds a failure only
		t.Fatal("a read waited for the version map's build")
	}
	if t.Failed() {
		return
	}
	select {
	case <-s.build.done:
		t.Fatal("the build ended while held")
	default:
	}
	release()
	for _, p := range paths {
		v, ok, err := s.Version(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := during[p]; got != (version{v, ok}) {
			t.Errorf("%s: during the build %q %v, from the map %q %v", p, got.v, got.ok, v, ok)
		}
	}
	want := map[string]string{"edited.md": "edit", "f/deep/in folder.md": "merge side", "side.md": "merge side", "old.md": "first", "last.md": "last"}
	for p, subject := range want {
		if got := runGit(t, dir, "log", "-1", "--format=%s", during[p].v); got != subject {
			t.Errorf("%s's version is the commit %q, want %q", p, got, subject)
		}
	}
	for _, p := range []string{"gone.md", "never.md", "f", "f/deep"} {
		if during[p].ok {
			t.Errorf("%s has a version: %q", p, during[p].v)
		}
	}
}
