package note

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Heading is one entry of a note's outline.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"` // 1-based, counted in the body
}

var md = goldmark.New()

// Outline lists the body's headings (not those inside code), parsed by
// goldmark so that what counts as a heading is what a Markdown reader shows.
func Outline(body []byte) []Heading {
	doc := md.Parser().Parse(text.NewReader(body))
	var out []Heading
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		h, ok := c.(*ast.Heading)
		if !ok {
			continue
		}
		var txt strings.Builder
		lines := h.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			txt.Write(seg.Value(body))
		}
		line := 1
		if lines.Len() > 0 {
			line = 1 + bytes.Count(body[:lines.At(0).Start], []byte("\n"))
		}
		out = append(out, Heading{Level: h.Level, Text: strings.TrimSpace(txt.String()), Line: line})
	}
	return out
}
