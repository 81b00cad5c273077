package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFrontmatterRoundTripKeepsOrderCommentsAndBody(t *testing.T) {
	raw := "---\n# reviewed by Sam\ntype: decision   # inline\ntags: [launch, pricing]\ncreated: 2026-09-14\naliases:\n  - Old title\n---\n# Launch plan\n\nBody  with  spaces\r\nand CRLF\n"
	n := ParseNote("a/Launch plan.md", []byte(raw))
	if n.Title != "Launch plan" || n.Type != "decision" || strings.Join(n.Tags, ",") != "launch,pricing" || n.Aliases[0] != "Old title" {
		t.Fatalf("parsed %+v", n)
	}
	if n.IDSaved || n.ID != DerivedID("a/Launch plan.md") {
		t.Fatalf("derived id expected, got %s", n.ID)
	}
	if string(n.Render()) != raw {
		t.Fatalf("render without change must be byte-identical")
	}
	if err := n.EnsureID(); err != nil {
		t.Fatal(err)
	}
	out := string(n.Render())
	for _, want := range []string{"# reviewed by Sam", "type: decision   # inline", "tags: [launch, pricing]", "created: 2026-09-14", "id: " + n.ID} {
		if !strings.Contains(out, want) {
			t.Errorf("lost %q in:\n%s", want, out)
		}
	}
	if strings.Index(out, "id: ") > strings.Index(out, "type:") {
		t.Errorf("id should come first:\n%s", out)
	}
	if !strings.HasSuffix(out, "---\n# Launch plan\n\nBody  with  spaces\r\nand CRLF\n") {
		t.Errorf("body not verbatim:\n%q", out)
	}
	again := ParseNote(n.Path, []byte(out))
	if again.ID != n.ID || !again.IDSaved {
		t.Fatalf("id not read back: %s", again.ID)
	}
}

func TestTitleAndOutline(t *testing.T) {
	cases := map[string]string{
		"# Title\nx":              "Title",
		"\n\n#   Spaced   #\n":    "Spaced",
		"Intro\n# Late":           "",
		"## Two\n":                "",
		"#NoSpace\n":              "",
		"```\n# code\n```\n# T\n": "",
	}
	for body, want := range cases {
		if got := TitleOf([]byte(body)); got != want {
			t.Errorf("TitleOf(%q) = %q, want %q", body, got, want)
		}
	}
	o := Outline([]byte("# T\n\n## A\ntext\n```\n# not a heading\n```\n### B\n"))
	if len(o) != 3 || o[1].Text != "A" || o[1].Level != 2 || o[2].Text != "B" || o[2].Line != 8 {
		t.Fatalf("outline %+v", o)
	}
}

func TestBrokenFrontmatterStillReads(t *testing.T) {
	n := ParseNote("x.md", []byte("---\nkey: [unclosed\n---\n# X\n"))
	if n.FrontmatterError() == nil {
		t.Fatal("want a frontmatter error")
	}
	if err := n.EnsureID(); err == nil {
		t.Fatal("writing into a broken frontmatter must be refused")
	}
}

func TestFileNameAndCleanRel(t *testing.T) {
	if got, err := FileName(`A/B: "c"? [d]`); got != "A B c d.md" || err != nil {
		t.Errorf("FileName = %q, %v", got, err)
	}
	for _, bad := range []string{"../x", "a/../../b", "/etc", ".git/config", "a/.cairn/x", "a\\b", ".trash/x", "a/\x01b", "a/\u202eb", "a\ufeff/b"} {
		if _, err := cleanRel("path", bad); err == nil {
			t.Errorf("cleanRel(%q) accepted", bad)
		} else if !strings.Contains(err.Error(), "argument path") {
			t.Errorf("error does not name the argument: %v", err)
		}
	}
	if p, err := cleanRel("path", "/acme/launch/"); err == nil {
		t.Errorf("absolute path accepted as %q", p)
	}
	if p, err := cleanRel("path", "acme/launch/"); err != nil || p != "acme/launch" {
		t.Errorf("cleanRel = %q, %v", p, err)
	}
}

func TestCRLFFrontmatterStaysCRLF(t *testing.T) {
	n := ParseNote("w.md", []byte("---\r\ntype: note\r\n---\r\n# W\r\nbody\r\n"))
	if err := n.EnsureID(); err != nil {
		t.Fatal(err)
	}
	out := string(n.Render())
	if strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") {
		t.Fatalf("mixed line endings: %q", out)
	}
}

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
