package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/note"
)

const (
	cdnPath = "acme/infra/decisions/Decision CDN provider.md"
	cdnID   = "01M39VMBG8ED2PHA0GFKB0TKNC"
	// cdnCopy is named as Obsidian names a copy: by plain byte order it
	// would sort before the original (' ' < '.').
	cdnCopy = "acme/infra/decisions/Decision CDN provider 1.md"
)

// vaultWithCopy makes a vault from the sample in which a person copied a
// note file (its id with it), retitled the copy and committed it with git,
// then opens it.
func vaultWithCopy(t *testing.T) (*Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	orig := readFile(t, filepath.Join(dir, cdnPath))
	cp := strings.Replace(orig, "# Decision CDN provider", "# CDN provider, second opinion", 1)
	if err := os.WriteFile(filepath.Join(dir, cdnCopy), []byte(cp), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "add", "--", cdnCopy)
	gitOut(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "copy a note")
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

func pathOfRef(t *testing.T, v *Vault, ref string) string {
	t.Helper()
	n, err := v.GetNote(owner, ref, false, "")
	if err != nil {
		t.Fatalf("get %s: %v", ref, err)
	}
	return n.Path
}

func TestACopiedNoteIsGivenAnIDOfItsOwnAndLinksKeepTheirNote(t *testing.T) {
	v, dir := vaultWithCopy(t)
	want := IDCopy{ID: cdnID, Kept: cdnPath, Path: cdnCopy, NewID: note.DerivedID(cdnCopy)}
	if got := v.DuplicateIDs(); len(got) != 1 || got[0] != want {
		t.Fatalf("DuplicateIDs = %+v, want [%+v]", got, want)
	}
	// What readers see before the repair is what they see after it.
	check := func(when string) {
		t.Helper()
		for ref, p := range map[string]string{cdnID: cdnPath, note.DerivedID(cdnCopy): cdnCopy, "Decision CDN provider": cdnPath,
			"CDN provider, second opinion": cdnCopy, strings.TrimSuffix(cdnCopy, ".md"): cdnCopy} {
			if got := pathOfRef(t, v, ref); got != p {
				t.Fatalf("%s: %s leads to %s, want %s", when, ref, got, p)
			}
		}
	}
	check("before the repair")
	head, origBefore, copyBefore := gitOut(t, dir, "rev-parse", "HEAD"), readFile(t, filepath.Join(dir, cdnPath)), readFile(t, filepath.Join(dir, cdnCopy))

	got, err := v.RepairDuplicateIDs("test", nil)
	if err != nil || len(got) != 1 || !got[0].Repaired || got[0].Left != "" {
		t.Fatalf("repair: %+v %v", got, err)
	}
	if gitOut(t, dir, "rev-parse", "HEAD~1") != head {
		t.Fatal("the repair is not one commit on top of HEAD")
	}
	if changed := gitOut(t, dir, "diff", "--name-only", "HEAD~1", "HEAD"); changed != cdnCopy {
		t.Fatalf("the repair changed %q", changed)
	}
	if readFile(t, filepath.Join(dir, cdnPath)) != origBefore {
		t.Fatal("the note that keeps the id was rewritten")
	}
	after := readFile(t, filepath.Join(dir, cdnCopy))
	if wantText := strings.Replace(copyBefore, "id: "+cdnID, "id: "+want.NewID, 1); after != wantText {
		t.Fatalf("the copy should differ only by its id:\n%s", after)
	}
	if tr := gitOut(t, dir, "log", "-1", "--format=%(trailers:key=Cairn-Note,valueonly,separator=)"); tr != want.NewID {
		t.Fatalf("Cairn-Note trailer %q", tr)
	}
	check("after the repair")
	if d := v.DuplicateIDs(); len(d) != 0 {
		t.Fatalf("still duplicated: %+v", d)
	}
	cleanAndSound(t, dir)
	if got, err := v.RepairDuplicateIDs("test", nil); err != nil || len(got) != 0 {
		t.Fatalf("a second repair: %+v %v", got, err)
	}
	if gitOut(t, dir, "rev-parse", "HEAD~1") != head {
		t.Fatal("a second repair committed")
	}

	// A vault opened from nothing (no cache) reads the same.
	v.Close()
	os.RemoveAll(filepath.Join(dir, CacheDir))
	v2, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	v = v2
	check("after a fresh open")
}

func TestIDRepairLeavesAPersonsEditAlone(t *testing.T) {
	v, dir := vaultWithCopy(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	edited := readFile(t, filepath.Join(dir, cdnCopy)) + "\nA person is typing here.\n"
	os.WriteFile(filepath.Join(dir, cdnCopy), []byte(edited), 0o644)
	got, err := v.RepairDuplicateIDs("test", nil)
	if err != nil || len(got) != 1 || got[0].Repaired || !strings.Contains(got[0].Left, "not committed") {
		t.Fatalf("repair over an edit in progress: %+v %v", got, err)
	}
	if gitOut(t, dir, "rev-parse", "HEAD") != head || readFile(t, filepath.Join(dir, cdnCopy)) != edited {
		t.Fatal("the repair touched a note being edited")
	}
}

func TestIDOrderPutsTheOriginalBeforeItsCopies(t *testing.T) {
	set := []string{"a/Pricing 1.md", "a/Pricing copy.md", "a/Pricing.md", "a/Ab.md"}
	got := idOrder(set)
	if want := []string{"a/Ab.md", "a/Pricing.md", "a/Pricing 1.md", "a/Pricing copy.md"}; !slices.Equal(got, want) {
		t.Fatalf("idOrder = %q, want %q", got, want)
	}
}
