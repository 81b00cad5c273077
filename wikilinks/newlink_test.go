package wikilinks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/wikilinks/obsidianref"
)

// newLinkVault is a vault whose file names repeat across folders: at the
// root and below, in sibling folders, a relative path that is also a
// root path, a tie, a name no link can carry, and attachments.
var newLinkVault = []string{
	"Spec.md", "a/Spec.md", "a/sub/Spec.md", "b/Spec.md",
	"sub/Note.md", "a/sub/Note.md",
	"c/Unique.md", "a/My Note.md", "b/My Note.md",
	"x/Tie.md", "y/Tie.md",
	"x/C# notes.md",
	"assets/pic.png", "a/pic.png", "docs/a.pdf",
	"Src.md", "a/Src.md", "a/sub/Src.md", "b/Src.md", "z/S.md",
}

func newLinkGraph() *Graph {
	g := New()
	for i, p := range newLinkVault {
		if strings.HasSuffix(p, ".md") {
			g.Set(Note{ID: fmt.Sprintf("N%d", i), Path: p, Title: "Title " + p})
		} else {
			g.SetFile(p)
		}
	}
	return g
}

// Every file, linked from every note in every format, wikilink or
// Markdown link, gets a text the reference resolver (Obsidian's rules)
// opens to that very file; the one file whose name no link can carry is
// refused.
func TestNewLinkTextOpensTheFileMeantInObsidian(t *testing.T) {
	g := newLinkGraph()
	for _, target := range newLinkVault {
		for _, src := range []string{"Src.md", "a/Src.md", "a/sub/Src.md", "b/Src.md", "z/S.md"} {
			for _, format := range []string{FormatShortest, FormatRelative, FormatAbsolute, ""} {
				for _, md := range []bool{false, true} {
					text, ok := g.NewLinkText(target, src, format, md)
					if target == "x/C# notes.md" {
						if ok {
							t.Fatalf("%s from %s (%s, md %v): %q, but # cannot be in a link path", target, src, format, md, text)
						}
						continue
					}
					if !ok {
						t.Fatalf("%s from %s (%s, md %v): no text", target, src, format, md)
					}
					if got, ok := obsidianref.Resolve(newLinkVault, src, text); !ok || got != target {
						t.Fatalf("%s from %s (%s, md %v): %q opens %q in Obsidian", target, src, format, md, text, got)
					}
					if md != strings.HasSuffix(text, ".md") && strings.HasSuffix(target, ".md") {
						t.Fatalf("%s (md %v): %q: a Markdown link keeps .md, a wikilink drops it", target, md, text)
					}
				}
			}
		}
	}
}

// The texts are Obsidian's: the name when unique, else the full path; the
// path from the note's folder, "./" only where Obsidian's own text would
// open a root file; the full path.
func TestNewLinkTextIsObsidians(t *testing.T) {
	g := newLinkGraph()
	for _, c := range []struct {
		target, src, format string
		md                  bool
		want                string
	}{
		{"c/Unique.md", "a/Src.md", FormatShortest, false, "Unique"},
		{"c/Unique.md", "a/Src.md", "", true, "Unique.md"},
		{"c/Unique.md", "a/Src.md", "bogus", false, "Unique"},
		{"a/Spec.md", "a/Src.md", FormatShortest, false, "a/Spec"},
		{"Spec.md", "a/Src.md", FormatShortest, false, "Spec"},
		{"docs/a.pdf", "a/Src.md", FormatShortest, false, "a.pdf"},
		{"a/pic.png", "b/Src.md", FormatShortest, false, "a/pic.png"},
		{"x/Tie.md", "z/S.md", FormatShortest, false, "x/Tie"},
		{"a/My Note.md", "a/Src.md", FormatShortest, true, "a/My Note.md"},
		{"a/My Note.md", "a/Src.md", FormatRelative, false, "My Note"},
		{"a/Spec.md", "a/Src.md", FormatRelative, false, "./Spec"}, // "Spec" opens the root Spec.md
		{"a/sub/Spec.md", "a/Src.md", FormatRelative, false, "sub/Spec"},
		{"a/sub/Note.md", "a/Src.md", FormatRelative, false, "./sub/Note"},
		{"b/Spec.md", "a/sub/Src.md", FormatRelative, false, "../../b/Spec"},
		{"Spec.md", "a/Src.md", FormatRelative, true, "../Spec.md"},
		{"c/Unique.md", "Src.md", FormatRelative, false, "c/Unique"},
		{"a/sub/Spec.md", "b/Src.md", FormatAbsolute, false, "a/sub/Spec"},
		{"assets/pic.png", "b/Src.md", FormatAbsolute, false, "assets/pic.png"},
	} {
		if got, ok := g.NewLinkText(c.target, c.src, c.format, c.md); !ok || got != c.want {
			t.Errorf("%s from %s (%q, md %v): %q %v, want %q", c.target, c.src, c.format, c.md, got, ok, c.want)
		}
	}
}

// A note being created counts: its own file name makes the target's name
// shared, and its folder is where the link is read from.
func TestNewLinkTextCountsPendingNotes(t *testing.T) {
	g := New()
	g.Set(Note{ID: "A", Path: "a/Spec.md", Title: "Spec"})
	if got, _ := g.NewLinkText("a/Spec.md", "b/Spec.md", FormatShortest, false); got != "Spec" {
		t.Fatalf("alone: %q", got)
	}
	got, ok := g.NewLinkText("a/Spec.md", "b/Spec.md", FormatShortest, false, Note{ID: "B", Path: "b/Spec.md", Title: "Spec"})
	files := []string{"a/Spec.md", "b/Spec.md"}
	if to, _ := obsidianref.Resolve(files, "b/Spec.md", got); !ok || got != "a/Spec" || to != "a/Spec.md" {
		t.Fatalf("with the new note: %q %v opens %q", got, ok, to)
	}
	if _, ok := g.NewLinkText("a/Spec.md", "b/x.md", FormatShortest, false); !ok {
		t.Fatal("the graph itself is unchanged")
	}
	if r := g.Resolve("b/Spec"); r.Status != Unresolved {
		t.Fatalf("a pending note is not added: %+v", r)
	}
}

func TestRelativePath(t *testing.T) {
	for _, c := range [][3]string{
		{"", "a/b/N", "a/b/N"},
		{"a", "a/N", "N"},
		{"a", "a/b/N", "b/N"},
		{"a/b", "a/N", "../N"},
		{"a/b", "N", "../../N"},
		{"a/b", "c/d/N", "../../c/d/N"},
		{"a", "ab/N", "../ab/N"},
		{"a", "a", "../a"},
	} {
		if got := relativePath(c[0], c[1]); got != c[2] {
			t.Errorf("relativePath(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
