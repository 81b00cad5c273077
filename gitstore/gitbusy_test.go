package gitstore

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func busyCommit(s *Store) error {
	_, err := s.Commit(CommitRequest{Author: Signature{"a", "a@b"}, Message: "x", Changes: []Change{{Path: "a.md", Content: []byte("new " + time.Now().String() + "\n")}}})
	return err
}

// TestNoCommitWhileGitIsBusy: with each state git leaves while an
// operation is in progress, HEAD detached, or another branch checked out,
// a commit is refused with a GitBusyError naming it, and nothing changes;
// once the state is gone the next commit lands on the vault's branch.
func TestNoCommitWhileGitIsBusy(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "a.md", Content: []byte("a\n")})
	head := runGit(t, dir, "rev-parse", "HEAD")
	gitDir := filepath.Join(dir, ".git")
	for _, c := range []struct {
		state, file string
		dir         bool
	}{
		{"rebase", "rebase-merge", true},
		{"rebase", "rebase-apply", true},
		{"am", "rebase-apply/applying", false},
		{"merge", "MERGE_HEAD", false},
		{"cherry-pick", "CHERRY_PICK_HEAD", false},
		{"revert", "REVERT_HEAD", false},
		{"cherry-pick", "sequencer/todo", false},
		{"bisect", "BISECT_LOG", false},
	} {
		p := filepath.Join(gitDir, filepath.FromSlash(c.file))
		if c.dir {
			os.MkdirAll(p, 0o755)
		} else {
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(head+"\n"), 0o644)
		}
		err := busyCommit(s)
		var gb *GitBusyError
		if !errors.As(err, &gb) || gb.State != c.state {
			t.Fatalf("%s: %v, want a GitBusyError for %s", c.file, err, c.state)
		}
		unchangedStore(t, dir, head)
		os.RemoveAll(p)
		os.Remove(filepath.Join(gitDir, "rebase-apply"))
		os.Remove(filepath.Join(gitDir, "sequencer"))
	}
	runGit(t, dir, "checkout", "-q", "--detach")
	if err := busyCommit(s); !errors.As(err, new(*GitBusyError)) {
		t.Fatalf("detached: %v", err)
	}
	unchangedStore(t, dir, head)
	runGit(t, dir, "checkout", "-q", "-b", "other")
	err := busyCommit(s)
	var gb *GitBusyError
	if !errors.As(err, &gb) || gb.State != "branch" {
		t.Fatalf("other branch: %v", err)
	}
	runGit(t, dir, "checkout", "-q", "main")
	if err := busyCommit(s); err != nil {
		t.Fatal(err)
	}
	if runGit(t, dir, "rev-parse", "other") != head {
		t.Fatal("other moved")
	}
}

func unchangedStore(t *testing.T, dir, head string) {
	t.Helper()
	if got := runGit(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(data) != "a\n" {
		t.Fatalf("a.md changed: %q", data)
	}
}

// TestNoCommitWhileAPullFetches: git pull reads HEAD, fetches, and reads
// it again; no file says it runs, only its process. A commit while one
// fetches (kept at it for seconds by a slow upload-pack) is refused, and
// the pull then succeeds.
func TestNoCommitWhileAPullFetches(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc: running git commands cannot be seen here")
	}
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "a.md", Content: []byte("a\n")})
	remote := filepath.Join(t.TempDir(), "remote.git")
	runGit(t, dir, "clone", "-q", "--bare", dir, remote)
	head := runGit(t, dir, "rev-parse", "HEAD")
	pull := exec.Command("git", "pull", "-q", "--upload-pack", "sleep 3; git-upload-pack", remote, "main")
	pull.Dir = dir
	if err := pull.Start(); err != nil {
		t.Fatal(err)
	}
	var err error
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if (&procLooks{}).runningGit(resolved(dir)) != "" {
			err = busyCommit(s)
			break
		}
	}
	var gb *GitBusyError
	if !errors.As(err, &gb) || gb.State != "pull" {
		t.Fatalf("a commit while git pull fetches: %v", err)
	}
	unchangedStore(t, dir, head)
	if err := pull.Wait(); err != nil {
		t.Fatalf("the pull failed: %v", err)
	}
	if err := busyCommit(s); err != nil {
		t.Fatal(err)
	}
}

// shellThatBecomesGitPull starts, in a new vault, a shell that waits
// until release is called, then runs git pull in place of itself (its
// fetch held 2 s). dir is the vault as /proc names it.
func shellThatBecomesGitPull(t *testing.T) (dir string, pid int, release func()) {
	t.Helper()
	s, d := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")}, Change{Path: "a.md", Content: []byte("a\n")})
	remote := filepath.Join(t.TempDir(), "remote.git")
	runGit(t, d, "clone", "-q", "--bare", d, remote)
	ready := filepath.Join(t.TempDir(), "ready")
	sh := exec.Command("sh", "-c", `while [ ! -e "$1" ]; do sleep 0.01; done; exec git pull -q --upload-pack "sleep 2; git-upload-pack" "$2" main`, "sh", ready, remote)
	sh.Dir = d
	// In a process group of its own: git pull runs git fetch and the
	// upload-pack command, which outlived a kill of the shell alone and
	// wrote into .git while the test's folder was being removed.
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) // a failure leaves it waiting
		sh.Wait()
		// Until no process of the group is left (the kill is delivered
		// to each in its own time); bounded, for a process that hangs.
		for deadline := time.Now().Add(time.Minute); syscall.Kill(-sh.Process.Pid, 0) == nil && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	})
	release = func() {
		t.Helper()
		if err := os.WriteFile(ready, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var buf [64]byte
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) { // bounds a failure only
			if comm, _ := procComm("/proc/"+strconv.Itoa(sh.Process.Pid), buf[:]); comm != "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the shell never ran git")
			}
		}
	}
	return resolved(d), sh.Process.Pid, release
}

