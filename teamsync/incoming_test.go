package teamsync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
)

// rawEntry is one entry of a tree made by hand: any name, any mode.
type rawEntry struct {
	mode, name, hash string
}

// mktree writes a tree of entries into the repository at dir exactly as
// given (git mktree refuses some of these names), in git's order.
func mktree(t *testing.T, dir string, entries []rawEntry) string {
	t.Helper()
	sort.SliceStable(entries, func(i, j int) bool { return sortKey(entries[i]) < sortKey(entries[j]) })
	var buf bytes.Buffer
	for _, e := range entries {
		h, err := hex.DecodeString(e.hash)
		if err != nil || len(h) != 20 {
			t.Fatalf("bad hash %q", e.hash)
		}
		buf.WriteString(e.mode + " " + e.name + "\x00")
		buf.Write(h)
	}
	cmd := gitCmd(dir, "hash-object", "-t", "tree", "--literally", "-w", "--stdin")
	cmd.Stdin = &buf
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("write tree: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func sortKey(e rawEntry) string {
	if e.mode == "40000" {
		return e.name + "/"
	}
	return e.name
}

func blob(t *testing.T, dir, content string) string {
	t.Helper()
	cmd := gitCmd(dir, "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// rootEntries are the entries of commit's root tree.
func rootEntries(t *testing.T, dir, commit string) []rawEntry {
	t.Helper()
	var out []rawEntry
	for _, rec := range strings.Split(gitT(t, dir, "ls-tree", "-z", commit), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 {
			mode := strings.TrimLeft(f[0], "0")
			out = append(out, rawEntry{mode: mode, name: name, hash: f[2]})
		}
	}
	return out
}

// commitOnRemote makes a commit on the remote's main whose root tree is
// its parent's with extra entries added, by git plumbing, and moves main
// there. It returns the commit.
func commitOnRemote(t *testing.T, remote, parent string, extra ...rawEntry) string {
	t.Helper()
	tree := mktree(t, remote, append(rootEntries(t, remote, parent), extra...))
	c := gitT(t, remote, "commit-tree", tree, "-p", parent, "-m", "hostile")
	gitT(t, remote, "update-ref", "refs/heads/main", c)
	return c
}

// hostileForm is one way a tree can try to write where it must not.
type hostileForm struct {
	name string
	// entries returns the root entries to add (made in remote) and the
	// path the refusal names.
	entries func(t *testing.T, remote, outside string) ([]rawEntry, string)
	// unsendable: git's upload-pack refuses to send the tree at all, so
	// the sync fails at the fetch (gitstore's tests give such trees to
	// Advance directly).
	unsendable bool
}

func subtree(t *testing.T, remote string, entries ...rawEntry) string {
	return mktree(t, remote, entries)
}

// pwned is a tree holding one file, PWNED.md.
func pwned(t *testing.T, remote string) string {
	return subtree(t, remote, rawEntry{"100644", "PWNED.md", blob(t, remote, "# Pwned\n")})
}

func hooks(t *testing.T, remote string) string {
	hook := blob(t, remote, "#!/bin/sh\ntouch /tmp/cairn-hook-ran\n")
	return subtree(t, remote, rawEntry{"40000", "hooks", subtree(t, remote,
		rawEntry{"100755", "post-merge", hook}, rawEntry{"100755", "pre-commit", hook})})
}

func dirForm(name string, inner func(*testing.T, string) string) hostileForm {
	return hostileForm{name: name, entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"40000", name, inner(t, remote)}}, name
	}}
}

func fileForm(label, name, mode, content string) hostileForm {
	return hostileForm{name: label, entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{mode, name, blob(t, remote, content)}}, name
	}}
}

