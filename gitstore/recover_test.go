package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets this test binary play a writer that dies in the middle of
// a commit: with CAIRN_TEST_CRASH_AT set, the commit below exits the
// process at that step, skipping every deferred cleanup as a SIGKILL would.
func TestMain(m *testing.M) {
	if step := os.Getenv("CAIRN_TEST_CRASH_AT"); step != "" {
		crashingWriter(os.Getenv("CAIRN_TEST_DIR"), step)
		os.Exit(1) // the step was never reached
	}
	os.Exit(m.Run())
}

// The interrupted commit: a.md edited, b.md created, c.md deleted.
var (
	crashA = "# A\n\nEdited by the agent.\n"
	crashB = "# B\n\nNew.\n"
)

func crashingWriter(dir, step string) {
	s, err := Open(dir, storeOptions(dir))
	if err != nil {
		os.Exit(2)
	}
	if os.Getenv("CAIRN_TEST_PILE") != "" {
		pileUp(s)
	}
	crashPoint = func(s string) {
		if s == step {
			os.Exit(3)
		}
	}
	if to := os.Getenv("CAIRN_TEST_ADVANCE_TO"); to != "" {
		s.Advance(to)
		return
	}
	s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: "agent write",
		Trailers: []Trailer{{"Cairn-Tool", "edit_note"}},
		Changes: []Change{
			{Path: "notes/a.md", Content: []byte(crashA)},
			{Path: "notes/b.md", Content: []byte(crashB)},
			{Path: "notes/c.md", Delete: true},
		}})
}

// pileUp makes every index write pending, blocks the writer, and lands
// two commits behind it, as a burst of writes in a big vault does.
func pileUp(s *Store) {
	deferIndexBytes = 0
	writerGate = func() { select {} }
	for i, c := range pileCommits {
		if _, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: fmt.Sprint("pile ", i), Changes: []Change{c}}); err != nil {
			os.Exit(4)
		}
	}
}

// pileCommits are pileUp's commits: a note created, one edited.
var pileCommits = []Change{
	{Path: "notes/p1.md", Content: []byte("# P1\n")},
	{Path: "notes/c.md", Content: []byte("# C\n\nEdited in a pile.\n")},
}

func storeOptions(dir string) Options {
	return Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")}
}

// crashAt runs a writer process that dies at step of a commit.
func crashAt(t *testing.T, dir, step string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "CAIRN_TEST_CRASH_AT="+step, "CAIRN_TEST_DIR="+dir), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("the writer did not die at %q: %v\n%s", step, err, out)
	}
}

// recoveredAs opens dir again after a crash, recovers, and fails unless
// the recovery's outcome is outcome.
func recoveredAs(t *testing.T, dir, outcome string) *Store {
	t.Helper()
	s, err := Open(dir, storeOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	rep, err := s.Recover()
	if err != nil || rep == nil || rep.Outcome != outcome {
		t.Fatalf("recovery: %+v %v, want %s", rep, err, outcome)
	}
	return s
}

// leftovers lists cairn's temporary and lock files anywhere in the vault.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n := d.Name()
			if strings.Contains(n, ".cairn-tmp-") || strings.HasPrefix(n, "tmp_obj_") || strings.HasSuffix(n, ".lock") && n != "write.lock" || strings.HasPrefix(n, "cairn-") && strings.HasSuffix(n, ".tmp") {
				out = append(out, p)
			}
		}
		return nil
	})
	return out
}

// crashedStore makes a store with a base commit (a.md, c.md), runs a
// writer that dies at step, and opens the store again.
func crashedStore(t *testing.T, step string, between func(dir string)) (*Store, string, string) {
	t.Helper()
	s, dir := newStore(t)
	base := commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")},
		Change{Path: "notes/a.md", Content: []byte("# A\n")}, Change{Path: "notes/c.md", Content: []byte("# C\n")})
	s.Close()
	crashAt(t, dir, step)
	if between != nil {
		between(dir)
	}
	s2, err := Open(dir, storeOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2, dir, base
}

