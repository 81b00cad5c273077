package gitstore

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Commits editing trees whose names sort around git's folder rule (a
// folder "x" compares as "x/", after "x.md" and "x-y.md", before "x0.md")
// make exactly the trees git would: every file listed with its blob and
// mode, and `git fsck --strict` (which checks each tree's order and
// modes) finds nothing wrong.
func TestEditedTreesAreTheOnesGitWouldMake(t *testing.T) {
	s, dir := newStore(t)
	paths := []string{
		"x.md", "x-y.md", "x0.md", "x/a.md", "x/a b.md", "x/y/z.md", "x/y.md",
		"x/y-z.md", "é.md", "e.md", "Z.md", "deep/er/still/n.md", "deep/n.md",
		"deep.md", "deep/er.md", "run.sh",
	}
	type file struct {
		content string
		exec    bool
	}
	model := map[string]file{".gitignore": {content: ".cairn/\n"}}
	commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	rng := rand.New(rand.NewSource(16))
	for i := range 80 {
		var changes []Change
		picked := map[string]bool{}
		for range 1 + rng.Intn(4) {
			p := paths[rng.Intn(len(paths))]
			if picked[p] {
				continue
			}
			picked[p] = true
			if _, ok := model[p]; ok && rng.Intn(3) == 0 {
				changes = append(changes, Change{Path: p, Delete: true})
				continue
			}
			f := file{content: fmt.Sprintf("%s, commit %d\n", p, i), exec: strings.HasSuffix(p, ".sh")}
			changes = append(changes, Change{Path: p, Content: []byte(f.content), Executable: f.exec})
		}
		if _, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: fmt.Sprintf("step %d", i), Changes: changes}); err != nil {
			if err == ErrNothingToCommit {
				continue
			}
			t.Fatalf("step %d: %v", i, err)
		}
		for _, c := range changes {
			if c.Delete {
				delete(model, c.Path)
			} else {
				model[c.Path] = file{content: string(c.Content), exec: c.Executable}
			}
		}
		var want []string
		for p, f := range model {
			mode := "100644"
			if f.exec {
				mode = "100755"
			}
			want = append(want, fmt.Sprintf("%s %s\t%s", mode, blobHash([]byte(f.content)), p))
		}
		slices.Sort(want)
		got := strings.Split(runGit(t, dir, "-c", "core.quotepath=off", "ls-tree", "-r", "--format=%(objectmode) %(objectname)%x09%(path)", "HEAD"), "\n")
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: HEAD lists\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	runGit(t, dir, "fsck", "--strict", "--no-dangling")
}

// A change that would put a file where a folder is, or a folder where a
// file is, fails naming the path, and changes nothing; deleting a folder
// as if it were a file changes nothing either.
func TestAFileAndAFolderOfOneNameAreRefused(t *testing.T) {
	s, dir := newStore(t)
	head := commit(t, s, "base", Change{Path: ".gitignore", Content: []byte(".cairn/\n")},
		Change{Path: "a/b/c.md", Content: []byte("c")}, Change{Path: "a/f.md", Content: []byte("f")})
	for _, tc := range []struct {
		change Change
		want   string
	}{
		{Change{Path: "a/b", Content: []byte("x")}, "a/b is a folder"},
		{Change{Path: "a/b", Delete: true}, "nothing to commit"},
		{Change{Path: "a/f.md/g.md", Content: []byte("x")}, "a/f.md is a file, not a folder"},
	} {
		_, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: "bad", Changes: []Change{tc.change}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", tc.change.Path, err, tc.want)
		}
		if h := runGit(t, dir, "rev-parse", "HEAD"); h != head {
			t.Fatalf("%s: HEAD moved to %s", tc.change.Path, h)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a/b/c.md")); err != nil {
		t.Fatal(err)
	}
}