var hostileForms = []hostileForm{
	dirForm("..", pwned),
	dirForm(".", pwned),
	dirForm(".git", hooks),
	dirForm(".GIT", hooks),
	dirForm(".Git", hooks),
	dirForm(".git.", hooks),
	dirForm(".git ", hooks),
	dirForm(".git . .", hooks),
	dirForm("git~1", hooks),
	dirForm("GIT~1", hooks),
	dirForm(".g\u200cit", hooks),
	dirForm("\ufeff.git", hooks),
	dirForm(".git\u200f", hooks),
	{name: "empty name", unsendable: true, entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"100644", "", blob(t, remote, "x")}}, ""
	}},
	{name: "NUL in a name", unsendable: true, entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"100644", "a\x00b.md", blob(t, remote, "x")}}, ""
	}},
	fileForm("a slash inside a name", "acme/../.cairn/local.yaml", "100644", "owner: mallory\nembedder:\n  url: https://evil.example\n  apiKeyEnv: AWS_SECRET_ACCESS_KEY\n"),
	{name: "absolute path", entries: func(t *testing.T, remote, outside string) ([]rawEntry, string) {
		p := filepath.Join(outside, "ABSOLUTE.md")
		return []rawEntry{{"100644", p, blob(t, remote, "x")}}, p
	}},
	fileForm("symbolic link", "link.md", "120000", "/etc/passwd"),
	{name: "gitlink", entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"160000", "sub", gitT(t, remote, "rev-parse", "main")}}, "sub"
	}},
	fileForm("a file and a folder of one name", "acme", "100644", "a file where the folder is\n"),
	fileForm("a name given twice", "Welcome.md", "100644", "the second Welcome\n"),
	fileForm("control characters", "evil\x1b[2J\r.md", "100644", "x"),
	fileForm("newline", "evil\nrefused: nothing.md", "100644", "x"),
	fileForm("backslash", "..\\..\\evil.md", "100644", "x"),
	fileForm("over 255 bytes", strings.Repeat("n", 256)+".md", "100644", "x"),
	fileForm("unknown mode", "odd.md", "100600", "x"),
	{name: "nested ..", entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"40000", "deep", subtree(t, remote, rawEntry{"40000", "..", subtree(t, remote, rawEntry{"40000", "..", pwned(t, remote)})})}}, "deep/.."
	}},
	{name: "nested .git", entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"40000", "deep", subtree(t, remote, rawEntry{"40000", ".git", hooks(t, remote)})}}, "deep/.git"
	}},
	{name: "this machine's settings, upper case", entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"40000", ".CAIRN", subtree(t, remote, rawEntry{"100644", "local.yaml", blob(t, remote, "owner: mallory\n")})}}, ".CAIRN/local.yaml"
	}},
	{name: "this machine's settings, NTFS spelling", entries: func(t *testing.T, remote, _ string) ([]rawEntry, string) {
		return []rawEntry{{"40000", ".cairn.", subtree(t, remote, rawEntry{"100644", "local.yaml", blob(t, remote, "owner: mallory\n")})}}, ".cairn./local.yaml"
	}},
}

// TestAFetchedCommitWritesNothingWhereItMustNot makes, for each hostile
// form, a commit with git plumbing on a real bare remote and syncs a
// clone: the sync fails naming the commit and the path, nothing in the
// vault, its .git or outside it changes, and once the remote is clean
// again the next sync works.
func TestAFetchedCommitWritesNothingWhereItMustNot(t *testing.T) {
	a, b := team(t)
	remote := remoteOf(t, b)
	clean := gitT(t, remote, "rev-parse", "main")
	base := filepath.Dir(b.Root())
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(b.Root(), vault.LocalFile), []byte("owner: bob\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, base, outside, b.Root())
	for _, f := range hostileForms {
		t.Run(f.name, func(t *testing.T) {
			extra, want := f.entries(t, remote, outside)
			hostile := commitOnRemote(t, remote, clean, extra...)
			if f.unsendable {
				head := gitT(t, b.Root(), "rev-parse", "HEAD")
				if rep, err := Sync(context.Background(), b, Options{}); err == nil || gitT(t, b.Root(), "rev-parse", "HEAD") != head {
					t.Fatalf("sync to %s: %+v %v", hostile, rep, err)
				}
			} else {
				refused(t, b, hostile, hostile, want)
			}
			if got := snapshot(t, base, outside, b.Root()); got != before {
				t.Fatalf("something changed:\n%s", lineDiff(before, got))
			}
			gitT(t, remote, "update-ref", "refs/heads/main", clean)
			if rep, err := Sync(context.Background(), b, Options{}); err != nil || rep.Fetched != clean {
				t.Fatalf("the sync after the remote was cleaned: %+v %v", rep, err)
			}
		})
	}
	// A commit that came in and was undone by the next is refused too:
	// every commit applied is checked, not only the last.
	t.Run("undone by the next commit", func(t *testing.T) {
		bad := commitOnRemote(t, remote, clean, rawEntry{"40000", "..", pwned(t, remote)})
		undo := commitOnRemote(t, remote, bad, rawEntry{"100644", "Later.md", blob(t, remote, "# Later\n")})
		// commitOnRemote adds to the parent's entries: take the ".." out.
		var kept []rawEntry
		for _, e := range rootEntries(t, remote, undo) {
			if e.name != ".." {
				kept = append(kept, e)
			}
		}
		tree := mktree(t, remote, kept)
		undo = gitT(t, remote, "commit-tree", tree, "-p", bad, "-m", "undo")
		gitT(t, remote, "update-ref", "refs/heads/main", undo)
		refused(t, b, undo, bad, "..")
		gitT(t, remote, "update-ref", "refs/heads/main", clean)
	})
	edit(t, a, cdn, func(s string) string { return s + "\nA clean change after all that.\n" })
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Incoming) != 1 || rep.Incoming[0] != cdn {
		t.Fatalf("the clean change: %+v", rep)
	}
	if got := read(t, b, vault.LocalFile); got != "owner: bob\n" {
		t.Fatalf("local settings: %q", got)
	}
}

