package vault

import (
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
	Type       string    `json:"type"`
	Target     string    `json:"target"`
	Fragment   string    `json:"fragment,omitempty"`
	Label      string    `json:"label,omitempty"`
	Typed      bool      `json:"typed"`
	Status     string    `json:"status"` // resolved, unresolved (a forward reference), ambiguous
	How        string    `json:"how,omitempty"`
	To         *NoteRef  `json:"to,omitempty"`
	Candidates []NoteRef `json:"candidates,omitempty"`
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
	n, _ := v.cat.graph.Note(id)
	return NoteRef{ID: id, Path: n.Path, Title: n.Title}
}

// links lists a note's edges as c sees them: a link to a note c may not
// read shows as unresolved, and links from such notes are not listed.
func (v *Vault) links(c Caller, id string) *Links {
	vis := v.visibleTo(c)
	out := &Links{Outgoing: []OutLink{}, Incoming: []InLink{}}
	for _, e := range v.cat.graph.Outgoing(id, vis) {
		ol := OutLink{Type: e.Type, Target: e.Target, Fragment: e.Fragment, Label: e.Label, Typed: e.Typed, Status: e.Status, How: e.How}
		switch e.Status {
		case wikilinks.Resolved:
			r := v.noteRef(e.ID)
			ol.To = &r
		case wikilinks.Ambiguous:
			for _, cid := range e.Candidates {
				ol.Candidates = append(ol.Candidates, v.noteRef(cid))
			}
		}
		out.Outgoing = append(out.Outgoing, ol)
	}
	for _, e := range v.cat.graph.Incoming(id, vis) {
		out.Incoming = append(out.Incoming, InLink{Type: e.Type, From: v.noteRef(e.From), Fragment: e.Fragment, Typed: e.Typed})
	}
	return out
}
