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
)

var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	// Below 200, the Markdown link parser's priority: "[[" is a wikilink
	// before it can be a link label.
	goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(wikiParser{}, 199))),
)

// Parse returns the links of a Markdown body (without frontmatter), in
// order: wikilinks and embeds, and Markdown links and images to vault
// files (not external URLs). Nothing in code (code spans, fenced or
// indented code blocks) or in a %% comment %% is a link.
func Parse(body []byte) []Link {
	if !bytes.Contains(body, []byte("[")) {
		return nil
	}
	return parse(neutralise(body)) // bounded parsing, same links, same offsets (guard.go)
}

func parse(body []byte) []Link {
	doc := md.Parser().Parse(text.NewReader(body))
	type found struct {
		l     Link
		start int
	}
	var all []found
	var code codeRanges
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var (
			l     Link
			ok    bool
			start int
		)
		switch t := n.(type) {
		case *wikiNode:
			l, ok = wikiLink(t, body)
			start = t.start
		case *ast.Link:
			l, ok = markdownLink(t.Destination, t.Reference != nil, false, nodeText(t, body), body)
			start = t.Pos()
		case *ast.Image:
			l, ok = markdownLink(t.Destination, t.Reference != nil, true, nodeText(t, body), body)
			start = t.Pos()
		case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock:
			code.add(n, body)
			return ast.WalkSkipChildren, nil
		default:
			return ast.WalkContinue, nil
		}
		if ok {
			l.InTable = inTable(n)
			all = append(all, found{l, start})
		}
		if _, wiki := n.(*wikiNode); wiki {
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil // an image inside a link's text is a link too
	})
	if len(all) == 0 {
		return nil
	}
	hidden := comments(body, code)
	out := make([]Link, 0, len(all))
	line, at := 1, 0
	for _, f := range all {
		if f.start >= 0 && inRanges(hidden, f.start) {
			continue
		}
		if f.start > at && f.start <= len(body) {
			line += bytes.Count(body[at:f.start], []byte{'\n'})
			at = f.start
		}
		f.l.Line = line
		out = append(out, f.l)
	}
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

// ParseRef reads a link written as a frontmatter value, "[[Title#frag|label]]"
// (a typed link or a link property), or a bare "Title": its target and
// fragment, split at the first '#' as Obsidian does.
func ParseRef(s string) (target, fragment string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		s = s[2 : len(s)-2]
	}
	if i := strings.Index(s, "|"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, "\\")
	if i := strings.Index(s, "#"); i >= 0 {
		fragment = strings.TrimSpace(s[i+1:])
		s = s[:i]
	}
	return strings.TrimSpace(s), fragment
}
