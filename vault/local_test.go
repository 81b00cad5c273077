package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

// teamClone makes alice's vault from the sample and bob's clone of it,
// made with git (not set up yet).
func teamClone(t *testing.T) (alice, bob string) {
	t.Helper()
	base := t.TempDir()
	alice, bob = filepath.Join(base, "alice"), filepath.Join(base, "bob")
	if _, err := Init(alice, InitOptions{From: "../sample-vault", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	gitOut(t, base, "clone", "-q", alice, bob)
	return alice, bob
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestInitOnACloneSetsUpThisMachineAndCommitsNothing(t *testing.T) {
	alice, bob := teamClone(t)
	head := gitOut(t, bob, "rev-parse", "HEAD")
	committed := gitOut(t, bob, "show", "HEAD:"+AccessFile)

	// A bad owner is refused before anything changes.
	if _, err := Init(bob, InitOptions{Owner: "Bob Smith"}); err == nil || !strings.Contains(err.Error(), "owner") {
		t.Fatalf("bad owner: %v", err)
	}
	if exists(filepath.Join(bob, CacheDir)) || exists(filepath.Join(bob, LocalFile)) {
		t.Fatal("a refused init changed the clone")
	}

	res, err := Init(bob, InitOptions{Owner: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Joined || res.Commit != "" || res.Owner != "bob" || res.Notes != 62 {
		t.Fatalf("init on a clone: %+v", res)
	}
	unchanged(t, bob, head) // nothing committed, and every local file ignored
	if fi, err := os.Stat(filepath.Join(bob, ".cairn", "secrets")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("secrets folder: %v %v", fi, err)
	}
	gitOut(t, bob, "check-ignore", "-q", LocalFile)
	if gitOut(t, bob, "show", "HEAD:"+AccessFile) != committed {
		t.Fatal("the committed access file changed")
	}
	if o, _ := ReadOwner(bob); o != "bob" {
		t.Fatalf("ReadOwner(bob's clone) = %q", o)
	}
	if o, _ := ReadOwner(alice); o != "alice" {
		t.Fatalf("ReadOwner(alice's vault) = %q", o)
	}

	v, err := Open(bob, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Owner() != "bob" {
		t.Fatalf("owner on bob's machine: %q", v.Owner())
	}
	bobC := access.Caller{Principal: "bob", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	aliceC := access.Caller{Principal: "alice", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	if _, err := v.CreateNote(bobC, CreateArgs{Project: "acme/platform", Body: "# Bob was here"}); err != nil {
		t.Fatalf("the local owner may not write: %v", err)
	}
	if _, err := v.CreateNote(aliceC, CreateArgs{Project: "acme/platform", Body: "# Alice was here"}); err == nil {
		t.Fatal("the committed owner is still the owner on bob's machine")
	}
	// The owner here grants; the committed owner stays in the file.
	if err := v.Grant(access.Caller{Principal: "bob", Actor: "human", Tool: "test"}, "carol", "acme", access.RoleRead); err != nil {
		t.Fatal(err)
	}
	if got := gitOut(t, bob, "show", "HEAD:"+AccessFile); !strings.Contains(got, "owner: alice") || !strings.Contains(got, "carol") || strings.Contains(got, "bob") {
		t.Fatalf("committed access file after bob's grant:\n%s", got)
	}
	cleanAndSound(t, bob)

	// Again, without --owner: the local owner stays, nothing changes.
	head = gitOut(t, bob, "rev-parse", "HEAD")
	if res, err := Init(bob, InitOptions{}); err != nil || !res.Joined || res.Owner != "bob" {
		t.Fatalf("init again: %+v %v", res, err)
	}
	unchanged(t, bob, head)
	if _, err := Init(bob, InitOptions{From: "../sample-vault"}); err == nil {
		t.Fatal("--from on a vault is accepted")
	}
}

// Init on a clone saves the catalog as well as the version map, so the
// first serve takes its notes from them and reads none: a note changed
// on disk after the init, to the same size and time, keeps the title the
// init read (the open re-reads a note only when its size or time moved).
func TestInitOnACloneSavesTheCatalog(t *testing.T) {
	_, bob := teamClone(t)
	head := gitOut(t, bob, "rev-parse", "HEAD")
	if _, err := Init(bob, InitOptions{Owner: "bob"}); err != nil {
		t.Fatal(err)
	}
	unchanged(t, bob, head)
	const rel = "acme/Acme overview.md"
	file := filepath.Join(bob, rel)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "# Acme overview", "# Acme OVERVIEW", 1)
	if changed == string(data) {
		t.Fatal("the sample note has no title to change")
	}
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	v, err := Open(bob, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, title, ok := v.NoteTitle(rel); !ok || title != "Acme overview" {
		t.Fatalf("the first open's title of %s: %q (known %v); want the one the init read", rel, title, ok)
	}
	if _, _, ok := v.NoteTitle("people/owner/profile.md"); !ok {
		t.Fatal("a note the init read is missing")
	}
}

func TestABrokenLocalFileIsNamed(t *testing.T) {
	_, bob := teamClone(t)
	if _, err := Init(bob, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"ownr: bob\n", "owner: Bob Smith\n", "owner: [bob\n"} {
		os.WriteFile(filepath.Join(bob, LocalFile), []byte(bad), 0o644)
		if _, err := Open(bob, Options{}); err == nil || !strings.Contains(err.Error(), LocalFile) {
			t.Fatalf("open with %q: %v", bad, err)
		}
		if _, err := Init(bob, InitOptions{}); err == nil || !strings.Contains(err.Error(), LocalFile) {
			t.Fatalf("init with %q: %v", bad, err)
		}
	}
	// --owner writes a sound one in its place.
	if res, err := Init(bob, InitOptions{Owner: "bob"}); err != nil || res.Owner != "bob" {
		t.Fatalf("init --owner over a broken file: %+v %v", res, err)
	}
	v, err := Open(bob, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
}

// A vault made before .cairn/local.yaml existed has a .gitignore without
// it: joining ignores it on this machine (.git/info/exclude), committing
// nothing.
func TestJoiningAnOlderVaultIgnoresLocalFilesWithoutACommit(t *testing.T) {
	alice, bob := teamClone(t)
	os.WriteFile(filepath.Join(alice, ".gitignore"), []byte(".cairn/cache/\n.cairn/secrets/\n"), 0o644)
	gitOut(t, alice, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qam", "an older .gitignore")
	gitOut(t, bob, "pull", "-q")
	head := gitOut(t, bob, "rev-parse", "HEAD")
	res, err := Init(bob, InitOptions{Owner: "bob"})
	if err != nil || !slices.Equal(res.Ignored, append([]string{LocalFile}, deviceFiles...)) {
		t.Fatalf("join: %+v %v", res, err)
	}
	unchanged(t, bob, head)
	exclude := readFile(t, filepath.Join(bob, ".git", "info", "exclude"))
	for _, l := range res.Ignored {
		if !strings.Contains(exclude, "\n"+l+"\n") {
			t.Fatalf("%s not excluded:\n%s", l, exclude)
		}
	}
	// Again: nothing more to add.
	if res, err := Init(bob, InitOptions{}); err != nil || len(res.Ignored) != 0 {
		t.Fatalf("join again: %+v %v", res, err)
	}
	if readFile(t, filepath.Join(bob, ".git", "info", "exclude")) != exclude {
		t.Fatal("a second join changed .git/info/exclude")
	}
}

func TestInitIgnoresObsidianDeviceFiles(t *testing.T) {
	// A new repository: ignored in .gitignore, never committed.
	dir := filepath.Join(t.TempDir(), "obs")
	os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755)
	os.WriteFile(filepath.Join(dir, ".obsidian", "workspace.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "Note.md"), []byte("# Note\n"), 0o644)
	res, err := Init(dir, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gi := readFile(t, filepath.Join(dir, ".gitignore"))
	for _, l := range deviceFiles {
		if !strings.Contains(gi, l+"\n") || !strings.Contains(strings.Join(res.Ignored, " "), l) {
			t.Fatalf("%s not ignored: %q %q", l, gi, res.Ignored)
		}
	}
	files := gitOut(t, dir, "ls-files")
	if strings.Contains(files, "workspace.json") || !strings.Contains(files, ".obsidian/app.json") {
		t.Fatalf("committed:\n%s", files)
	}
	cleanAndSound(t, dir)

	// A repository that commits workspace.json: ignored from now on, and
	// the advice to untrack it (cairn does not: that deletes it on every
	// member's disk).
	repo := t.TempDir()
	gitOut(t, repo, "init", "-q", "-b", "main")
	os.MkdirAll(filepath.Join(repo, ".obsidian"), 0o755)
	os.WriteFile(filepath.Join(repo, ".obsidian", "workspace.json"), []byte("{}"), 0o644)
	gitOut(t, repo, "add", "-A")
	gitOut(t, repo, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "obsidian")
	res, err = Init(repo, InitOptions{})
	if err != nil || len(res.Advice) != 1 || !strings.Contains(res.Advice[0], "git rm --cached .obsidian/workspace.json") {
		t.Fatalf("adopt: %+v %v", res, err)
	}
	if !strings.Contains(gitOut(t, repo, "show", "HEAD:.gitignore"), ".obsidian/workspace-mobile.json") {
		t.Fatal("the adopted .gitignore does not ignore Obsidian's device files")
	}
	if !strings.Contains(gitOut(t, repo, "ls-files"), ".obsidian/workspace.json") {
		t.Fatal("cairn untracked workspace.json itself")
	}
}

func TestAMissingOrEmptyLocalFileNamesNoOwner(t *testing.T) {
	l, err := loadLocal(t.TempDir())
	if err != nil || l.Owner != "" {
		t.Fatalf("%+v %v", l, err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755)
	os.WriteFile(filepath.Join(dir, LocalFile), nil, 0o644)
	if l, err := loadLocal(dir); err != nil || l.Owner != "" {
		t.Fatalf("empty file: %+v %v", l, err)
	}
}
