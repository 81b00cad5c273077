package vault

import (
	"strings"

	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/wikilinks"
)

// NoteRef names a note in link listings.
type NoteRef struct {
	ID    string `json:"id"`
	Path  string `json:"path"`
	Title string `json:"title"`
}

// OutLink is one outgoing edge as get_note shows it.
type OutLink struct {
	Type     string `json:"type"`
	Target   string `json:"target"`
	Fragment string `json:"fragment,omitempty"`
	Label    string `json:"label,omitempty"`
	Typed    bool   `json:"typed"`
	Form     string `json:"form,omitempty"` // wikilink or markdown; none for a typed link
	Line     int    `json:"line,omitempty"` // in the body
	Status   string `json:"status"`         // resolved, unresolved (a forward reference), ambiguous
	How      string `json:"how,omitempty"`  // name, path (as Obsidian resolves), id, title, alias, folded (cairn only)
	// Obsidian is what Obsidian makes of the link: same (it opens the same
	// target), unresolved (it resolves to nothing: for a resolved link, one
	// only cairn resolves), ambiguous (it picks one candidate by the order
	// it loaded the files).
	Obsidian   string    `json:"obsidian"`
	To         *NoteRef  `json:"to,omitempty"`
	Attachment string    `json:"attachment,omitempty"` // a file that is not a note (pic.png, a.pdf): its path
	Candidates []NoteRef `json:"candidates,omitempty"`
	Files      []string  `json:"files,omitempty"` // candidate attachments, when ambiguous
}

// InLink is one incoming edge.
type InLink struct {
	Type     string  `json:"type"`
	From     NoteRef `json:"from"`
	Fragment string  `json:"fragment,omitempty"`
	Typed    bool    `json:"typed"`
}

// Links are a note's edges, as far as the caller may see.
type Links struct {
	Outgoing []OutLink `json:"outgoing"`
	Incoming []InLink  `json:"incoming"`
}

func (v *Vault) noteRef(id string) NoteRef {
	n, _ := v.graph().Note(id)
	return NoteRef{ID: id, Path: n.Path, Title: n.Title}
}

// links lists a note's edges as c sees them: a link to a note c may not
// read shows as unresolved, and links from such notes are not listed.
func (v *Vault) links(c access.Caller, id string) *Links {
	vis := v.visibleTo(c)
	out := &Links{Outgoing: []OutLink{}, Incoming: []InLink{}}
	for _, e := range v.graph().Outgoing(id, vis) {
		ol := OutLink{Type: e.Type, Target: e.Target, Fragment: e.Fragment, Label: e.Label, Typed: e.Typed, Form: e.Form, Line: e.Line,
			Status: e.Status, How: e.How, Obsidian: e.Obsidian}
		switch {
		case e.Status == wikilinks.Resolved && e.ID == "":
			ol.Attachment = e.Path
		case e.Status == wikilinks.Resolved:
			r := v.noteRef(e.ID)
			ol.To = &r
		case e.Status == wikilinks.Ambiguous:
			for _, cid := range e.Candidates {
				ol.Candidates = append(ol.Candidates, v.noteRef(cid))
			}
			ol.Files = e.Files
		}
		out.Outgoing = append(out.Outgoing, ol)
	}
	for _, e := range v.graph().Incoming(id, vis) {
		out.Incoming = append(out.Incoming, InLink{Type: e.Type, From: v.noteRef(e.From), Fragment: e.Fragment, Typed: e.Typed})
	}
	return out
}

// writtenAs is the text that replaces l's target (at its Offset) so that
// the link names target and keeps its style: a Markdown link stays a
// Markdown link, URL-encoded as it was (or as a bare destination needs),
// and keeps its .md when it was written with one.
func writtenAs(l wikilinks.Link, target string) string {
	if l.Form == wikilinks.FormMarkdown && strings.HasSuffix(strings.ToLower(l.Target), ".md") && !strings.HasSuffix(strings.ToLower(target), ".md") {
		target += ".md"
	}
	return l.Spell(target)
}
