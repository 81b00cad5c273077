package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// deferEveryIndex makes every commit of the test leave its index to the
// background writer, as in a vault of 15,000 notes or more.
func deferEveryIndex(t *testing.T) {
	old := deferIndexBytes
	deferIndexBytes = 0
	t.Cleanup(func() { deferIndexBytes = old })
}

// gateWriter holds the background writer until the returned func runs.
func gateWriter(t *testing.T) (open func()) {
	gate := make(chan struct{})
	old := writerGate
	writerGate = func() { <-gate }
	done := false
	open = func() {
		if !done {
			done = true
			close(gate)
		}
	}
	t.Cleanup(func() { open(); writerGate = old })
	return open
}

// indexMatchesHead fails unless git's index is exactly HEAD's tree and the
// work tree is clean, with no lock left.
func indexMatchesHead(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git/index.lock")); err == nil {
		t.Fatal("index.lock still there")
	}
	if d := runGit(t, dir, "diff", "--cached", "--name-status"); d != "" {
		t.Fatalf("the index differs from HEAD:\n%s", d)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status not clean:\n%s", st)
	}
}

// Commits that land while the index is pending are all in it once it is
// in place: creates, edits, deletions and a path changed twice.
func TestAPendingIndexTakesEveryCommitThatLandsMeanwhile(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")},
		Change{Path: "notes/a.md", Content: []byte("# A\n")}, Change{Path: "notes/c.md", Content: []byte("# C\n")})
	deferEveryIndex(t)
	open := gateWriter(t)
	commit(t, s, "one", Change{Path: "notes/b.md", Content: []byte("# B\n")})
	if _, err := os.Stat(filepath.Join(dir, ".git/index.lock")); err != nil {
		t.Fatal("no index.lock while the index is pending: a git process could commit from the old index")
	}
	commit(t, s, "two", Change{Path: "notes/a.md", Content: []byte("# A\n\nEdited.\n")}, Change{Path: "notes/c.md", Delete: true})
	commit(t, s, "three", Change{Path: "notes/b.md", Content: []byte("# B\n\nAgain.\n")}, Change{Path: "z/new.md", Content: []byte("z")})
	if d := runGit(t, dir, "diff", "--cached", "--name-only"); d == "" {
		t.Fatal("the index on disk already matches HEAD: the writer was not held, the test tests nothing")
	}
	open()
	s.SettleIndex()
	indexMatchesHead(t, dir)
	if data, _ := os.ReadFile(filepath.Join(dir, ".cairn/cache/write.lock")); len(data) != 0 {
		t.Fatalf("the write lock still holds an intent: %q", data)
	}
	// The store goes on from the index it wrote.
	commit(t, s, "four", Change{Path: "notes/d.md", Content: []byte("# D\n")})
	s.SettleIndex()
	indexMatchesHead(t, dir)
}

