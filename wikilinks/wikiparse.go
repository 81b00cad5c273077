package wikilinks

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// wikiNode is a [[…]] or ![[…]] found by wikiParser: goldmark placed it
// outside code, and it remembers where it sits in the source.
type wikiNode struct {
	ast.BaseInline
	embed bool
	start int // offset of "[[" or "![["
	inner text.Segment
}

var kindWiki = ast.NewNodeKind("CairnWikilink")

func (n *wikiNode) Kind() ast.NodeKind { return kindWiki }

func (n *wikiNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Inner": string(n.inner.Value(source))}, nil)
}

// wikiParser reads Obsidian's wikilinks. It replaces the go.abhg.dev
// wikilink parser, which split a target at its last '#': Obsidian splits
// at the first ([[Note#H1#H2]] is the heading H2 under H1 of Note) and
// at the first '|'. A link closes on its line at the first "]]"; one
// whose text holds another "[[" is not a link here (the inner one is),
// and "[[[" opens at its last two brackets.
type wikiParser struct{}

func (wikiParser) Trigger() []byte { return []byte{'!', '['} }

func (wikiParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	open := 2
	embed := false
	switch {
	case bytes.HasPrefix(line, []byte("[[")):
	case bytes.HasPrefix(line, []byte("![[")):
		open, embed = 3, true
	default:
		return nil
	}
	if len(line) > open && line[open] == '[' {
		// "[[[Note]]]" is "[" then [[Note]] then "]": a run of brackets
		// opens the link at its last two, as Obsidian reads it.
		return nil
	}
	stop := bytes.Index(line[open:], []byte("]]"))
	if stop < 0 {
		return nil
	}
	inner := line[open : open+stop]
	if bytes.Contains(inner, []byte("[[")) || len(bytes.TrimSpace(inner)) == 0 {
		return nil
	}
	n := &wikiNode{embed: embed, start: seg.Start, inner: text.NewSegment(seg.Start+open, seg.Start+open+stop)}
	block.Advance(open + stop + 2)
	return n
}

// wikiLink reads a wikiNode into a Link (ok false when it names nothing:
// [[|x]], [[#]]). body is what was parsed.
func wikiLink(n *wikiNode, body []byte) (Link, bool) {
	in := n.inner
	raw := in.Value(body)
	label := ""
	hasLabel := false
	if i := bytes.IndexByte(raw, '|'); i >= 0 {
		label = string(bytes.TrimSpace(raw[i+1:]))
		raw, hasLabel = raw[:i], true
	}
	// In a table the pipe is written \| : its backslash ends the target.
	raw = bytes.TrimSuffix(raw, []byte{'\\'})
	path, frag := raw, []byte(nil)
	if i := bytes.IndexByte(raw, '#'); i >= 0 {
		path, frag = raw[:i], raw[i+1:]
	}
	target := string(bytes.TrimSpace(path))
	l := Link{Target: target, Fragment: string(bytes.TrimSpace(frag)), Type: TypeLinksTo, Form: FormWiki, Offset: -1, Len: len(target)}
	if n.embed {
		l.Type = TypeEmbeds
	}
	if hasLabel {
		l.Label = label
	}
	if target == "" && l.Fragment == "" {
		return Link{}, false
	}
	if target != "" {
		l.Offset = in.Start + bytes.Index(path, []byte(target))
	}
	return l, true
}
