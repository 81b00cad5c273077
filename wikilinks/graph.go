package wikilinks

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Note is a note as the graph knows it.
type Note struct {
	ID      string
	Path    string // vault path, with .md
	Title   string
	Aliases []string
	Links   []Link // body links, then typed links
}

// How a target resolved.
const (
	ByID    = "id"
	ByTitle = "title"
	ByAlias = "alias"
	ByPath  = "path"
	ByFold  = "folded" // title or alias, case and accents ignored
)

// Resolution statuses.
const (
	Resolved   = "resolved"
	Unresolved = "unresolved" // a forward reference
	Ambiguous  = "ambiguous"
)

// Resolution is what a target names.
type Resolution struct {
	Status     string   `json:"status"`
	ID         string   `json:"id,omitempty"`
	How        string   `json:"how,omitempty"`
	Candidates []string `json:"candidates,omitempty"` // ids, when ambiguous
}

// Edge is a resolved link of one note.
type Edge struct {
	From string `json:"from"`
	Link
	Resolution
}

// Graph holds every note's names and links. Safe for concurrent use.
type Graph struct {
	mu    sync.RWMutex
	notes map[string]*Note
	names map[string]map[string]bool // name key → ids (see nameKeys)
	spell map[string]map[string]bool // folded target spelling → ids of notes linking with it
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{notes: map[string]*Note{}, names: map[string]map[string]bool{}, spell: map[string]map[string]bool{}}
}

// Fold lower-cases s and removes its accents: "École" → "ecole".
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii { // nothing to strip: most titles and targets
		return strings.ToLower(strings.TrimSpace(s))
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(strings.TrimSpace(out))
}

// nameKeys are the keys under which a note can be found: its title, its
// aliases, its full path and every trailing part of it (with and without
// .md, as Obsidian resolves [[specs/Foo]]), and its title and aliases
// folded (so [[pricing]] still finds a note renamed from "Pricing").
func nameKeys(n *Note) []string {
	keys := []string{"t:" + n.Title, "f:" + Fold(n.Title)}
	for _, a := range n.Aliases {
		keys = append(keys, "a:"+a, "f:"+Fold(a))
	}
	p := strings.TrimSuffix(n.Path, ".md")
	keys = append(keys, "P:"+p)
	segs := strings.Split(p, "/")
	for i := range segs {
		keys = append(keys, "p:"+strings.Join(segs[i:], "/"))
	}
	return keys
}

// spellings are the folded texts a link to n could be written with.
func spellings(n *Note) []string {
	out := []string{Fold(n.ID), Fold(n.Title)}
	for _, a := range n.Aliases {
		out = append(out, Fold(a))
	}
	p := strings.TrimSuffix(n.Path, ".md")
	segs := strings.Split(p, "/")
	for i := range segs {
		s := strings.Join(segs[i:], "/")
		out = append(out, Fold(s), Fold(s+".md"))
	}
	return out
}

func add(m map[string]map[string]bool, k, id string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][id] = true
}

func del(m map[string]map[string]bool, k, id string) {
	if s := m[k]; s != nil {
		delete(s, id)
		if len(s) == 0 {
			delete(m, k)
		}
	}
}

// Set adds or replaces a note.
func (g *Graph) Set(n Note) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeLocked(n.ID)
	nn := n
	g.notes[n.ID] = &nn
	for _, k := range nameKeys(&nn) {
		add(g.names, k, n.ID)
	}
	for _, l := range nn.Links {
		if l.Target != "" {
			add(g.spell, Fold(l.Target), n.ID)
		}
	}
}

// Remove drops a note (its incoming links become forward references).
func (g *Graph) Remove(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeLocked(id)
}

func (g *Graph) removeLocked(id string) {
	old := g.notes[id]
	if old == nil {
		return
	}
	for _, k := range nameKeys(old) {
		del(g.names, k, id)
	}
	for _, l := range old.Links {
		if l.Target != "" {
			del(g.spell, Fold(l.Target), id)
		}
	}
	delete(g.notes, id)
}

// Note returns a note by id.
func (g *Graph) Note(id string) (Note, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.notes[id]
	if !ok {
		return Note{}, false
	}
	return *n, true
}

// Len is the number of notes.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.notes)
}

// Resolve says which note a target names, in this order: id, exact title,
// alias, path (with or without .md, full or a trailing part), then title
// or alias ignoring case and accents. Two notes at the first level that matches make
// the target ambiguous: it is reported, never guessed.
func (g *Graph) Resolve(target string) Resolution {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.resolveLocked(target, nil)
}

// Visible says whether a note (id, path) may be seen by whoever asks; a
// graph query made with one treats every other note as absent. It is called
// with the graph's lock held: it must not call the graph.
type Visible func(id, path string) bool

// ResolveFor is Resolve as seen by someone who sees only some notes.
func (g *Graph) ResolveFor(target string, visible Visible) Resolution {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.resolveLocked(target, visible)
}

func (g *Graph) resolveLocked(target string, visible Visible) Resolution {
	return resolveIn(func(id string) *Note { return g.notes[id] }, g.names, nil, target, visible)
}

