package wikilinks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedNotes adds the sample vault's notes (every link form people write)
// to a fuzz corpus, plus the hand-written cases.
func seedNotes(f *testing.F, extra ...string) {
	f.Helper()
	_ = filepath.WalkDir("../sample-vault", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

var linkSeeds = []string{
	"[[Title]] [[ Spaced | label ]] [[Page#Heading]] [[Page#^block-1]] ![[Embedded]] [[#Local]]",
	"| a | b |\n|---|---|\n| [[Cell\\|shown]] | x |\n",
	"```\n[[Not a link]]\n```\n`[[nor this]]` [[a#b#c]] [[x\\]] [[]] [[|]] [[ ]]",
	"[[a]]]] [[[[b]] [[c|d|e]] [a]([[x]]) <[[y]]> **[[z]]**",
	"[[\uFFFD\uFFFD]] [[Invoice \u202efdp.exe]] [[CON]] [[..]] [[/]]",
	"> [[quoted]]\n- [[item]]\n1. [[numbered]]\n\n    [[indented code]]\n",
	"[t](Note.md) [u](Folder/My%20Note.md#Part%20Two) [v](<Folder/My Note.md>) ![](a.pdf) [w](../x/Note.md) [e](https://x.y) [m](mailto:a@b.c)",
	"[a\\_b](a\\_b.md) [p](a(b).md) [[Note#H1#H2|x]] [s](#Local) [r][ref]\n\n[ref]: Note.md\n",
	"%% [[hidden]] %% [[shown]] %%\nmulti [[hidden too]]\n%% `%%` [[after code]]\n%% unclosed [[gone]]",
}

// Parse never panics, and every link it places in the body is where it
// says: Offset and Len frame exactly the target text.
func FuzzParse(f *testing.F) {
	seedNotes(f, linkSeeds...)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, l := range Parse(body) {
			checkPlaced(t, body, l)
		}
	})
}

func checkPlaced(t *testing.T, body []byte, l Link) {
	t.Helper()
	if l.Offset < 0 {
		return // not placed: never rewritten
	}
	if l.Offset+l.Len > len(body) {
		t.Fatalf("link %+v lies past the end of %q", l, body)
	}
	raw := body[l.Offset : l.Offset+l.Len]
	if l.Form == FormMarkdown {
		if decode(raw) != l.Target || l.Encoded != (string(raw) != l.Target) {
			t.Fatalf("link %+v: %q at its offset does not read as its target in %q", l, raw, body)
		}
		return
	}
	if l.Len != len(l.Target) || string(raw) != l.Target {
		t.Fatalf("link %+v is not at its offset in %q", l, body)
	}
}

// Rewriting a placed link's target as cairn does (a splice at its offset,
// spelled in the link's style) leaves every other link as it was and makes
// that link name the new target: a rename or move never damages a note's
// other links.
func FuzzRewrite(f *testing.F) {
	seedNotes(f, linkSeeds...)
	f.Fuzz(func(t *testing.T, body []byte) {
		links := Parse(body)
		for i, l := range links {
			if l.Offset < 0 || strings.ContainsAny(l.Target, "|#[]") {
				continue // cairn never writes such a target: no title holds them
			}
			const target = "acme/launch/New name"
			spelled := l.Spell(target)
			out := append(append(append([]byte{}, body[:l.Offset]...), spelled...), body[l.Offset+l.Len:]...)
			again := Parse(out)
			if len(again) != len(links) {
				t.Fatalf("rewriting link %d of %q to %q: %d links, then %d in %q", i, body, target, len(links), len(again), out)
			}
			for j, m := range again {
				want := links[j]
				if j == i {
					want.Target, want.Len = target, len(spelled)
				}
				if m.Target != want.Target || m.Fragment != want.Fragment || m.Type != want.Type {
					t.Fatalf("rewriting link %d of %q: link %d became %+v, want %+v (in %q)", i, body, j, m, want, out)
				}
				checkPlaced(t, out, m)
			}
			if !bytes.Contains(out, []byte(spelled)) {
				t.Fatalf("the new target is not in %q", out)
			}
		}
	})
}

// ParseRef (a typed link's `to:`) never panics and gives trimmed parts.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"[[Pricing]]", "[[Pricing#Tiers|x]]", " Launch plan ", `[[a/b/C\|x]]`, "[[a#b#c]]", "[[", "]]", "[[]]", "#", "|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		target, fragment := ParseRef(s)
		if target != strings.TrimSpace(target) || fragment != strings.TrimSpace(fragment) {
			t.Fatalf("ParseRef(%q) = %q, %q: not trimmed", s, target, fragment)
		}
		if strings.Contains(target, "|") {
			t.Fatalf("ParseRef(%q) = %q keeps the label", s, target)
		}
	})
}
