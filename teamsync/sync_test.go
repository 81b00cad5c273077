package teamsync

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	return cmd
}

func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitCmd(dir, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// team makes a bare remote, a vault that pushed the sample vault to it
// (after before, when given, wrote more), and a second vault cloned from
// it: two members of a team.
func team(t testing.TB, before ...func(*vault.Vault)) (a, b *vault.Vault) {
	t.Helper()
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	gitT(t, base, "init", "-q", "--bare", "-b", "main", remote)
	dirA, dirB := filepath.Join(base, "a"), filepath.Join(base, "b")
	if _, err := vault.Init(dirA, vault.InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	gitT(t, dirA, "remote", "add", "origin", remote)
	a = open(t, dirA)
	for _, f := range before {
		f(a)
	}
	if rep, err := Sync(context.Background(), a, Options{}); err != nil || !rep.Pushed {
		t.Fatalf("first push: %+v %v", rep, err)
	}
	gitT(t, base, "clone", "-q", remote, dirB)
	return a, open(t, dirB)
}

func open(t testing.TB, dir string) *vault.Vault {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

const cdn = "acme/infra/decisions/Decision CDN provider.md"

// edit changes a file of a vault in one commit, as a write would.
func edit(t *testing.T, v *vault.Vault, p string, change func(string) string) {
	t.Helper()
	ch := gitstore.Change{Path: p, Delete: change == nil}
	if change != nil {
		old, _ := os.ReadFile(filepath.Join(v.Root(), p))
		ch.Content = []byte(change(string(old)))
	}
	if _, err := v.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "agent", Email: "agent@cairn.local"}, Message: "edit " + p, Changes: []gitstore.Change{ch}}); err != nil {
		t.Fatal(err)
	}
}

func sync(t *testing.T, v *vault.Vault) *Report {
	t.Helper()
	rep, err := Sync(context.Background(), v, Options{})
	if err != nil {
		t.Fatalf("sync %s: %v", v.Root(), err)
	}
	if !rep.Pushed {
		t.Fatalf("sync %s did not push: %+v", v.Root(), rep)
	}
	return rep
}

// settled syncs both sides and checks what every sync must leave: the
// same HEAD on both, clean work trees, git fsck clean, no conflict marker.
func settled(t *testing.T, a, b *vault.Vault) {
	t.Helper()
	sync(t, a)
	sync(t, b)
	sync(t, a)
	if ha, hb := gitT(t, a.Root(), "rev-parse", "HEAD"), gitT(t, b.Root(), "rev-parse", "HEAD"); ha != hb {
		t.Fatalf("the clones differ: %s and %s", ha, hb)
	}
	for _, v := range []*vault.Vault{a, b} {
		if st := gitT(t, v.Root(), "status", "--porcelain"); st != "" {
			t.Fatalf("%s not clean:\n%s", v.Root(), st)
		}
		gitT(t, v.Root(), "fsck", "--strict")
		if out, _ := exec.Command("git", "-C", v.Root(), "grep", "-l", "-e", "^<<<<<<<", "-e", "^>>>>>>>").Output(); len(out) > 0 {
			t.Fatalf("conflict markers in %s:\n%s", v.Root(), out)
		}
	}
}

func read(t *testing.T, v *vault.Vault, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v.Root(), p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDifferentPartsOfOneNoteMerge(t *testing.T) {
	a, b := team(t)
	edit(t, a, cdn, func(s string) string { return s + "\nAdded by Alice.\n" })
	edit(t, b, cdn, func(s string) string {
		return strings.Replace(s, "# Decision CDN provider", "# Decision CDN provider\n\nBob's preface.", 1)
	})
	sync(t, a)
	rep := sync(t, b)
	if rep.Merge == "" || len(rep.Conflicts) != 0 {
		t.Fatalf("b's sync: %+v", rep)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if got := read(t, v, cdn); !strings.Contains(got, "Added by Alice.") || !strings.Contains(got, "Bob's preface.") {
			t.Fatalf("%s lacks a side:\n%s", v.Root(), got)
		}
	}
}

func TestTheSameLineKeepsBothVersionsWithoutMarkers(t *testing.T) {
	a, b := team(t)
	edit(t, a, cdn, func(s string) string {
		return strings.Replace(s, "# Decision CDN provider", "# Decision CDN provider\n\nStatus: Alice says yes.", 1)
	})
	edit(t, b, cdn, func(s string) string {
		return strings.Replace(s, "# Decision CDN provider", "# Decision CDN provider\n\nStatus: Bob says no.", 1)
	})
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != cdn || rep.Conflicts[0].Copy == "" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		kept, copied := read(t, v, cdn), read(t, v, rep.Conflicts[0].Copy)
		if !strings.Contains(kept, "Bob says no.") || !strings.Contains(copied, "Alice says yes.") {
			t.Fatalf("%s:\nkept:\n%s\ncopy:\n%s", v.Root(), kept, copied)
		}
		orig, cp := note.Parse(cdn, []byte(kept)), note.Parse(rep.Conflicts[0].Copy, []byte(copied))
		if cp.ID == orig.ID || !strings.Contains(copied, "conflict_of: "+orig.ID) {
			t.Fatalf("the copy must have an id of its own and name the original's:\n%s", copied)
		}
	}
}

