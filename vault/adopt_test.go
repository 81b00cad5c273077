package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/personsfiles"
)

const obsidianFixture = "testdata/obsidian-vault"

// A person's files, held to what they were (internal/personsfiles).
type fileState = personsfiles.State

var (
	personsFiles = personsfiles.Read
	sameFiles    = personsfiles.Same
)

// obsidianCopy copies the Obsidian test vault to a temporary folder, with
// modification times in the past, as a vault in use has them.
func obsidianCopy(t testing.TB) string { return personsfiles.CopyDated(t, obsidianFixture) }

// Adopting a folder of notes (Obsidian's, never a git repository) commits
// every file as it is, rewrites none, and shares nothing a device writes
// for itself: git status stays clean however Obsidian rewrites them.
func TestAdoptingAnObsidianFolderLeavesEveryFileAsItWas(t *testing.T) {
	dir := obsidianCopy(t)
	before := personsFiles(t, dir)
	res, err := Init(dir, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Adopted || res.Notes != 7 || len(res.Skipped) != 0 || len(res.Advice) != 0 {
		t.Fatalf("init: %+v", res)
	}
	sameFiles(t, dir, before, "after init")
	if commitCount(t, dir) != "1" {
		t.Fatal("init is one commit")
	}
	tracked := strings.Split(gitOut(t, dir, "-c", "core.quotePath=false", "ls-files"), "\n")
	for p := range before {
		shared := !strings.HasPrefix(p, ".trash/") && p != ".obsidian/workspace.json"
		if slices.Contains(tracked, p) != shared {
			t.Fatalf("%s committed: %v, want %v (committed: %q)", p, !shared, shared, tracked)
		}
	}
	cleanAndSound(t, dir)

	// Obsidian at work: the layout changes, a phone opens the vault, a note
	// goes to Obsidian's trash, Finder looks at a folder.
	os.WriteFile(filepath.Join(dir, ".obsidian/workspace.json"), []byte(`{"main":{},"lastOpenFiles":["Welcome.md"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, ".obsidian/workspace-mobile.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, ".trash/Another.md"), []byte("# Another\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "Notes/.DS_Store"), []byte("\x00\x00\x00\x01Bud1"), 0o644)
	if st := gitOut(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("Obsidian's own files show in git status:\n%s", st)
	}
}

// Adopting a git repository commits only cairn's files and .gitignore's
// new lines; the person's files stay as they were, tracked or not, and a
// per-device file they committed is left to them, with advice.
func TestAdoptingAnObsidianRepositoryLeavesEveryFileAsItWas(t *testing.T) {
	dir := obsidianCopy(t)
	gitOut(t, dir, "init", "-q", "-b", "main")
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "my notes, as obsidian-git commits them")
	os.WriteFile(filepath.Join(dir, "Draft.md"), []byte("not committed yet\n"), 0o644)
	before := personsFiles(t, dir)
	res, err := Init(dir, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Adopted || res.Joined || len(res.Advice) != 1 || !strings.Contains(res.Advice[0], "git rm --cached .obsidian/workspace.json") {
		t.Fatalf("init: %+v", res)
	}
	sameFiles(t, dir, before, "after adoption")
	if got := gitOut(t, dir, "diff", "--name-only", "HEAD~1", "HEAD"); got != ".cairn/access.yaml\n.cairn/config.yaml\n.gitignore" {
		t.Fatalf("adoption committed %q", got)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); st != "?? Draft.md" {
		t.Fatalf("status after adoption: %q", st)
	}
}

// What a sync would never share is not in the first commit either, and
// is named; an executable file is committed as `git add` would, so git
// status stays clean.
func TestInitLeavesLinksAndHugeFilesOutAndKeepsTheExecuteBit(t *testing.T) {
	dir := obsidianCopy(t)
	big := filepath.Join(dir, "attachments", "talk.mp4")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxSharedFileBytes + 1) // sparse: no 50 MiB written
	f.Close()
	os.Symlink("Projects", filepath.Join(dir, "Shortcut"))
	os.Chmod(filepath.Join(dir, "attachments", "notes.pdf"), 0o755) // as a FAT or NTFS disk shows every file
	res, err := Init(dir, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 2 || !strings.HasPrefix(res.Skipped[0], "Shortcut: a symbolic link") ||
		!strings.HasPrefix(res.Skipped[1], "attachments/talk.mp4: 50 MiB, over") {
		t.Fatalf("skipped: %q", res.Skipped)
	}
	if got := gitOut(t, dir, "ls-files", "-s", "attachments/notes.pdf"); !strings.HasPrefix(got, "100755 ") {
		t.Fatalf("executable file committed as %q", got)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); st != "?? Shortcut\n?? attachments/talk.mp4" {
		t.Fatalf("status: %q", st)
	}
	fsck(t, dir)
}
