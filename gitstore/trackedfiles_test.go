package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TrackedFiles counts the paths of git's index with a suffix: what `git
// ls-files` lists, and 0 with no index or a damaged one.
func TestTrackedFilesCountsTheIndexEntries(t *testing.T) {
	s, dir := newStore(t)
	if n := s.TrackedFiles(".md"); n != 0 {
		t.Errorf("no index yet: %d", n)
	}
	var changes []Change
	for i := range 7 {
		changes = append(changes, Change{Path: fmt.Sprintf("notes/n%d.md", i), Content: []byte("# N\n")})
	}
	commit(t, s, "add", changes...)
	if err := os.WriteFile(filepath.Join(dir, "loose.md"), []byte("# L\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "photo.png"), []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "add", "loose.md", "photo.png")
	listed := len(strings.Split(runGit(t, dir, "ls-files", "*.md"), "\n"))
	if n := s.TrackedFiles(".md"); n != listed || n != 8 {
		t.Errorf("TrackedFiles(.md) %d, git ls-files *.md %d, want 8", n, listed)
	}
	if n := s.TrackedFiles(""); n != 9 {
		t.Errorf("TrackedFiles() %d, want 9", n)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "index"), []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := s.TrackedFiles(""); n != 0 {
		t.Errorf("a damaged index: %d", n)
	}
}
