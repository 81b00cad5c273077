package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

// A note grown too large in an editor must never be taken for deleted.
func TestOversizedHandEditIsNotADeletion(t *testing.T) {
	v, dir := sampleVault(t)
	path := filepath.Join(dir, "acme/launch/Pricing.md")
	big := readFile(t, path) + strings.Repeat("log line\n", 600000) // ~5 MB
	os.WriteFile(path, []byte(big), 0o644)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	if _, err := v.GetNote(owner, "[[Pricing]]", false, ""); err == nil {
		t.Fatal("reading an oversized note should fail")
	}
	if readFile(t, path) != big {
		t.Fatal("the person's edit was lost")
	}
	if gitOut(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("something was committed")
	}
}

// A project marker added while the vault is open (by the command line or by
// hand and committed) takes effect for access at once.
func TestNewSubProjectClosesAccessAtOnce(t *testing.T) {
	v, dir := sampleVault(t)
	if _, err := v.GetNote(camille, "acme/handbook/Glossary.md", false, ""); err != nil {
		t.Fatalf("camille reads acme: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "acme/handbook", ProjectMarker), []byte("handle: acme/handbook\nname: Handbook\n"), 0o644)
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-qm", "handbook is a project now")
	if _, err := v.GetNote(camille, "acme/handbook/Glossary.md", false, ""); !IsNotFound(err) {
		t.Fatalf("camille still reads the new sub-project: %v", err)
	}
}

func TestRevokeRemovesGrantsStoredUnderAnOldHandle(t *testing.T) {
	v, _ := sampleVault(t)
	// access.yaml grants sam write on acme/platform; rename the project so
	// the grant is under what is now an alias, then revoke by the new handle.
	if _, err := v.RenameProject(owner, "acme/platform", "acme/ops", ""); err != nil {
		t.Fatal(err)
	}
	if ps, _ := v.Projects(sam); len(ps) != 1 || ps[0].Handle != "acme/ops" {
		t.Fatalf("sam after the rename: %+v", ps)
	}
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
	if err := v.Grant(human, "sam", "acme/ops", access.RoleNone); err != nil {
		t.Fatal(err)
	}
	if ps, _ := v.Projects(sam); len(ps) != 0 {
		t.Fatalf("sam keeps access after revoke: %+v", ps)
	}
}

func TestAnAliasNeverBorrowsAnotherProjectsGrants(t *testing.T) {
	v, dir := sampleVault(t)
	// A hand-edited marker claims the alias "acme" (the root project's handle).
	os.WriteFile(filepath.Join(dir, "acme/infra", ProjectMarker), []byte("handle: acme/platform\nname: Platform\naliases: [acme/infra, acme]\n"), 0o644)
	v.rescan()
	for _, p := range mustProjects(t, v, camille) {
		if p.Handle == "acme/platform" {
			t.Fatal("camille's grant on acme reaches acme/platform through a clashing alias")
		}
	}
}

func mustProjects(t *testing.T, v *Vault, c access.Caller) []ProjectAccess {
	ps, err := v.Projects(c)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestProjectAtTheVaultRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	if _, err := Init(dir, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ProjectMarker), []byte("handle: root\nname: Root\n"), 0o644)
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	w, err := v.CreateNote(owner, CreateArgs{Project: "root", Body: "# At the root"})
	if err != nil || w.Path != "At the root.md" {
		t.Fatalf("create in a root project: %+v %v", w, err)
	}
}

func TestReplaceSectionUnderASetextHeading(t *testing.T) {
	v, _ := sampleVault(t)
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "# Setext\n\nSection\n-------\n\nold text\n\nNext\n----\n\nkept\n"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := v.EditNote(owner, EditArgs{Ref: w.ID, VersionToken: w.VersionToken, Operation: OpReplaceSection, Heading: "Section", Content: str("new text")})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := v.GetNote(owner, e.ID, true, "")
	if !strings.Contains(n.Content, "Section\n-------\n\nnew text\n\nNext\n----\n\nkept\n") {
		t.Fatalf("setext section:\n%s", n.Content)
	}
}

func TestReservedNamesInAnyCase(t *testing.T) {
	v, _ := sampleVault(t)
	_, err := v.ListNotes(owner, ListArgs{Path: "People/camille"})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "path" {
		t.Fatalf("People/camille: %v", err)
	}
}
