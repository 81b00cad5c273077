package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

func findings(v *vault.Vault, check string) []string {
	var out []string
	for _, f := range Check(v) {
		if f.Check == check {
			out = append(out, f.Level+": "+f.Message)
		}
	}
	return out
}

// TestDoctorBringsBackWritesAGitOperationLeftOffTheBranch: writes of
// cairn's that a person's reset dropped, and one made on another branch,
// are reported by doctor and brought back by --fix, each by its principal
// and naming the commit it restores; a note changed since on the branch
// keeps that change and gets the write's version beside it as a conflict
// copy. A write a rebase rewrote is on the branch in another form and is
// not reported.
func TestDoctorBringsBackWritesAGitOperationLeftOffTheBranch(t *testing.T) {
	v, dir := sampleVault(t)
	w1, err := v.CreateNote(camille, vault.CreateArgs{Project: "acme/launch", Body: "# Stranded one\n\nfirst\n"})
	if err != nil {
		t.Fatal(err)
	}
	pricing := "acme/launch/Pricing.md"
	n, err := v.GetNote(camille, pricing, false, "")
	if err != nil {
		t.Fatal(err)
	}
	line := "Agent line."
	if _, err := v.EditNote(camille, vault.EditArgs{Ref: pricing, Operation: "append", Content: &line, VersionToken: n.VersionToken}); err != nil {
		t.Fatal(err)
	}
	base := gitOut(t, dir, "rev-parse", "HEAD~2")
	// The person resets past both, then edits Pricing.md by hand and
	// commits it.
	gitOut(t, dir, "reset", "-q", "--hard", base)
	os.WriteFile(filepath.Join(dir, pricing), []byte(readFile(t, filepath.Join(dir, pricing))+"\nPerson line.\n"), 0o644)
	gitOut(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qam", "by hand")
	// A write of cairn's on another branch, as before cairn refused to
	// write there.
	gitOut(t, dir, "checkout", "-q", "-b", "other")
	os.WriteFile(filepath.Join(dir, "acme/launch/Elsewhere.md"), []byte("# Elsewhere\n"), 0o644)
	gitOut(t, dir, "add", "acme/launch/Elsewhere.md")
	gitOut(t, dir, "-c", "user.name=sam", "-c", "user.email=sam@cairn.local", "commit", "-qm",
		"Create acme/launch/Elsewhere.md\n\nCairn-Tool: create_note\nCairn-Principal: sam\nCairn-Actor: agent")
	gitOut(t, dir, "checkout", "-q", "main")

	got := findings(v, "stranded")
	if len(got) != 3 || !strings.Contains(strings.Join(got, "\n"), "Stranded one") || !strings.Contains(strings.Join(got, "\n"), "other reflog") {
		t.Fatalf("doctor's stranded findings:\n%s", strings.Join(got, "\n"))
	}
	did, err := Repair(v)
	if err != nil {
		t.Fatal(err)
	}
	if joined := strings.Join(did, "\n"); strings.Count(joined, "restored ") != 3 || !strings.Contains(joined, "(conflict ") {
		t.Fatalf("repair:\n%s", joined)
	}
	if got := findings(v, "stranded"); len(got) != 0 {
		t.Fatalf("still stranded after --fix:\n%s", strings.Join(got, "\n"))
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, w1.Path)), "first") {
		t.Fatal("the first write is not back")
	}
	if _, err := os.Stat(filepath.Join(dir, "acme/launch/Elsewhere.md")); err != nil {
		t.Fatal("the write on the other branch is not on main")
	}
	kept := readFile(t, filepath.Join(dir, pricing))
	if !strings.Contains(kept, "Person line.") || strings.Contains(kept, "Agent line.") || !strings.Contains(kept, "(conflict ") {
		t.Fatalf("Pricing.md on the branch:\n%s", kept)
	}
	copies, _ := filepath.Glob(filepath.Join(dir, "acme/launch/Pricing (conflict *).md"))
	if len(copies) != 1 || !strings.Contains(readFile(t, copies[0]), "Agent line.") {
		t.Fatalf("the conflict copy: %v", copies)
	}
	if log := gitOut(t, dir, "log", "-3", "--format=%an %(trailers:key=Cairn-Restored,valueonly)"); !strings.Contains(log, "camille ") || !strings.Contains(log, "sam ") {
		t.Fatalf("restores not by their principals, or without Cairn-Restored:\n%s", log)
	}

	// A write that a rebase rewrote is on the branch in another form.
	if _, err := v.CreateNote(camille, vault.CreateArgs{Project: "acme/launch", Body: "# Rebased\n"}); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "checkout", "-q", "-b", "upstream", "HEAD~1")
	os.WriteFile(filepath.Join(dir, "Upstream.md"), []byte("# Upstream\n"), 0o644)
	gitOut(t, dir, "add", "Upstream.md")
	gitOut(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "upstream")
	gitOut(t, dir, "checkout", "-q", "main")
	gitOut(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "rebase", "-q", "upstream")
	if got := findings(v, "stranded"); len(got) != 0 {
		t.Fatalf("a rebased write is reported:\n%s", strings.Join(got, "\n"))
	}
	cleanAndSound(t, dir)
}

// TestDoctorTellsALiveWriteFromAStaleOne: the locks of a cairn commit
// under way (its write lock held by a live process) are no problem; the
// same locks once nobody holds the write lock are a stale leftover.
func TestDoctorTellsALiveWriteFromAStaleOne(t *testing.T) {
	v, dir := sampleVault(t)
	f, err := os.OpenFile(filepath.Join(dir, ".cairn", "cache", "write.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".git", "index.lock"), []byte("cairn 0123456789abcdef\n"), 0o644)
	problems := func() (n int, all []string) {
		for _, f := range Check(v) {
			all = append(all, f.Level+" "+f.Check+": "+f.Message)
			if f.Level == "problem" {
				n++
			}
		}
		return n, all
	}
	if n, all := problems(); n != 0 || !strings.Contains(strings.Join(all, "\n"), "of a write under way now") {
		t.Fatalf("a live write reported as a problem, or not at all:\n%s", strings.Join(all, "\n"))
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if n, all := problems(); n != 1 || !strings.Contains(strings.Join(all, "\n"), "problem git lock: .git/index.lock") {
		t.Fatalf("a stale lock is not the one problem:\n%s", strings.Join(all, "\n"))
	}
}