// Commits made as fast as they come, with the writer running beside them:
// whatever the interleaving, the index ends up matching HEAD.
func TestAPendingIndexKeepsUpWithAStreamOfCommits(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	deferEveryIndex(t)
	for i := 0; i < 60; i++ {
		c := Change{Path: fmt.Sprintf("n/%02d.md", i%20), Content: []byte(fmt.Sprint("# ", i, "\n"))}
		if i%7 == 6 {
			c = Change{Path: fmt.Sprintf("n/%02d.md", (i-3)%20), Delete: true}
		}
		if _, err := s.Commit(CommitRequest{Author: Signature{"a", "a@x"}, Message: "m", Changes: []Change{c}}); err != nil && err != ErrNothingToCommit {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil { // Close waits for the index
		t.Fatal(err)
	}
	indexMatchesHead(t, dir)
}

// A person's save that keeps the size and the time stamp of cairn's write
// (same clock tick) is still seen by git: the index put in place late
// bears the time of the oldest entry it carries, so git compares those
// entries by content rather than trust their stat data.
func TestALateIndexStillLetsGitSeeASaveInTheSameTick(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	deferEveryIndex(t)
	open := gateWriter(t)
	commit(t, s, "one", Change{Path: "notes/a.md", Content: []byte("aaaa\n")})
	full := filepath.Join(dir, "notes/a.md")
	fi, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	// The index is written a clock second later (git may compare whole
	// seconds only; file times come from a clock a few ms behind).
	for time.Now().Add(-50*time.Millisecond).Unix() <= fi.ModTime().Unix() {
		time.Sleep(10 * time.Millisecond)
	}
	open()
	s.SettleIndex()
	f, err := os.OpenFile(full, os.O_WRONLY, 0) // in place: same inode
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("bbbb\n")
	f.Close()
	if err := os.Chtimes(full, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	// ctime cannot be set back; with core.trustctime off, git judges by
	// mtime, size and inode alone, as it does for every file on some
	// systems.
	if st := runGit(t, dir, "-c", "core.trustctime=false", "status", "--porcelain"); st != "M notes/a.md" {
		t.Fatalf("git status = %q, want the person's save seen", st)
	}
}

// A writer that dies with its index pending, two commits behind, is
// recovered by the next process: the index is caught up to the commits
// that landed, and the dying commit is then finished, dropped or taken as
// landed as usual.
func TestACrashWithTheIndexPendingIsCaughtUp(t *testing.T) {
	cases := []struct{ step, outcome string }{
		{"staged", RecoveredDropped},
		{"placed", RecoveredFinished},
		{"pending", RecoveredLanded},
	}
	for _, tc := range cases {
		t.Run(tc.step, func(t *testing.T) {
			s, dir := newStore(t)
			commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")},
				Change{Path: "notes/a.md", Content: []byte("# A\n")}, Change{Path: "notes/c.md", Content: []byte("# C\n")})
			s.Close()
			crashAt(t, dir, tc.step, "CAIRN_TEST_PILE=1")
			if d := runGit(t, dir, "diff", "--cached", "--name-only"); d == "" {
				t.Fatal("the crash left the index matching HEAD: nothing was pending")
			}
			recoveredAs(t, dir, tc.outcome)
			if left := leftovers(t, dir); len(left) > 0 {
				t.Fatalf("left behind after recovery: %v", left)
			}
			indexMatchesHead(t, dir)
			runGit(t, dir, "fsck", "--strict", "--no-dangling")
			log := runGit(t, dir, "log", "--format=%s")
			if !strings.Contains(log, "pile 0\nbase") || !strings.Contains(log, "pile 1") {
				t.Fatalf("the piled commits are not in history:\n%s", log)
			}
			if got := runGit(t, dir, "show", "HEAD:notes/p1.md"); got != "# P1" {
				t.Fatalf("p1.md at HEAD: %q", got)
			}
		})
	}
}

// Without a write lock file (nothing to recover a crash from) the index
// is always written before Commit returns.
func TestNoLockFileMeansTheIndexIsWrittenAtOnce(t *testing.T) {
	dir := t.TempDir()
	s, err := Init(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deferEveryIndex(t)
	gateWriter(t)
	commit(t, s, "one", Change{Path: "a.md", Content: []byte("a")})
	cmd := exec.Command("git", "diff", "--cached", "--name-only")
	cmd.Dir = dir
	if out, err := cmd.Output(); err != nil || len(out) != 0 {
		t.Fatalf("index behind HEAD: %q %v", out, err)
	}
}

// An advance (what a sync does) that leaves its index pending keeps the
// write lock and its intent until the index is in place, as a commit
// does.
func TestAnAdvanceKeepsItsLocksWhileItsIndexIsPending(t *testing.T) {
	s, dir := baseStore(t)
	to := aheadInAClone(t, dir)
	deferEveryIndex(t)
	commit(t, s, "mine", Change{Path: "b.md", Content: []byte("# B\n\nMine.\n")})
	s.SettleIndex()
	open := gateWriter(t)
	// Make the clone's commits descend from ours: fetch them onto a
	// merge made by the git command line with its own index.
	merged := runGit(t, dir, "commit-tree", runGit(t, dir, "rev-parse", to+"^{tree}"), "-p", runGit(t, dir, "rev-parse", "HEAD"), "-p", to, "-m", "merge")
	if _, err := s.Advance(merged); err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(dir, ".cairn/cache/write.lock")
	if _, found, alive := ReadIntent(lockFile); !found || !alive {
		t.Fatalf("while the advance's index is pending: intent found %v, held %v", found, alive)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/index.lock")); err != nil {
		t.Fatal("no index.lock while the advance's index is pending")
	}
	open()
	s.SettleIndex()
	if _, found, _ := ReadIntent(lockFile); found {
		t.Fatal("the intent outlived the index write")
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status not clean:\n%s", st)
	}
}

// The background writer splices into the buffers of the index before last,
// as a commit's own splice does, rather than allocating a whole index per
// write (13 MB at 100,000 notes).
func TestTheIndexWriterReusesTheIndexBeforeLast(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")},
		Change{Path: "notes/a.md", Content: []byte("# A\n")}, Change{Path: "notes/b.md", Content: []byte("# B\n")})
	deferEveryIndex(t)
	edit := func(i int) {
		commit(t, s, fmt.Sprintf("edit %d", i), Change{Path: "notes/a.md", Content: []byte(fmt.Sprintf("# A\n\nEdit %d.\n", i))})
		s.SettleIndex()
	}
	edit(1)
	edit(2)
	s.mu.Lock()
	spare := s.idxSpare
	s.mu.Unlock()
	if spare == nil || len(spare.data) == 0 {
		t.Fatal("no index before last kept after two index writes")
	}
	edit(3)
	s.mu.Lock()
	cur := s.idxCache
	s.mu.Unlock()
	if cur == nil {
		t.Fatal("the index written is not kept")
	}
	if &cur.pi.data[:1][0] != &spare.data[:1][0] {
		t.Fatal("the writer spliced into new buffers, not the index before last's")
	}
	indexMatchesHead(t, dir)
}
