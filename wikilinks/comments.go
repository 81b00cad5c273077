package wikilinks

import (
	"bytes"
	"sort"

	"github.com/yuin/goldmark/ast"
)

// Obsidian's comments: everything from a "%%" to the next "%%", on one
// line or across lines, is hidden, links included; a "%%" never closed
// hides the rest of the note. A "%%" inside code (a code span, a fenced
// or indented code block) is text, neither opening nor closing one.

// codeRanges are the [start, end) byte ranges goldmark read as code.
type codeRanges [][2]int

func (c *codeRanges) add(n ast.Node, body []byte) {
	switch t := n.(type) {
	case *ast.CodeSpan:
		first, last := -1, -1
		for ch := t.FirstChild(); ch != nil; ch = ch.NextSibling() {
			if tx, ok := ch.(*ast.Text); ok {
				if first < 0 {
					first = tx.Segment.Start
				}
				last = tx.Segment.Stop
			}
		}
		if first >= 0 {
			*c = append(*c, [2]int{first, last})
		}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		lines := n.Lines()
		if lines.Len() > 0 {
			*c = append(*c, [2]int{lines.At(0).Start, lines.At(lines.Len() - 1).Stop})
		}
	}
}

// comments are the [start, end) ranges of body that Obsidian hides as
// comments, given the code ranges (sorted or not).
func comments(body []byte, code codeRanges) [][2]int {
	if !bytes.Contains(body, []byte("%%")) {
		return nil
	}
	sort.Slice(code, func(i, j int) bool { return code[i][0] < code[j][0] })
	var out [][2]int
	open := -1
	k := 0
	for i := 0; i+1 < len(body); i++ {
		if body[i] != '%' || body[i+1] != '%' {
			continue
		}
		for k < len(code) && code[k][1] <= i {
			k++
		}
		if k < len(code) && code[k][0] <= i {
			continue // in code: text
		}
		if open < 0 {
			open = i
		} else {
			out = append(out, [2]int{open, i + 2})
			open = -1
		}
		i++
	}
	if open >= 0 {
		out = append(out, [2]int{open, len(body)})
	}
	return out
}

// inRanges says whether offset p falls in one of the sorted ranges.
func inRanges(rs [][2]int, p int) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i][1] > p })
	return i < len(rs) && rs[i][0] <= p
}
