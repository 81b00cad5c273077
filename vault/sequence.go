package vault

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
	"gopkg.in/yaml.v3"
)

// sequenceTypes are the typed links that put notes in a sequence: a
// conversation's turns, a journal's days, a meeting and its follow-up.
// Search indexes a note with its neighbours' words (at a low weight) and
// passes a share of each hit's score to them, since the answer to a
// question often sits in the turn after the one that matches it.
var sequenceTypes = map[string]bool{"follows": true, "precedes": true, "replies_to": true, "previous": true, "next": true}

// whoKeys are the frontmatter keys that name the person a note is by.
var whoKeys = []string{"speaker", "author", "by", "from", "who"}

// contextBytes bounds how much of each neighbour's body joins a note's
// context.
const contextBytes = 600

// sequenceOf lists the notes p is next to in a sequence: the targets of its
// own sequence links and the notes whose sequence links point at it, in
// the same scope only. A neighbour's words go into p's index entry, so a
// neighbour someone who reads p may not read (another person's private
// note, another project) must never be one, whoever wrote the link.
func (v *Vault) sequenceOf(p string, n *note.Note) []string {
	scope, _, _ := v.scopeOf(p)
	g := v.graphFor(p)
	seen := map[string]bool{p: true}
	var out []string
	add := func(q string) {
		// At most search.MaxSequence: each neighbour's text is read into
		// p's entry, and each is re-indexed when p changes.
		if q == "" || seen[q] || len(out) >= search.MaxSequence {
			return
		}
		if qs, _, _ := v.scopeOf(q); qs != scope {
			return
		}
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	for _, l := range n.TypedLinks() {
		if !sequenceTypes[l.Type] || len(out) >= search.MaxSequence {
			continue
		}
		if r := g.ResolveFrom(p, l.Target, nil); r.Status == wikilinks.Resolved && r.ID != "" {
			add(pathIn(g, r.ID))
		}
	}
	if e := v.entry(p, false); e != nil {
		for _, ed := range g.Incoming(e.ID, nil) {
			if ed.Typed && sequenceTypes[ed.Type] {
				add(pathIn(g, ed.From))
			}
		}
	}
	return out
}

// contextOf is the start of each neighbour's body, for the index.
func (v *Vault) contextOf(paths []string) string {
	var b strings.Builder
	for _, q := range paths {
		data, err := readFileNoFollow(v.abs(q))
		if err != nil {
			continue
		}
		body := strings.TrimSpace(string(note.Parse(q, data).Body))
		if len(body) > contextBytes {
			cut := contextBytes
			for cut > 0 && !utf8.RuneStart(body[cut]) {
				cut--
			}
			body = body[:cut]
		}
		b.WriteString(body)
		b.WriteString("\n\n")
	}
	return b.String()
}

// whoOf reads the people a note is by from its frontmatter.
func whoOf(n *note.Note) []string {
	var out []string
	for _, k := range whoKeys {
		node := n.KeyNode(k)
		if node == nil {
			continue
		}
		var names []string
		switch node.Kind {
		case yaml.ScalarNode:
			names = []string{strings.TrimSpace(node.Value)}
		case yaml.SequenceNode:
			names = note.StringList(node)
		}
		for _, s := range names {
			// author: "[[Sam Okafor]]" links the person's note (a typed
			// link too): the person is the name linked.
			if target, _, ok := note.LinkValue(s); ok {
				s = target
			}
			out = append(out, s)
		}
	}
	return out
}

func pathIn(g *wikilinks.Graph, id string) string {
	if n, ok := g.Note(id); ok {
		return n.Path
	}
	return ""
}
