package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A frontmatter that parses as YAML but not as values (here a key given
// twice, found by FuzzFrontmatter) is reported, not shown silently empty;
// a write keeps it as written.
func TestUndecodableFrontmatterIsReported(t *testing.T) {
	v, dir := sampleVault(t)
	p := filepath.Join(dir, "acme", "Dup keys.md")
	if err := os.WriteFile(p, []byte("---\nstatus: draft\nstatus: final\n---\n# Dup keys\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "add", "acme/Dup keys.md")
	gitOut(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "by hand")
	n, err := v.GetNote(owner, "acme/Dup keys.md", false, "")
	if err != nil || !strings.Contains(n.Warning, "already defined") {
		t.Fatalf("%v %+v", err, n)
	}
	w, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpAppend, Content: str("More.")})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); !strings.Contains(got, "status: draft\nstatus: final\n") || !strings.HasSuffix(got, "More.\n") {
		t.Fatalf("after a write (%s):\n%s", w.VersionToken, got)
	}
}
