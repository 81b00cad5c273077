package wikilinks

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// scheme matches a destination that names something outside the vault: a
// URL scheme (https:, mailto:, obsidian:, file:, a drive letter C:) or a
// network path (//host).
var scheme = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9+.\-]*:|//)`)

// markdownLink reads a goldmark link or image into a Link: ok false for
// what is not a vault link (an external URL, an empty destination, a
// reference-style link, which Obsidian's link index does not list).
// body is what goldmark parsed: the destination goldmark gives is a slice
// of it, which places the target exactly; a destination that cannot be
// placed so gives a link that is never rewritten (Offset -1).
func markdownLink(dest []byte, ref bool, embed bool, label string, body []byte) (Link, bool) {
	if ref || len(bytes.TrimSpace(dest)) == 0 || scheme.Match(dest) {
		return Link{}, false
	}
	off := -1
	if len(dest) > 0 && cap(dest) <= cap(body) {
		if o := cap(body) - cap(dest); o >= 0 && o+len(dest) <= len(body) && bytes.Equal(body[o:o+len(dest)], dest) {
			off = o
		}
	}
	rawPath, rawFrag := dest, []byte(nil)
	if i := bytes.IndexByte(dest, '#'); i >= 0 {
		rawPath, rawFrag = dest[:i], dest[i+1:]
	}
	target := decode(rawPath)
	l := Link{Target: strings.TrimSpace(target), Fragment: strings.TrimSpace(decode(rawFrag)), Label: label,
		Type: TypeLinksTo, Form: FormMarkdown, Offset: -1, Len: len(rawPath), Encoded: target != string(rawPath)}
	if embed {
		l.Type = TypeEmbeds
	}
	if l.Target == "" && l.Fragment == "" {
		return Link{}, false
	}
	if off >= 0 && l.Target != "" && l.Target == target {
		l.Offset = off
		l.Angle = off > 0 && body[off-1] == '<'
	}
	return l, true
}

// decode reads a destination part as Obsidian does: backslash escapes
// undone, then URL-decoded (kept as written when it is not valid
// percent-encoding, as in "100%.md").
func decode(raw []byte) string {
	s := string(raw)
	if strings.IndexByte(s, '\\') >= 0 {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) && isPunct(s[i+1]) {
				i++
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}

func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// nodeText is the text of a link's label: its text descendants, joined.
func nodeText(n ast.Node, body []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c == n {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(body))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}
