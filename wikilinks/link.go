package wikilinks

import (
	"net/url"
	"strings"
)

// Edge types of links written in a body.
const (
	TypeLinksTo = "links_to"
	TypeEmbeds  = "embeds"
)

// Forms a body link is written in. A typed link (from the frontmatter)
// has no form: it is always a "[[…]]" string of a property.
const (
	FormWiki     = "wikilink" // [[Target#Fragment|label]], ![[…]] for an embed
	FormMarkdown = "markdown" // [label](Target.md#Fragment), ![alt](…) for an embed
)

// Link is one link as written. What a rename needs to rewrite it in place,
// keeping its style, is all here: where the target text sits (Offset, Len:
// the bytes as written, URL-encoding included), its form and whether it is
// an embed (Type), how a Markdown destination is written (Encoded, Angle),
// its label and its fragment.
type Link struct {
	// Target is the link path as Obsidian reads it: trimmed, without the
	// fragment, URL-decoded for a Markdown link. "" for a link to a heading
	// or block of the same note ([[#Heading]], [text](#Heading)).
	Target   string `json:"target"`
	Fragment string `json:"fragment,omitempty"` // a heading (nested ones joined by #), or ^block-id; decoded
	Label    string `json:"label,omitempty"`    // after the pipe of a wikilink; a Markdown link's text or alt
	Type     string `json:"type"`               // links_to, embeds, or a typed edge's type (a property name)
	Typed    bool   `json:"typed"`              // from the frontmatter
	Form     string `json:"form,omitempty"`     // FormWiki or FormMarkdown; "" for a typed link
	// Encoded says the target as written differs from Target: a Markdown
	// destination that is URL-encoded (My%20Note.md) or has backslash
	// escapes. A rewrite then encodes the new target the same way (Spell).
	Encoded bool `json:"encoded,omitempty"`
	// Angle says a Markdown destination is written in angle brackets
	// (<Folder/My Note.md>), where spaces need no encoding.
	Angle bool `json:"angle,omitempty"`
	// Line is the 1-based line of the body the link starts on (0 for a
	// typed link).
	Line int `json:"line,omitempty"`
	// Where the target text as written sits in the body (for rewriting
	// it), and its length in bytes; -1 for typed links, which live in the
	// frontmatter, and for a link whose target text could not be placed
	// exactly (it is then never rewritten). Not kept by the catalog: a
	// rewrite parses the body it rewrites.
	Offset int `json:"-"`
	Len    int `json:"-"`
	// InTable says the link sits in a table cell, where a label's pipe
	// must be written \| (a bare | would end the cell).
	InTable bool `json:"-"`
}

// Relative says the target is written relative to the linking note's
// folder (./x, ../x), which Obsidian resolves from that folder first.
func (l Link) Relative() bool {
	return strings.HasPrefix(l.Target, "./") || strings.HasPrefix(l.Target, "../")
}

// Spell is how target is written in place of l's target text (at Offset,
// Len) so that the link keeps its style: as is in a wikilink or an angle
// bracket destination, URL-encoded in a Markdown destination that was
// encoded or that could not hold target as is (a space, a parenthesis...).
func (l Link) Spell(target string) string {
	if l.Form != FormMarkdown {
		return target
	}
	if l.Angle {
		return strings.NewReplacer("<", `\<`, ">", `\>`).Replace(target)
	}
	if !l.Encoded && !needsEncoding(target) {
		return target
	}
	segs := strings.Split(target, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// needsEncoding says whether target, written as a bare Markdown
// destination, would not read back as itself.
func needsEncoding(target string) bool {
	for i := 0; i < len(target); i++ {
		switch c := target[i]; {
		case c <= ' ', c == 0x7f, c == '(', c == ')', c == '<', c == '>', c == '\\', c == '%', c == '#':
			return true
		}
	}
	return false
}