// A process first seen before it runs git (a shell's fork, its /proc
// entry still naming the shell) is looked at again by the commit's last
// look, right before its branch moves: a loaded machine let a person's
// git pull start unseen that way, and cairn's commit then broke it.
func TestAForkSeenBeforeItRunsGitIsLookedAtAgain(t *testing.T) {
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		t.Skip("no /proc: running git commands cannot be seen here")
	}
	dir, _, release := shellThatBecomesGitPull(t)
	var looks procLooks
	if got := looks.runningGit(dir); got != "" {
		t.Fatalf("before the pull: %q", got)
	}
	release()
	if got := looks.runningGit(dir); got != "git pull" {
		t.Fatalf("the last look, once the shell runs git pull: %q", got)
	}
}

// A process listed for longer than youngFor is not read at every look,
// but at most rereadAfter after its last reading: one that runs git in
// place of itself (a script's exec git pull) is seen then.
func TestAnOldProcessIsReadAgainInTime(t *testing.T) {
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		t.Skip("no /proc: running git commands cannot be seen here")
	}
	young, reread := youngFor, rereadAfter
	youngFor, rereadAfter = 0, 50*time.Millisecond // every process old at once
	defer func() { youngFor, rereadAfter = young, reread }()
	dir, pid, release := shellThatBecomesGitPull(t)
	var looks procLooks
	if got := looks.runningGit(dir); got != "" {
		t.Fatalf("before the pull: %q", got)
	}
	if _, known := looks.known[strconv.Itoa(pid)]; !known {
		t.Fatal("the shell was not remembered as a process that is not git")
	}
	release()
	time.Sleep(rereadAfter) // its reading is older than rereadAfter now
	if got := looks.runningGit(dir); got != "git pull" {
		t.Fatalf("a look after rereadAfter, once the shell runs git pull: %q", got)
	}
}

func TestGitCommandIn(t *testing.T) {
	for _, c := range []struct {
		args     []string
		cwd, sub string
		in       bool
	}{
		{[]string{"git", "pull", "--rebase"}, "/v", "pull", true},
		{[]string{"git", "pull"}, "/v/notes", "pull", true},
		{[]string{"git", "pull"}, "/vault2", "pull", false},
		{[]string{"git", "-C", "/v", "rebase", "main"}, "/elsewhere", "rebase", true},
		{[]string{"git", "-C", "v", "merge", "x"}, "/", "merge", true},
		{[]string{"git", "-c", "user.name=x", "--no-pager", "checkout", "main"}, "/v", "checkout", true},
		{[]string{"/usr/bin/git", "switch", "main"}, "/v", "switch", true},
		{[]string{"git", "-C", "/other", "pull"}, "/v", "pull", false},
		{[]string{"gitk"}, "/v", "", false},
		{[]string{"git"}, "/v", "", false},
	} {
		sub, in := gitCommandIn(c.args, c.cwd, "/v")
		if sub != c.sub || in != c.in {
			t.Errorf("gitCommandIn(%q, %q) = %q %v, want %q %v", c.args, c.cwd, sub, in, c.sub, c.in)
		}
	}
}

// BenchmarkCommitsLookingForGit is a commit's two looks for a person's
// git command (docs/watcher.md): cold, a store's first commit or one
// after a second without any, reads every process; burst, a commit right
// after another, reads only the processes started since. The cost grows
// with the processes running (procs).
func BenchmarkCommitsLookingForGit(b *testing.B) {
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		b.Skip("no /proc: running git commands cannot be seen here")
	}
	dir := resolved(b.TempDir())
	entries, _ := os.ReadDir("/proc")
	procs := 0
	for _, e := range entries {
		if n := e.Name(); n[0] >= '0' && n[0] <= '9' {
			procs++
		}
	}
	look := func(b *testing.B, l *procLooks) {
		for range 2 {
			if got := l.runningGit(dir); got != "" {
				b.Fatalf("a git command in a new folder: %q", got)
			}
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			look(b, &procLooks{})
		}
		b.ReportMetric(float64(procs), "procs")
	})
	b.Run("burst", func(b *testing.B) {
		var l procLooks
		look(b, &l)
		for p, seen := range l.known { // as if listed two seconds ago
			seen.first = seen.first.Add(-youngFor)
			l.known[p] = seen
		}
		for b.Loop() {
			look(b, &l)
		}
		b.ReportMetric(float64(procs), "procs")
	})
}
