package doctor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
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
func vaultWithCopy(t *testing.T) (*vault.Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vault.Init(dir, vault.InitOptions{From: "../../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	orig := readFile(t, filepath.Join(dir, cdnPath))
	cp := strings.Replace(orig, "# Decision CDN provider", "# CDN provider, second opinion", 1)
	if err := os.WriteFile(filepath.Join(dir, cdnCopy), []byte(cp), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "add", "--", cdnCopy)
	gitOut(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "copy a note")
	v, err := vault.Open(dir, vault.Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

func TestDoctorReportsACopiedIDAndFixRepairsIt(t *testing.T) {
	v, dir := vaultWithCopy(t)
	found := false
	for _, f := range Check(v) {
		if f.Check == "ids" {
			found = strings.Contains(f.Message, cdnCopy) && strings.Contains(f.Message, cdnID) && strings.Contains(f.Message, cdnPath)
		}
	}
	if !found {
		t.Fatal("doctor does not name the copy, the id and the note that keeps it")
	}
	did, err := Repair(v)
	if err != nil || !slices.ContainsFunc(did, func(s string) bool { return strings.Contains(s, cdnCopy) }) {
		t.Fatalf("doctor --fix: %q %v", did, err)
	}
	for _, f := range Check(v) {
		if f.Check == "ids" {
			t.Fatalf("still reported: %s", f.Message)
		}
	}
	cleanAndSound(t, dir)
}
