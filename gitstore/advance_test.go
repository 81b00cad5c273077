package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// aheadInAClone makes a clone of dir, changes it there with the git
// command line in two commits (an edit, a new file in a new folder, a
// deletion), and fetches the result back into dir: what a sync fetches.
// It returns the fetched commit.
func aheadInAClone(t *testing.T, dir string) string {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	runGit(t, filepath.Dir(clone), "clone", "-q", dir, clone)
	os.WriteFile(filepath.Join(clone, "a.md"), []byte("# A\n\nEdited in the clone.\n"), 0o644)
	runGit(t, clone, "commit", "-qam", "edit a")
	os.MkdirAll(filepath.Join(clone, "new"), 0o755)
	os.WriteFile(filepath.Join(clone, "new", "d.md"), []byte("# D\n"), 0o644)
	runGit(t, clone, "rm", "-q", "c.md")
	runGit(t, clone, "add", "new/d.md")
	runGit(t, clone, "commit", "-qm", "add d, remove c")
	runGit(t, dir, "fetch", "-q", clone, "main")
	return runGit(t, dir, "rev-parse", "FETCH_HEAD")
}

func baseStore(t *testing.T) (*Store, string) {
	s, dir := newStore(t)
	commit(t, s, "base",
		Change{Path: "a.md", Content: []byte("# A\n")},
		Change{Path: "b.md", Content: []byte("# B\n")},
		Change{Path: "c.md", Content: []byte("# C\n")},
		Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	return s, dir
}

func TestAdvanceFastForwardsFileByFile(t *testing.T) {
	s, dir := baseStore(t)
	target := aheadInAClone(t, dir)
	paths, err := s.Advance(target)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"a.md", "c.md", "new/d.md"}) {
		t.Fatalf("changed paths %v", paths)
	}
	if got := runGit(t, dir, "rev-parse", "HEAD"); got != target {
		t.Fatalf("HEAD %s, want %s", got, target)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after the advance:\n%s", st)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(b) != "# A\n\nEdited in the clone.\n" {
		t.Fatalf("a.md: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.md")); !os.IsNotExist(err) {
		t.Fatal("c.md is still on disk")
	}
	runGit(t, dir, "fsck", "--strict")
	// Each path's version is the last commit that touched it, as git says.
	for _, p := range []string{"a.md", "b.md", "new/d.md"} {
		v, ok, err := s.Version(p)
		if want := runGit(t, dir, "log", "-1", "--format=%H", "--", p); err != nil || !ok || v != want {
			t.Fatalf("version of %s: %s %v %v, want %s", p, v, ok, err, want)
		}
	}
	if _, ok, _ := s.Version("c.md"); ok {
		t.Fatal("c.md still has a version")
	}
	// Again: nothing to do.
	if paths, err := s.Advance(target); err != nil || len(paths) != 0 {
		t.Fatalf("advance to HEAD: %v %v", paths, err)
	}
}

func TestAdvanceRefusesWhatWouldLoseSomething(t *testing.T) {
	s, dir := baseStore(t)
	target := aheadInAClone(t, dir)
	head := runGit(t, dir, "rev-parse", "HEAD")
	// A person's unsaved-to-git edit of a file the advance changes.
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nBeing edited.\n"), 0o644)
	var de *DirtyError
	if _, err := s.Advance(target); !errors.As(err, &de) || de.Path != "a.md" {
		t.Fatalf("advance over an edit: %v", err)
	}
	if got := runGit(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatal("HEAD moved")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.md")); !strings.Contains(string(b), "Being edited") {
		t.Fatal("the edit was overwritten")
	}
	if _, err := os.Stat(filepath.Join(dir, "new", "d.md")); !os.IsNotExist(err) {
		t.Fatal("a refused advance wrote a file")
	}
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o644)
	// A commit of ours the target does not contain: moving would drop it.
	commit(t, s, "ours", Change{Path: "b.md", Content: []byte("# B\n\nOurs.\n")})
	if _, err := s.Advance(target); !errors.Is(err, ErrNotDescendant) {
		t.Fatalf("advance past our own commit: %v", err)
	}
	if _, err := s.Advance("not-a-hash"); err == nil || !strings.Contains(err.Error(), "not a commit hash") {
		t.Fatalf("advance to a bad hash: %v", err)
	}
}

