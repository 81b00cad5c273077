package note

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// obsidianFrontmatter is frontmatter as people and Obsidian write it:
// lists inline and in blocks (indented or not), dates quoted and not,
// comments on their own lines and after values, extra spaces, folded
// and literal multi-line strings, a nested map, an empty value.
const obsidianFrontmatter = `---
# reviewed by Sam
title:    Launch plan   # spaced out
tags: [launch,pricing]
aliases:
- Launch v1
- "Plan: launch"
cssclasses:
  - wide
created: 2026-09-14
due: "2026-10-01T09:30:00"
done: false
rating: 4.5
summary: >
  A folded
  summary.
notes: |
  line one

  line three
related:
  - "[[Pricing]]"   # the grid
  # more to come
owner: {name: Sam, team: infra}
empty:

# a closing thought
---
# Launch plan
Body.
`

// fmLines is a note's frontmatter lines.
func fmLines(n *Note) []string { return strings.SplitAfter(string(n.fmRaw), "\n") }

// withoutLines is lines less the ones listed (each once).
func withoutLines(lines []string, drop ...string) []string {
	var out []string
	for _, s := range lines {
		if i := indexOf(drop, s); i >= 0 {
			drop = append(drop[:i], drop[i+1:]...)
			continue
		}
		out = append(out, s)
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("%s: other lines changed:\n--- got\n%s--- want\n%s", what, strings.Join(got, ""), strings.Join(want, ""))
	}
}

// A write changes the lines of the property it touches and no other:
// every other line, comments and blank lines included, stays byte for
// byte, and the body too.
func TestFrontmatterWriteTouchesOnlyItsProperty(t *testing.T) {
	cases := []struct {
		name     string
		do       func(n *Note) error
		old, new []string // the lines that go, the lines that come
	}{
		{"replace a scalar", func(n *Note) error {
			return n.SetKey("done", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		},
			[]string{"done: false\n"}, []string{"done: true\n"}},
		{"add a key", func(n *Note) error { return n.SetKey("status", StrNode("draft")) },
			nil, []string{"status: draft\n"}},
		{"add the id", func(n *Note) error { return n.SetKey("id", StrNode("01KB2ZJ5N3V7M1YB4E8W0QXR6T")) },
			nil, []string{"id: 01KB2ZJ5N3V7M1YB4E8W0QXR6T\n"}},
		{"delete a multi-line string", func(n *Note) error { return n.DeleteKey("notes") },
			[]string{"notes: |\n", "  line one\n", "\n", "  line three\n"}, nil},
		{"delete a nested map", func(n *Note) error { return n.DeleteKey("owner") },
			[]string{"owner: {name: Sam, team: infra}\n"}, nil},
		{"append to a block list", func(n *Note) error {
			seq := n.KeyNode("related")
			seq.Content = append(seq.Content, LinkItem("Launch date"))
			return n.SetKey("related", seq)
		}, []string{"  - \"[[Pricing]]\"   # the grid\n", "  # more to come\n"},
			[]string{"  - \"[[Pricing]]\" # the grid\n", "  # more to come\n", "  - \"[[Launch date]]\"\n"}},
		{"set an alias list", func(n *Note) error {
			return n.SetList("aliases", []string{"Launch v1", "Plan: launch", "Old plan"})
		},
			[]string{"- Launch v1\n", "- \"Plan: launch\"\n"},
			[]string{"- Launch v1\n", "- \"Plan: launch\"\n", "- Old plan\n"}},
		{"set an inline list", func(n *Note) error { return n.SetList("tags", []string{"launch", "pricing", "q4"}) },
			[]string{"tags: [launch,pricing]\n"}, []string{"tags: [launch, pricing, q4]\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := Parse("Launch plan.md", []byte(obsidianFrontmatter))
			before := fmLines(n)
			if err := c.do(n); err != nil {
				t.Fatal(err)
			}
			after := fmLines(n)
			sameLines(t, c.name, withoutLines(after, c.new...), withoutLines(before, c.old...))
			if len(after)-len(c.new) != len(before)-len(c.old) {
				t.Fatalf("%s: want lines %q to go and %q to come:\n%s", c.name, c.old, c.new, n.fmRaw)
			}
			if !strings.HasSuffix(string(n.Render()), "---\n# Launch plan\nBody.\n") {
				t.Fatalf("body changed:\n%s", n.Render())
			}
			if m := Parse(n.Path, n.Render()); m.FrontmatterError() != nil || m.Title != "Launch plan" {
				t.Fatalf("does not read back: %v", m.FrontmatterError())
			}
		})
	}
}

// Each case's property lands where people look for it: the id first,
// a new key after the last one (before a closing comment).
func TestFrontmatterNewKeysPlace(t *testing.T) {
	n := Parse("x.md", []byte(obsidianFrontmatter))
	if err := n.SetKey("status", StrNode("draft")); err != nil {
		t.Fatal(err)
	}
	if err := n.SetKey("id", StrNode("X1")); err != nil {
		t.Fatal(err)
	}
	out := string(n.fmRaw)
	if !strings.HasPrefix(out, "---\nid: X1\n# reviewed by Sam\n") {
		t.Fatalf("id not first:\n%s", out)
	}
	if !strings.Contains(out, "empty:\nstatus: draft\n\n# a closing thought\n---\n") {
		t.Fatalf("new key not after the last one:\n%s", out)
	}
}

// CRLF files stay CRLF, line for line.
func TestFrontmatterWriteKeepsCRLF(t *testing.T) {
	raw := strings.ReplaceAll(obsidianFrontmatter, "\n", "\r\n")
	n := Parse("x.md", []byte(raw))
	if err := n.SetList("related", []string{"[[Pricing]]", "[[Launch date]]"}); err != nil {
		t.Fatal(err)
	}
	out := string(n.Render())
	if strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") {
		t.Fatalf("mixed line endings: %q", out)
	}
	if !strings.Contains(out, "\r\n  - \"[[Launch date]]\"\r\n") || !strings.Contains(out, "title:    Launch plan   # spaced out\r\n") {
		t.Fatalf("%q", out)
	}
}

