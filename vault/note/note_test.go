package note

import (
	"fmt"
	"strings"
	"testing"
)

func TestFrontmatterRoundTripKeepsOrderCommentsAndBody(t *testing.T) {
	raw := "---\n# reviewed by Sam\ntype: decision   # inline\ntags: [launch, pricing]\ncreated: 2026-09-14\naliases:\n  - Old title\n---\n# Launch plan\n\nBody  with  spaces\r\nand CRLF\n"
	n := Parse("a/Launch plan.md", []byte(raw))
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
	again := Parse(n.Path, []byte(out))
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
	n := Parse("x.md", []byte("---\nkey: [unclosed\n---\n# X\n"))
	if n.FrontmatterError() == nil {
		t.Fatal("want a frontmatter error")
	}
	if err := n.EnsureID(); err == nil {
		t.Fatal("writing into a broken frontmatter must be refused")
	}
}

func TestCRLFFrontmatterStaysCRLF(t *testing.T) {
	n := Parse("w.md", []byte("---\r\ntype: note\r\n---\r\n# W\r\nbody\r\n"))
	if err := n.EnsureID(); err != nil {
		t.Fatal(err)
	}
	out := string(n.Render())
	if strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") {
		t.Fatalf("mixed line endings: %q", out)
	}
}

// get_note shows a note's dates as written, not as times in another form.
func TestFrontmatterDatesReadAsWritten(t *testing.T) {
	n := Parse("x.md", []byte("---\ncreated: 2026-09-24\ndue: 2026-10-01T09:30:00\nold: 2026-11-29T19:03:00Z\nlist: [2026-01-02]\n---\n"))
	v, err := n.FrontmatterValues()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(v["created"], " ", v["due"], " ", v["old"], " ", v["list"]) != "2026-09-24 2026-10-01T09:30:00 2026-11-29T19:03:00Z [2026-01-02]" {
		t.Fatalf("%#v", v)
	}
}