// An advance killed at any step is finished or dropped by the next
// process, as a commit is: never half the files.
func TestAnAdvanceCutShortIsFinishedOrDropped(t *testing.T) {
	for _, tc := range []struct{ step, outcome string }{
		{"staged", RecoveredDropped}, {"placed", RecoveredFinished}, {"moved", RecoveredLanded},
	} {
		t.Run(tc.step, func(t *testing.T) {
			s, dir := baseStore(t)
			head := runGit(t, dir, "rev-parse", "HEAD")
			target := aheadInAClone(t, dir)
			s.Close()
			t.Setenv("CAIRN_TEST_ADVANCE_TO", target)
			crashAt(t, dir, tc.step)
			recoveredAs(t, dir, tc.outcome)
			want := target
			if tc.outcome == RecoveredDropped {
				want = head
			}
			if got := runGit(t, dir, "rev-parse", "HEAD"); got != want {
				t.Fatalf("HEAD %s, want %s", got, want)
			}
			if st := runGit(t, dir, "status", "--porcelain"); st != "" {
				t.Fatalf("git status after recovery:\n%s", st)
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Fatalf("left over: %v", l)
			}
			runGit(t, dir, "fsck", "--strict")
		})
	}
}

// A fetch of 100 objects or more keeps them in a pack, which go-git does
// not know of until it reads the list of packs again.
func TestAdvanceToCommitsThatCameInAPack(t *testing.T) {
	s, dir := baseStore(t)
	// The store has read the pack list once (reading a packed commit).
	runGit(t, dir, "repack", "-q", "-a", "-d")
	if _, err := s.CommitInfo(runGit(t, dir, "rev-parse", "HEAD")); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	runGit(t, filepath.Dir(clone), "clone", "-q", dir, clone)
	for i := range 150 {
		os.WriteFile(filepath.Join(clone, fmt.Sprintf("n%03d.md", i)), []byte(fmt.Sprintf("# N %d\n", i)), 0o644)
	}
	runGit(t, clone, "add", "-A")
	runGit(t, clone, "commit", "-qm", "many")
	runGit(t, dir, "fetch", "-q", clone, "main")
	if packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack")); len(packs) == 0 {
		t.Fatal("the fetch kept no pack: the test does not test what it says")
	}
	paths, err := s.Advance(runGit(t, dir, "rev-parse", "FETCH_HEAD"))
	if err != nil || len(paths) != 150 {
		t.Fatalf("advance: %d paths, %v", len(paths), err)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
}