// resolveIn resolves against notes and names, with an optional overlay of
// names (a planned change, see WhatIf) taking precedence key by key.
func resolveIn(note func(id string) *Note, names, overlay map[string]map[string]bool, target string, visible Visible) Resolution {
	target = strings.TrimSpace(target)
	if target == "" {
		return Resolution{Status: Unresolved}
	}
	lookup := func(k string) map[string]bool {
		if ids, ok := overlay[k]; ok {
			return ids
		}
		return names[k]
	}
	if n := note(target); n != nil && (visible == nil || visible(target, n.Path)) {
		return Resolution{Status: Resolved, ID: target, How: ByID}
	}
	p := strings.TrimSuffix(target, ".md")
	for _, level := range []struct{ key, how string }{
		{"t:" + target, ByTitle},
		{"a:" + target, ByAlias},
		{"P:" + p, ByPath},
		{"p:" + p, ByPath},
		{"f:" + Fold(target), ByFold},
	} {
		ids := lookup(level.key)
		if visible != nil && len(ids) > 0 {
			seen := map[string]bool{}
			for id := range ids {
				if n := note(id); n != nil && visible(id, n.Path) {
					seen[id] = true
				}
			}
			ids = seen
		}
		switch len(ids) {
		case 0:
			continue
		case 1:
			for id := range ids {
				return Resolution{Status: Resolved, ID: id, How: level.how}
			}
		}
		return Resolution{Status: Ambiguous, How: level.how, Candidates: sortedKeys(ids)}
	}
	return Resolution{Status: Unresolved}
}

// Shift is a link whose resolution a planned change would alter.
type Shift struct {
	From   string     `json:"from"`
	Target string     `json:"target"`
	Before Resolution `json:"before"`
	After  Resolution `json:"after"`
}

// WhatIf says which links of notes not in the change would stop naming
// the note they name now, if the notes in set were added or replaced and
// the ids in removed were dropped. Links that start resolving (forward
// references) are not shifts. Only links spelled like a name involved are
// looked at, so the cost follows the change, not the vault.
func (g *Graph) WhatIf(set []Note, removed []string) []Shift {
	g.mu.RLock()
	defer g.mu.RUnlock()
	overlay := map[string]map[string]bool{}
	notes := map[string]*Note{}
	touch := func(k string) map[string]bool {
		if ids, ok := overlay[k]; ok {
			return ids
		}
		ids := map[string]bool{}
		for id := range g.names[k] {
			ids[id] = true
		}
		overlay[k] = ids
		return ids
	}
	spells := map[string]bool{}
	changing := map[string]bool{}
	drop := func(id string) {
		changing[id] = true
		if old := g.notes[id]; old != nil {
			for _, k := range nameKeys(old) {
				delete(touch(k), id)
			}
			for _, s := range spellings(old) {
				spells[s] = true
			}
		}
	}
	for _, id := range removed {
		drop(id)
		notes[id] = nil
	}
	for i := range set {
		n := &set[i]
		drop(n.ID)
		for _, k := range nameKeys(n) {
			touch(k)[n.ID] = true
		}
		for _, s := range spellings(n) {
			spells[s] = true
		}
		notes[n.ID] = n
	}
	merged := func(id string) *Note {
		if n, ok := notes[id]; ok {
			return n // nil when removed
		}
		return g.notes[id]
	}
	base := func(id string) *Note { return g.notes[id] }
	sources := map[string]bool{}
	for s := range spells {
		for src := range g.spell[s] {
			if !changing[src] {
				sources[src] = true
			}
		}
	}
	var out []Shift
	for _, src := range sortedKeys(sources) {
		seen := map[string]bool{}
		for _, l := range g.notes[src].Links {
			if l.Target == "" || seen[l.Target] || !spells[Fold(l.Target)] {
				continue
			}
			seen[l.Target] = true
			before := resolveIn(base, g.names, nil, l.Target, nil)
			if before.Status != Resolved {
				continue
			}
			after := resolveIn(merged, g.names, overlay, l.Target, nil)
			if after.Status != Resolved || after.ID != before.ID {
				out = append(out, Shift{From: src, Target: l.Target, Before: before, After: after})
			}
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Outgoing resolves every link of a note, in order (visible may be nil).
func (g *Graph) Outgoing(id string, visible Visible) []Edge {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := g.notes[id]
	if n == nil {
		return nil
	}
	out := make([]Edge, 0, len(n.Links))
	for _, l := range n.Links {
		r := Resolution{Status: Resolved, ID: id, How: "self"}
		if l.Target != "" {
			r = g.resolveLocked(l.Target, visible)
		}
		out = append(out, Edge{From: id, Link: l, Resolution: r})
	}
	return out
}

// Incoming lists the links of other notes (and the note's own) that resolve
// to this note, ordered by source id; with visible, only from visible notes.
func (g *Graph) Incoming(id string, visible Visible) []Edge {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := g.notes[id]
	if n == nil {
		return nil
	}
	sources := map[string]bool{}
	names := map[string]bool{}
	for _, s := range spellings(n) {
		names[s] = true
		for src := range g.spell[s] {
			sources[src] = true
		}
	}
	// Each distinct target is resolved once, and only targets spelled like
	// one of this note's names are looked at.
	memo := map[string]Resolution{}
	var out []Edge
	for _, src := range sortedKeys(sources) {
		if visible != nil && !visible(src, g.notes[src].Path) {
			continue
		}
		for _, l := range g.notes[src].Links {
			if l.Target == "" || !names[Fold(l.Target)] {
				continue
			}
			r, ok := memo[l.Target]
			if !ok {
				r = g.resolveLocked(l.Target, visible)
				memo[l.Target] = r
			}
			if r.Status == Resolved && r.ID == id {
				out = append(out, Edge{From: src, Link: l, Resolution: r})
			}
		}
	}
	return out
}

// Unresolved lists every link that names no note (forward references) or
// more than one (ambiguous), by source id.
func (g *Graph) Unresolved() []Edge {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []Edge
	for _, src := range sortedKeys(func() map[string]bool {
		m := map[string]bool{}
		for id := range g.notes {
			m[id] = true
		}
		return m
	}()) {
		for _, l := range g.notes[src].Links {
			if l.Target == "" {
				continue
			}
			if r := g.resolveLocked(l.Target, nil); r.Status != Resolved {
				out = append(out, Edge{From: src, Link: l, Resolution: r})
			}
		}
	}
	return out
}
