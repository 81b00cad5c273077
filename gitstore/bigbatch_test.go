package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A commit of more files than a batch keeps open (an adoption, a big
// move) writes every object and file, none left behind as a temporary
// file; a file read from disk when staged (Change.ReadFrom) holds its
// content, and executable files (Change.Executable) are recorded so, in
// the tree and the index alike.
func TestACommitOfManyFiles(t *testing.T) {
	s, dir := newStore(t)
	var changes []Change
	n := 3*maxOpenStaged + 5
	for i := 0; i < n; i++ {
		changes = append(changes, Change{Path: fmt.Sprintf("f%d/n%d.md", i%7, i), Content: []byte(fmt.Sprintf("# N%d\n", i))})
	}
	// A file committed as it is on disk, read when staged.
	os.MkdirAll(filepath.Join(dir, "tools"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools/run.sh"), []byte("#!/bin/sh\n"), 0o755)
	changes = append(changes, Change{Path: ".gitignore", Content: []byte(".cairn/\n")},
		Change{Path: "tools/run.sh", OnDisk: true, ReadFrom: filepath.Join(dir, "tools/run.sh"), Executable: true})
	commit(t, s, "many", changes...)
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := strings.Count(git("ls-files"), "\n") + 1; got != n+2 {
		t.Fatalf("%d files tracked, want %d", got, n+2)
	}
	if got := git("show", "HEAD:tools/run.sh"); got != "#!/bin/sh" {
		t.Fatalf("content read from disk: %q", got)
	}
	if got := git("ls-files", "-s", "tools/run.sh"); !strings.HasPrefix(got, "100755 ") {
		t.Fatalf("index: %s", got)
	}
	if got := git("ls-tree", "HEAD", "tools/run.sh"); !strings.HasPrefix(got, "100755 ") {
		t.Fatalf("tree: %s", got)
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Fatalf("status: %q", st)
	}
	git("fsck", "--strict")
	if temps, _ := s.tempFiles(); len(temps) != 0 {
		t.Fatalf("temporary files left: %q", temps)
	}
}