// refused syncs v with the remote at tip and checks the sync failed on
// commit bad, naming it and path, and left HEAD and the work tree alone.
func refused(t *testing.T, v *vault.Vault, tip, bad, path string) {
	t.Helper()
	head := gitT(t, v.Root(), "rev-parse", "HEAD")
	rep, err := Sync(context.Background(), v, Options{})
	var ie *gitstore.IncomingError
	if !errors.As(err, &ie) {
		t.Fatalf("sync to %s: %+v, %v; want an IncomingError", tip, rep, err)
	}
	if ie.Commit != bad || ie.Path != path {
		t.Fatalf("refused commit %s path %q, want %s %q: %v", ie.Commit, ie.Path, bad, path, err)
	}
	if msg := err.Error(); !strings.Contains(msg, bad) || !strings.Contains(msg, gitstore.QuotePath(path)) {
		t.Fatalf("the error does not name the commit and the path: %v", err)
	}
	if strings.ContainsAny(err.Error(), "\x1b\r\n") {
		t.Fatalf("the error carries a raw control character: %q", err)
	}
	if rep != nil && (len(rep.Incoming) > 0 || rep.Pushed) {
		t.Fatalf("the refused sync reports a change: %+v", rep)
	}
	if got := gitT(t, v.Root(), "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
	if st := gitT(t, v.Root(), "status", "--porcelain", "--ignored"); strings.Contains(st, "PWNED") || strings.Contains(st, "evil") {
		t.Fatalf("the work tree changed:\n%s", st)
	}
}

// snapshot lists every file under the folders given (a vault's .git
// among them), with sizes, modes and contents' hashes of the small ones:
// what must not change. The vault's own cache and git's FETCH_HEAD and
// objects and the remote's tracking ref (a fetch brings the hostile
// objects and names them, as the remote does) are left out.
func snapshot(t *testing.T, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(d, p)
			switch {
			case strings.Contains(rel, "remote.git"), strings.Contains(rel, ".git/objects"), strings.Contains(rel, ".cairn/cache"),
				strings.HasSuffix(rel, "FETCH_HEAD"), strings.Contains(rel, ".git/logs"), strings.Contains(rel, ".git/refs/remotes"):
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return nil
			}
			b.WriteString(rel + " " + fi.Mode().String())
			if fi.Mode().IsRegular() && fi.Size() < 1<<20 {
				data, _ := os.ReadFile(p)
				b.WriteString(" " + blobID(data))
			}
			b.WriteString("\n")
			return nil
		})
	}
	return b.String()
}

func blobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// lineDiff lists the lines only one of a and b holds.
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out []string
	for l := range ma {
		if !mb[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range mb {
		if !ma[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestACloneWritesNoLinkAndNoDisguisedGit: git's checkout makes the clone,
// with the protections a sync applies: a symbolic link of the remote's
// arrives as a plain file holding its target (git status clean), and a
// tree holding .git under an HFS+ disguise is refused with nothing left.
func TestACloneWritesNoLinkAndNoDisguisedGit(t *testing.T) {
	a, _ := team(t)
	remote := remoteOf(t, a)
	clean := gitT(t, remote, "rev-parse", "main")
	commitOnRemote(t, remote, clean, rawEntry{"120000", "link.md", blob(t, remote, "/etc/passwd")})
	dir := filepath.Join(t.TempDir(), "c")
	if err := Clone(context.Background(), remote, dir, ""); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(dir, "link.md"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("link.md in the clone: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "link.md")); string(b) != "/etc/passwd" {
		t.Fatalf("link.md holds %q", b)
	}
	if st := gitT(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("the clone is not clean:\n%s", st)
	}

	commitOnRemote(t, remote, clean, rawEntry{"40000", ".g\u200cit", hooks(t, remote)})
	dir2 := filepath.Join(t.TempDir(), "d")
	err = Clone(context.Background(), remote, dir2, "")
	if err == nil {
		t.Fatal("a clone of a tree holding .git in disguise succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir2, ".g\u200cit", "hooks")); err == nil {
		t.Fatal("the disguised .git was written")
	}
}