func TestAnEditAgainstADeletionKeepsTheEdit(t *testing.T) {
	a, b := team(t)
	edit(t, a, cdn, nil)
	edit(t, b, cdn, func(s string) string { return s + "\nStill needed.\n" })
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 1 || !strings.Contains(rep.Conflicts[0].Why, "deleted") {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	if got := read(t, a, cdn); !strings.Contains(got, "Still needed.") {
		t.Fatalf("the edit is lost:\n%s", got)
	}
}

func TestFrontmatterTagsMergeAsAUnion(t *testing.T) {
	a, b := team(t)
	before := note.Parse(cdn, []byte(read(t, a, cdn))).Tags
	add := func(tag string) func(string) string {
		return func(s string) string {
			n := note.Parse(cdn, []byte(s))
			n.SetKey("tags", note.ListNode(append(append([]string{}, n.Tags...), tag)))
			return string(n.Render())
		}
	}
	edit(t, a, cdn, add("from-alice"))
	edit(t, b, cdn, add("from-bob"))
	sync(t, a)
	if rep := sync(t, b); len(rep.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	tags := note.Parse(cdn, []byte(read(t, a, cdn))).Tags
	want := append(append(append([]string{}, before...), "from-bob"), "from-alice")
	if strings.Join(tags, ",") != strings.Join(want, ",") {
		t.Fatalf("tags %v, want %v", tags, want)
	}
}

func TestNothingToSyncAndAMissingRemoteAreClear(t *testing.T) {
	a, b := team(t)
	settled(t, a, b)
	if rep := sync(t, a); rep.Merge != "" || len(rep.Incoming) != 0 {
		t.Fatalf("a sync with nothing new: %+v", rep)
	}
	head := gitT(t, a.Root(), "rev-parse", "HEAD")
	_, err := Sync(context.Background(), a, Options{Remote: "nowhere"})
	if err == nil || !strings.Contains(err.Error(), "nowhere") || !strings.Contains(err.Error(), "nothing changed here") {
		t.Fatalf("sync with a missing remote: %v", err)
	}
	if gitT(t, a.Root(), "rev-parse", "HEAD") != head {
		t.Fatal("a failed sync moved HEAD")
	}
}

func TestIncomingNotesAreReadAndFoundAtOnce(t *testing.T) {
	a, b := team(t)
	p := "acme/infra/Wombat census.md"
	if _, err := a.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "agent", Email: "agent@cairn.local"}, Message: "add",
		Changes: []gitstore.Change{{Path: p, Content: []byte("# Wombat census\n\nMarsupials counted on the ridge.\n")}}}); err != nil {
		t.Fatal(err)
	}
	sync(t, a)
	if _, err := b.SearchIndex(); err != nil { // b's index is open before the note arrives
		t.Fatal(err)
	}
	rep := sync(t, b)
	if len(rep.Incoming) != 1 || rep.Incoming[0] != p {
		t.Fatalf("incoming: %v", rep.Incoming)
	}
	owner := access.Caller{Principal: b.Owner(), Ceiling: access.RoleWrite, Actor: "human", Tool: "test"}
	res, err := b.Search(context.Background(), owner, vault.SearchArgs{Query: "wombat census marsupials", Mode: "lexical", Limit: 5})
	if err != nil || len(res.Results) == 0 || res.Results[0].Path != p {
		t.Fatalf("search on b after the sync: %+v %v", res, err)
	}
	if _, err := b.GetNote(owner, "Wombat census", false, ""); err != nil {
		t.Fatalf("get_note on b after the sync: %v", err)
	}
}