func TestACommitInterruptedAtAnyStepIsRecoveredByTheNextWriter(t *testing.T) {
	cases := []struct {
		step    string
		outcome string
		landed  bool // the agent's write is in HEAD afterwards
	}{
		{"staged", RecoveredDropped, false},
		{"locked", RecoveredDropped, false},
		// The objects are renamed first, then the notes in order: a.md
		// reached the disk, b.md not yet.
		{"renamed a.md", RecoveredFinished, true},
		{"placed", RecoveredFinished, true},
		{"moved", RecoveredLanded, true},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.step, " ", "_"), func(t *testing.T) {
			s2, dir, base := crashedStore(t, tc.step, func(dir string) {
				if tc.step != "staged" && len(leftovers(t, dir)) == 0 {
					t.Fatal("the crash left nothing behind: the test does not test recovery")
				}
			})
			rep, err := s2.Recover()
			if err != nil {
				t.Fatal(err)
			}
			if rep == nil || rep.Outcome != tc.outcome {
				t.Fatalf("recovery: %+v, want outcome %s", rep, tc.outcome)
			}
			if left := leftovers(t, dir); len(left) > 0 {
				t.Fatalf("left behind after recovery: %v", left)
			}
			if st := runGit(t, dir, "status", "--porcelain"); st != "" {
				t.Fatalf("status not clean after recovery:\n%s", st)
			}
			runGit(t, dir, "fsck", "--strict", "--no-dangling")
			a, _ := os.ReadFile(filepath.Join(dir, "notes/a.md"))
			_, cErr := os.Stat(filepath.Join(dir, "notes/c.md"))
			if tc.landed {
				if got := runGit(t, dir, "log", "-1", "--format=%an|%s|%(trailers:key=Cairn-Tool,valueonly)"); got != "agent|agent write|edit_note" {
					t.Fatalf("HEAD is not the agent's write: %q", got)
				}
				if string(a) != crashA || runGit(t, dir, "show", "HEAD:notes/b.md") != strings.TrimSpace(crashB) || !os.IsNotExist(cErr) {
					t.Fatalf("the write is not whole on disk: a=%q c=%v", a, cErr)
				}
				if v, _, _ := s2.Version("notes/b.md"); v != runGit(t, dir, "rev-parse", "HEAD") {
					t.Fatalf("version of b.md = %s", v)
				}
			} else {
				if head := runGit(t, dir, "rev-parse", "HEAD"); head != base {
					t.Fatalf("HEAD moved to %s", head)
				}
				if string(a) != "# A\n" || cErr != nil {
					t.Fatalf("the work tree changed: a=%q c=%v", a, cErr)
				}
			}
			// Writes work without a hand.
			commit(t, s2, "after", Change{Path: "notes/d.md", Content: []byte("# D\n")})
			if st := runGit(t, dir, "status", "--porcelain"); st != "" {
				t.Fatalf("status not clean:\n%s", st)
			}
		})
	}
}

// A lock held by a git process (its content is git's) is never removed,
// even with a dead commit's intent in the write lock.
func TestRecoveryLeavesAGitProcesssLockAlone(t *testing.T) {
	// The person removes cairn's stale lock by hand and a git command takes
	// it meanwhile.
	s2, dir, _ := crashedStore(t, "locked", func(dir string) {
		lock := filepath.Join(dir, ".git/index.lock")
		os.Remove(lock)
		os.WriteFile(lock, []byte("DIRC...git's own"), 0o644)
	})
	lock := filepath.Join(dir, ".git/index.lock")
	if _, err := s2.Recover(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(lock); err != nil || string(data) != "DIRC...git's own" {
		t.Fatalf("git's lock was touched: %q %v", data, err)
	}
	if _, err := s2.Commit(CommitRequest{Author: Signature{"a", "a@x"}, Message: "m", Changes: []Change{{Path: "notes/d.md", Content: []byte("d")}}}); err == nil || !strings.Contains(err.Error(), "index.lock") {
		t.Fatalf("a commit with git's lock held: %v", err)
	}
	os.Remove(lock)
	commit(t, s2, "after", Change{Path: "notes/d.md", Content: []byte("# D\n")})
}

// A person who edits a note between the crash and the restart keeps their
// version: the finished commit records the agent's, the disk keeps theirs.
func TestRecoveryKeepsWhatAPersonChangedSinceTheCrash(t *testing.T) {
	s2, dir, _ := crashedStore(t, "renamed a.md", func(dir string) {
		os.WriteFile(filepath.Join(dir, "notes/c.md"), []byte("# C\n\nThe person's words.\n"), 0o644)
	})
	rep, err := s2.Recover()
	if err != nil || rep.Outcome != RecoveredFinished || len(rep.KeptOnDisk) != 1 || rep.KeptOnDisk[0] != "notes/c.md" {
		t.Fatalf("recovery: %+v %v", rep, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "notes/c.md")); string(got) != "# C\n\nThe person's words.\n" {
		t.Fatalf("the person's edit was lost: %q", got)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "?? notes/c.md" {
		t.Fatalf("status: %q (the person's file should show as theirs, uncommitted)", st)
	}
}