// Changed trusts git's index only for files whose size and mtime it
// recorded: an edit of the same size is still seen.
func TestChangedSeesAnEditOfTheSameSize(t *testing.T) {
	s, dir := baseStore(t)
	if got, err := s.Changed([]string{"a.md", "b.md"}); err != nil || len(got) != 0 {
		t.Fatalf("clean vault: %v %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("# X\n"), 0o644) // same size as "# B\n"
	if got, err := s.Changed([]string{"a.md", "b.md"}); err != nil || !slices.Equal(got, []string{"b.md"}) {
		t.Fatalf("after an edit of the same size: %v %v", got, err)
	}
}

// A merge chosen by AdvanceWith is made on the HEAD it moves from: a
// commit asked for meanwhile waits, then lands on top of the merge (it
// never lands first and leaves the merge stale).
func TestAdvanceWithHoldsWritersOffWhileTheMergeIsMade(t *testing.T) {
	s, dir := baseStore(t)
	theirs := aheadInAClone(t, dir)
	commit(t, s, "ours", Change{Path: "b.md", Content: []byte("# B\n\nEdited here.\n")})
	landed := make(chan error, 1)
	to, paths, err := s.AdvanceWith(func(head string) (string, error) {
		if head != runGit(t, dir, "rev-parse", "HEAD") {
			t.Errorf("next was given %s, not HEAD", head)
		}
		go func() {
			_, err := s.Commit(CommitRequest{Author: Signature{Name: "w", Email: "w@x"}, Message: "meanwhile",
				Changes: []Change{{Path: "w.md", Content: []byte("# W\n")}}})
			landed <- err
		}()
		tree := runGit(t, dir, "merge-tree", "--write-tree", head, theirs)
		merged := runGit(t, dir, "commit-tree", tree, "-p", head, "-p", theirs, "-m", "merge")
		select {
		case err := <-landed:
			t.Fatalf("a commit landed while the merge was being made (%v)", err)
		case <-time.After(100 * time.Millisecond): // it waits: the lock is held
		}
		return merged, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"a.md", "c.md", "new/d.md"}) {
		t.Fatalf("changed paths %v", paths)
	}
	if err := <-landed; err != nil {
		t.Fatalf("the commit made meanwhile: %v", err)
	}
	if parent := runGit(t, dir, "rev-parse", "HEAD^"); parent != to {
		t.Fatalf("the commit made meanwhile is on %s, not on the merge %s", parent, to)
	}
	if st := runGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
	for p, want := range map[string]string{"a.md": "# A\n\nEdited in the clone.\n", "b.md": "# B\n\nEdited here.\n", "w.md": "# W\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != want {
			t.Fatalf("%s: %q", p, b)
		}
	}
}

// AdvanceWith staying where it is ("" or HEAD) changes nothing; an error
// from next is returned as it is, nothing changed.
func TestAdvanceWithStays(t *testing.T) {
	s, dir := baseStore(t)
	head := runGit(t, dir, "rev-parse", "HEAD")
	for _, choice := range []string{"", head} {
		to, paths, err := s.AdvanceWith(func(string) (string, error) { return choice, nil })
		if err != nil || to != "" || len(paths) != 0 {
			t.Fatalf("staying at %q: %q %v %v", choice, to, paths, err)
		}
	}
	boom := errors.New("boom")
	if _, _, err := s.AdvanceWith(func(string) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if _, _, err := s.AdvanceWith(func(string) (string, error) { return "not-a-hash", nil }); err == nil || !strings.Contains(err.Error(), "not a commit hash") {
		t.Fatalf("bad hash: %v", err)
	}
	if got := runGit(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
}

// Changed reads every tree of HEAD once (a start's scan for notes edited
// by hand). Out of a pack, go-git keeps what it decodes, and every older
// version a tree was stored as a delta of, in the object cache, where
// nothing reads them again (issue 34: 16 MiB on a fresh clone of 10,000
// notes). Changed leaves none of HEAD's trees there.
func TestChangedLeavesNoTreesInTheObjectCache(t *testing.T) {
	s, dir := baseStore(t)
	for i := range 5 {
		commit(t, s, fmt.Sprintf("edit %d", i), Change{Path: "notes/d.md", Content: []byte(fmt.Sprintf("# D\n\nVersion %d.\n", i))})
	}
	runGit(t, dir, "repack", "-a", "-d", "-f")
	runGit(t, dir, "prune-packed")
	s.reindexPacks()
	root := plumbing.NewHash(runGit(t, dir, "rev-parse", "HEAD^{tree}"))
	notes := plumbing.NewHash(runGit(t, dir, "rev-parse", "HEAD:notes"))
	if got, err := s.Changed([]string{"a.md", "notes/d.md"}); err != nil || len(got) != 0 {
		t.Fatalf("clean vault: %v %v", got, err)
	}
	for _, h := range []plumbing.Hash{root, notes} {
		if _, ok := s.objects.Get(h); ok {
			t.Errorf("tree %s is still in the object cache after Changed", h)
		}
	}
}
