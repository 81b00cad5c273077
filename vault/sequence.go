package vault

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/search"
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
func (v *Vault) sequenceOf(p string, n *Note) []string {
	scope, _, _ := v.scopeOf(p)
	g := v.cat.graphFor(p) // v.cat is fixed after Open; the graph locks itself
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
	for _, q := range numberedSiblings(p) {
		if v.entry(q, false) != nil {
			add(q)
		}
	}
	return out
}

// numberedSiblings names the notes beside p in a numbered run of one
// folder: "chat-07.md" is next to "chat-06.md" and "chat-08.md", "D1-3.md"
// to "D1-2.md" and "D1-4.md". Notes written one after another by anyone,
// with no link between them (a transcript, a log, chapters), carry their
// order in their names; search reads it as it reads sequence links. The
// number keeps its zero-padding; a run never crosses a folder or a prefix
// ("D1-19" is not next to "D2-1").
func numberedSiblings(p string) []string {
	dir, file := path.Split(p)
	base, ok := strings.CutSuffix(file, ".md")
	if !ok {
		return nil
	}
	i := len(base)
	for i > 0 && base[i-1] >= '0' && base[i-1] <= '9' {
		i--
	}
	digits := base[i:]
	if digits == "" || len(digits) > 9 {
		return nil
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return nil
	}
	// "chat-10" may follow "chat-09" or "chat-9": both spellings are
	// asked for, the caller keeps the ones that exist.
	var out []string
	for _, k := range []int{n - 1, n + 1} {
		if k < 0 {
			continue
		}
		plain, padded := strconv.Itoa(k), fmt.Sprintf("%0*d", len(digits), k)
		out = append(out, dir+base[:i]+plain+".md")
		if padded != plain {
			out = append(out, dir+base[:i]+padded+".md")
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
		body := strings.TrimSpace(string(ParseNote(q, data).Body))
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
func whoOf(n *Note) []string {
	var out []string
	for _, k := range whoKeys {
		node := n.key(k)
		if node == nil {
			continue
		}
		var names []string
		switch node.Kind {
		case yaml.ScalarNode:
			names = []string{strings.TrimSpace(node.Value)}
		case yaml.SequenceNode:
			names = stringList(node)
		}
		for _, s := range names {
			// author: "[[Sam Okafor]]" links the person's note (a typed
			// link too): the person is the name linked.
			if target, _, ok := linkValue(s); ok {
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
