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
	Target string     `json:"target"` // as written now
	Before Resolution `json:"before"`
	After  Resolution `json:"after"`
	// Keep is a target that names Before.ID once the change is made,
	// nothing hidden: its full path without .md (what Obsidian resolves
	// too), or its id when a title, alias or id spelled like that path
	// would take the path over or the path cannot be written in a link.
	// Empty when the note is removed.
	Keep string `json:"keep,omitempty"`
}

// WhatIf says which links would stop naming the note they name now, if
// the notes in set were added or replaced and the ids in removed were
// dropped: links of other notes, and links of the notes in set compared
// one by one with what they were (a note rewritten by the change must
// still name what it named). Links that start resolving (forward
// references) are not shifts. With visible, the question is asked as
// someone who sees only those notes: invisible sources are skipped and
// invisible notes are absent from both resolutions. Only links spelled
// like a name involved (or rewritten by the change) are looked at, so
// the cost follows the change, not the vault.
func (g *Graph) WhatIf(set []Note, removed []string, visible Visible) []Shift {
	g.mu.RLock()
	defer g.mu.RUnlock()
	p := g.plan(set, removed)
	var out []Shift
	sources := map[string]bool{}
	for s := range p.spells {
		for src := range g.spell[s] {
			if !p.changing[src] {
				sources[src] = true
			}
		}
	}
	for _, src := range sortedKeys(sources) {
		n := g.notes[src]
		if visible != nil && !visible(src, n.Path) {
			continue
		}
		seen := map[string]bool{}
		for _, l := range n.Links {
			if l.Target == "" || seen[l.Target] || !p.spells[Fold(l.Target)] {
				continue
			}
			seen[l.Target] = true
			if sh, ok := p.shift(src, l.Target, l.Target, visible); ok {
				out = append(out, sh)
			}
		}
	}
	for _, id := range sortedKeys(p.changing) {
		old, now := g.notes[id], p.notes[id]
		if old == nil || now == nil || len(old.Links) != len(now.Links) {
			continue // new, removed, or links added or dropped: nothing to pair
		}
		if visible != nil && !visible(id, now.Path) {
			continue
		}
		seen := map[[2]string]bool{}
		for i, l := range old.Links {
			nl := now.Links[i]
			k := [2]string{l.Target, nl.Target}
			if l.Target == "" || nl.Target == "" || seen[k] {
				continue
			}
			seen[k] = true
			if l.Target == nl.Target && !p.spells[Fold(l.Target)] {
				continue // same text, names it cannot reach: unchanged
			}
			if sh, ok := p.shift(id, l.Target, nl.Target, visible); ok {
				out = append(out, sh)
			}
		}
	}
	return out
}

// plan is a planned change laid over the graph: the name keys it touches
// (overlay, taking precedence key by key), the notes it sets (nil when
// removed), and the spellings of every name involved. It reads the graph
// under the caller's lock.
type plan struct {
	g        *Graph
	overlay  map[string]map[string]bool
	notes    map[string]*Note
	spells   map[string]bool
	changing map[string]bool
}

func (g *Graph) plan(set []Note, removed []string) *plan {
	p := &plan{g: g, overlay: map[string]map[string]bool{}, notes: map[string]*Note{}, spells: map[string]bool{}, changing: map[string]bool{}}
	touch := func(k string) map[string]bool {
		if ids, ok := p.overlay[k]; ok {
			return ids
		}
		ids := map[string]bool{}
		for id := range g.names[k] {
			ids[id] = true
		}
		p.overlay[k] = ids
		return ids
	}
	drop := func(id string) {
		p.changing[id] = true
		if old := g.notes[id]; old != nil {
			for _, k := range nameKeys(old) {
				delete(touch(k), id)
			}
			for _, s := range spellings(old) {
				p.spells[s] = true
			}
		}
	}
	for _, id := range removed {
		drop(id)
		p.notes[id] = nil
	}
	for i := range set {
		n := &set[i]
		drop(n.ID)
		for _, k := range nameKeys(n) {
			touch(k)[n.ID] = true
		}
		for _, s := range spellings(n) {
			p.spells[s] = true
		}
		p.notes[n.ID] = n
	}
	return p
}

func (p *plan) base(id string) *Note { return p.g.notes[id] }

func (p *plan) merged(id string) *Note {
	if n, ok := p.notes[id]; ok {
		return n // nil when removed
	}
	return p.g.notes[id]
}

// shift compares what before named (now) with what after names once the
// change is made; ok when a resolved link would name something else.
func (p *plan) shift(src, before, after string, visible Visible) (Shift, bool) {
	b := resolveIn(p.base, p.g.names, nil, before, visible)
	if b.Status != Resolved {
		return Shift{}, false
	}
	a := resolveIn(p.merged, p.g.names, p.overlay, after, visible)
	if a.Status == Resolved && a.ID == b.ID {
		return Shift{}, false
	}
	return Shift{From: src, Target: before, Before: b, After: a, Keep: p.keep(b.ID)}, true
}

// keep is the target that names id after the change, nothing hidden (see
// Shift.Keep).
func (p *plan) keep(id string) string {
	n := p.merged(id)
	if n == nil {
		return ""
	}
	path := strings.TrimSuffix(n.Path, ".md")
	if path == strings.TrimSpace(path) && !strings.ContainsAny(path, "#|[]^\r\n") {
		if r := resolveIn(p.merged, p.g.names, p.overlay, path, nil); r.Status == Resolved && r.ID == id {
			return path
		}
	}
	return id
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
