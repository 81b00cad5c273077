package search

import (
	"strings"
	"testing"
)

// Highlighting and cutting never break a link, a URL, code or bold.
func TestSnippetKeepsMarkdownAndLinksWhole(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	filler := strings.Repeat("Other words fill this part of the note. ", 12)
	for _, c := range []struct {
		name, body, query string
		want, not         []string
	}{
		{"wikilink", "Status pages go through the CDN; see [[Decision CDN provider]] and ![[CDN diagram]].", "cdn",
			[]string{"**CDN**;", "[[Decision CDN provider]]", "![[CDN diagram]]"}, []string{"[[Decision **CDN**", "![[**CDN**"}},
		{"link destination", "Read [the CDN notes](https://cdn.example.com/cdn-notes) first, or https://cdn.example.com/status.", "cdn",
			[]string{"[the **CDN** notes](https://cdn.example.com/cdn-notes)", "https://cdn.example.com/status"}, []string{"**cdn**"}},
		{"code", "Purge the CDN with `cdn purge --all` or:\n\n```bash\ncdn purge --zone eu\n```\n\nThen check the CDN.", "cdn",
			[]string{"`cdn purge --all`", "`cdn purge --zone eu`", "**CDN** with"}, []string{"```", "`**cdn**"}},
		{"strong", "**CDN provider:** Cloudflare. The CDN caches pages.", "cdn",
			[]string{"**CDN provider:**", "The **CDN** caches"}, []string{"****"}},
		{"wikilink at the start edge", filler + "We chose [[Decision CDN provider with a long title for the edge]] over the rest, since the CDN " + filler, "cdn",
			nil, nil},
	} {
		s := ix.Snippet(c.body, c.query, nil)
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: %q lacks %q", c.name, s, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(s, n) {
				t.Errorf("%s: %q has %q", c.name, s, n)
			}
		}
		if strings.Count(s, "[[") != strings.Count(s, "]]") || strings.Count(s, "`")%2 != 0 || strings.Count(s, "**")%2 != 0 {
			t.Errorf("%s: unbalanced Markdown in %q", c.name, s)
		}
	}
}

// Wherever the window falls, a link it touches is shown whole: every cut
// of a body dense with links, code and bold leaves them balanced.
func TestSnippetNeverCutsALink(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	var b strings.Builder
	for i := range 40 {
		b.WriteString("Word" + strings.Repeat("x", i%7) + " see [[Note number " + strings.Repeat("y", i%5) + " here]] and [a link](https://example.com/p" + strings.Repeat("z", i%3) + ") with `some code` and **bold words** near. ")
	}
	body := b.String()
	for start := 0; start < len(body)-snippetBytes; start += 7 {
		s := excerpt(body, start, start+snippetBytes, nil)
		if strings.Count(s, "[[") != strings.Count(s, "]]") || strings.Count(s, "](") != strings.Count(s, "https://") ||
			strings.Count(s, "`")%2 != 0 || strings.Count(s, "**")%2 != 0 {
			t.Fatalf("cut at %d breaks Markdown: %q", start, s)
		}
	}
}

func TestFencesAndInlineCode(t *testing.T) {
	body := "a\n```go\nx := `q`\n```\nb\n~~~\nopen"
	fs := fences(body, 0, len(body))
	if len(fs) != 2 || body[fs[0].innerStart:fs[0].innerEnd] != "x := `q`\n" || fs[1].end != len(body) {
		t.Fatalf("fences: %+v", fs)
	}
	if got := inlineCode("x := `q`\n"); got != "`` x := `q` ``" {
		t.Errorf("inlineCode: %q", got)
	}
	if got := inlineCode("`a`"); got != "`` `a` ``" {
		t.Errorf("inlineCode: %q", got)
	}
}
