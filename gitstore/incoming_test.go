package gitstore

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeObject writes raw bytes as an object of type kind into the
// repository at dir, as git stores it whatever they hold.
func writeObject(t *testing.T, dir, kind string, raw []byte) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-t", kind, "--literally", "-w", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash-object: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func treeEntry(mode, name, hash string) []byte {
	h, _ := hex.DecodeString(hash)
	return append([]byte(mode+" "+name+"\x00"), h...)
}

// commitOn makes a commit of tree on parent with git plumbing (no ref).
func commitOn(t *testing.T, dir, tree, parent string) string {
	return runGit(t, dir, "commit-tree", tree, "-p", parent, "-m", "crafted")
}

// TestAdvanceRefusesTreesGitWouldNotSend gives Advance trees that git's
// upload-pack refuses to send (so no sync through git fetches them) but
// another server, or a hand in .git/objects, could: the malformed ones.
func TestAdvanceRefusesTreesGitWouldNotSend(t *testing.T) {
	s, dir := baseStore(t)
	head := runGit(t, dir, "rev-parse", "HEAD")
	blob := writeObject(t, dir, "blob", []byte("# Pwned\n"))
	headTree := runGit(t, dir, "rev-parse", "HEAD^{tree}")
	raw := func(extra []byte) []byte {
		// HEAD's tree, as git wrote it, then the crafted entry.
		cmd := exec.Command("git", "cat-file", "tree", headTree)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return append(out, extra...)
	}
	for name, tree := range map[string][]byte{
		"empty name":       raw(treeEntry("100644", "", blob)),
		"NUL in a name":    raw(append(treeEntry("100644", "x", blob)[:8], append([]byte("\x00y"), treeEntry("100644", "", blob)[8:]...)...)),
		"truncated entry":  raw([]byte("100644 cut.md\x00abc")),
		"mode not octal":   raw(treeEntry("10064x", "odd.md", blob)),
		"zz name repeated": raw(treeEntry("100644", "a.md", blob)),
	} {
		t.Run(name, func(t *testing.T) {
			commit := commitOn(t, dir, writeObject(t, dir, "tree", tree), head)
			_, err := s.Advance(commit)
			var ie *IncomingError
			if !errors.As(err, &ie) || ie.Commit != commit {
				t.Fatalf("advance: %v, want an IncomingError on %s", err, commit)
			}
			if got := runGit(t, dir, "rev-parse", "HEAD"); got != head {
				t.Fatalf("HEAD moved to %s", got)
			}
			if st := runGit(t, dir, "status", "--porcelain"); st != "" {
				t.Fatalf("the work tree changed:\n%s", st)
			}
		})
	}
}

// TestAdvanceNeverWritesThroughALinkedFolder: a folder of the work tree
// that is a symbolic link (made by hand, or by git clone from a tree that
// held one) is never written or removed through, even by a clean commit.
func TestAdvanceNeverWritesThroughALinkedFolder(t *testing.T) {
	s, dir := baseStore(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "kept.md"), []byte("outside\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	runGit(t, filepath.Dir(clone), "clone", "-q", dir, clone)
	os.MkdirAll(filepath.Join(clone, "linked"), 0o755)
	os.WriteFile(filepath.Join(clone, "linked", "new.md"), []byte("# New\n"), 0o644)
	runGit(t, clone, "add", "linked")
	runGit(t, clone, "commit", "-qm", "write into linked/")
	runGit(t, dir, "fetch", "-q", clone, "main")
	target := runGit(t, dir, "rev-parse", "FETCH_HEAD")
	head := runGit(t, dir, "rev-parse", "HEAD")

	_, err := s.Advance(target)
	var pe *PathError
	if !errors.As(err, &pe) || !strings.Contains(pe.Why, "symbolic link") {
		t.Fatalf("advance through a linked folder: %v", err)
	}
	if got := runGit(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("written outside: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "kept.md")); string(b) != "outside\n" {
		t.Fatalf("kept.md outside changed: %q", b)
	}
	// A commit of the store's own, through the link, is refused the same way.
	if _, err := s.Commit(CommitRequest{Author: Signature{Name: "a", Email: "a@x"}, Message: "x",
		Changes: []Change{{Path: "linked/kept.md", Content: []byte("x")}}}); !errors.As(err, &pe) {
		t.Fatalf("commit through a linked folder: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "kept.md")); string(b) != "outside\n" {
		t.Fatalf("kept.md outside changed: %q", b)
	}
}
