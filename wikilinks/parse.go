package wikilinks

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/wikilink"
)

// Edge types of links written in a body.
const (
	TypeLinksTo = "links_to"
	TypeEmbeds  = "embeds"
)

// Link is one link as written.
type Link struct {
	Target   string `json:"target"`             // trimmed; "" for a link to a heading of the same note
	Fragment string `json:"fragment,omitempty"` // a heading, or ^block-id
	Label    string `json:"label,omitempty"`
	Type     string `json:"type"`  // links_to, embeds, or a typed edge's type
	Typed    bool   `json:"typed"` // from the frontmatter's links: list
	// Where the target text sits in the body (for rewriting it); -1 for
	// typed links, which live in the frontmatter.
	Offset int `json:"-"`
	Len    int `json:"-"`
	// InTable says the link sits in a table cell, where a label's pipe
	// must be written \| (a bare | would end the cell).
	InTable bool `json:"-"`
}

var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(&wikilink.Parser{}, 199))),
)

// Parse returns the wikilinks of a Markdown body (without frontmatter),
// in order. Links in code blocks and code spans are not links.
func Parse(body []byte) []Link {
	if !bytes.Contains(body, []byte("[[")) {
		return nil
	}
	return parse(neutralise(body)) // bounded parsing, same links, same offsets (guard.go)
}

func parse(body []byte) []Link {
	doc := md.Parser().Parse(text.NewReader(body))
	var out []Link
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		wl, ok := n.(*wikilink.Node)
		if !ok {
			return ast.WalkContinue, nil
		}
		raw := bytes.TrimSuffix(wl.Target, []byte{'\\'})
		target := strings.TrimSpace(string(raw))
		l := Link{Target: target, Fragment: strings.TrimSpace(string(wl.Fragment)), Type: TypeLinksTo, Offset: -1, Len: len(target), InTable: inTable(n)}
		if wl.Embed {
			l.Type = TypeEmbeds
		}
		if c, ok := wl.FirstChild().(*ast.Text); ok && c.Segment.Start <= len(body) {
			// With a pipe the label starts after it; without, it is the
			// target text itself, right after the "[[".
			if open := bytes.LastIndex(body[:c.Segment.Start], []byte("[[")); open >= 0 && c.Segment.Start > open+2 {
				l.Label = strings.TrimSpace(string(c.Segment.Value(body)))
			}
			l.Offset = targetOffset(body, c.Segment.Start, target)
		}
		out = append(out, l)
		return ast.WalkSkipChildren, nil
	})
	return out
}

// inTable says whether n sits in a table cell.
func inTable(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if _, ok := p.(*extast.TableCell); ok {
			return true
		}
	}
	return false
}

// ParseRef reads a typed link's `to:` value: "[[Title#frag|label]]" or a
// bare "Title".
func ParseRef(s string) (target, fragment string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		s = s[2 : len(s)-2]
	}
	if i := strings.Index(s, "|"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, "\\")
	if i := strings.LastIndex(s, "#"); i >= 0 {
		fragment = strings.TrimSpace(s[i+1:])
		s = s[:i]
	}
	return strings.TrimSpace(s), fragment
}

// targetOffset finds where target is written in body, for the link whose
// label text starts at labelStart: after the last "[[" before the label.
// -1 when it cannot be found exactly (the link is then never rewritten).
func targetOffset(body []byte, labelStart int, target string) int {
	if target == "" || labelStart > len(body) {
		return -1
	}
	open := bytes.LastIndex(body[:labelStart], []byte("[["))
	if open < 0 {
		return -1
	}
	i := bytes.Index(body[open+2:], []byte(target))
	if i < 0 || len(bytes.TrimSpace(body[open+2:open+2+i])) > 0 {
		return -1
	}
	return open + 2 + i
}