// What cannot be spliced safely (an anchor another key uses) is written
// whole, as before: values kept. A change that would leave no sound YAML
// (the anchor's own value replaced) is refused, and changes nothing.
func TestFrontmatterWithAnchorsFallsBackWhole(t *testing.T) {
	raw := "---\nbase: &b {a: 1}\nother: *b\n---\nx\n"
	n := Parse("x.md", []byte(raw))
	if err := n.SetKey("status", StrNode("draft")); err != nil {
		t.Fatal(err)
	}
	v, err := Parse("x.md", n.Render()).FrontmatterValues()
	if err != nil || v["status"] != "draft" || v["other"] == nil || v["base"] == nil {
		t.Fatalf("%v %#v\n%s", err, v, n.Render())
	}
	n = Parse("x.md", []byte(raw))
	if err := n.SetKey("base", StrNode("changed")); err == nil || string(n.Render()) != raw {
		t.Fatalf("want a refusal and no change: %v\n%s", err, n.Render())
	}
	if v, _ := n.FrontmatterValues(); v["other"] == nil {
		t.Fatalf("the note's values changed: %#v", v)
	}
}

// A note without frontmatter gets one, with the body kept.
func TestFrontmatterAddedToANoteWithout(t *testing.T) {
	n := Parse("x.md", []byte("# X\nbody\n"))
	if err := n.EnsureID(); err != nil {
		t.Fatal(err)
	}
	if got := string(n.Render()); got != "---\nid: "+n.ID+"\n---\n# X\nbody\n" {
		t.Fatalf("%q", got)
	}
}

// BenchmarkFrontmatterSetKey measures one property write into a
// people-written frontmatter (spliced), against re-encoding the block.
func BenchmarkFrontmatterSetKey(b *testing.B) {
	raw := []byte(obsidianFrontmatter)
	b.Run("splice", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			n := Parse("x.md", raw)
			if err := n.SetKey("status", StrNode("draft")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			n := Parse("x.md", raw)
			n.fmNode.Content = append(n.fmNode.Content, StrNode("status"), StrNode("draft"))
			if err := n.reencode(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
