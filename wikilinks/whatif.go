package wikilinks

import (
	"iter"
	"maps"
)

// Shift is a link whose resolution a planned change would alter.
type Shift struct {
	From   string     `json:"from"`
	Target string     `json:"target"` // as written now
	Before Resolution `json:"before"`
	After  Resolution `json:"after"`
	// Keep is the target to write instead so that the link names, once
	// the change is made and nothing hidden, what it names now, as
	// Obsidian resolves it: spelled in the style of Target (see respell:
	// a name stays a name where it is still unique, a relative path stays
	// relative), else the note's id (which only cairn resolves) when no
	// path can be written in a link. Empty when what it names is removed.
	Keep string `json:"keep,omitempty"`
	// Moved says what the link names is one of the notes or files the
	// change moves or renames (not a bystander whose links it captures).
	Moved bool `json:"moved,omitempty"`
}

// WhatIf says which links would stop naming the note they name now, if
// the notes in set were added or replaced and the ids in removed were
// dropped: links of other notes, and links of the notes in set compared
// one by one with what they were (a note rewritten or moved by the change
// must still name what it named: a link resolves from its note's folder).
// A link Obsidian resolved that only cairn would still resolve (through
// an alias, say) is a shift too. Links that start resolving (forward
// references) are not shifts. With visible, the question is asked
// as someone who sees only those notes: invisible sources are skipped and
// invisible notes are absent from both resolutions. Only links whose
// target could name a note involved (its file name, id, title or alias)
// are looked at in notes the change leaves alone, so the cost follows the
// change, not the vault.
func (g *Graph) WhatIf(set []Note, removed []string, visible Visible) []Shift {
	return g.WhatIfMoved(set, removed, nil, visible)
}

// WhatIfMoved is WhatIf for a change that also moves files that are not
// notes (attachments, old path → new path): links to them that would stop
// naming them at their new place are shifts too.
func (g *Graph) WhatIfMoved(set []Note, removed []string, files map[string]string, visible Visible) []Shift {
	g.mu.RLock()
	defer g.mu.RUnlock()
	p := g.plan(set, removed, files)
	var out []Shift
	sources := map[string]bool{}
	for k := range p.keys {
		for src := range g.refs[k].keys() {
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
			if l.Target == "" || seen[l.Target] || !anyKey(p.keys, l.Target) {
				continue
			}
			seen[l.Target] = true
			if sh, ok := p.shift(src, n.Path, n.Path, l.Target, l.Target, visible); ok {
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
			if l.Target == nl.Target && old.Path == now.Path && !anyKey(p.keys, l.Target) {
				continue // same text, same folder, names it cannot reach: unchanged
			}
			if sh, ok := p.shift(id, old.Path, now.Path, l.Target, nl.Target, visible); ok {
				out = append(out, sh)
			}
		}
	}
	return out
}

// plan is a planned change laid over the graph: the name keys and file
// names it touches (overlays, taking precedence key by key), the notes it
// sets (nil when removed), and the link keys of every note involved. It
// reads the graph under the caller's lock.
type plan struct {
	g        *Graph
	names    map[nameKey]map[string]bool
	files    map[string]map[string]string
	notes    map[string]*Note
	keys     map[string]bool
	changing map[string]bool
	moved    map[string]string // files that are not notes: old path → new
}

func (g *Graph) plan(set []Note, removed []string, files map[string]string) *plan {
	p := &plan{g: g, names: map[nameKey]map[string]bool{}, files: map[string]map[string]string{},
		notes: map[string]*Note{}, keys: map[string]bool{}, changing: map[string]bool{}, moved: files}
	touch := func(k nameKey) map[string]bool {
		if ids, ok := p.names[k]; ok {
			return ids
		}
		ids := map[string]bool{}
		for id := range g.names[k].keys() {
			ids[id] = true
		}
		p.names[k] = ids
		return ids
	}
	touchFile := func(path string) map[string]string {
		k := fileKey(path)
		if m, ok := p.files[k]; ok {
			return m
		}
		m := map[string]string{}
		for fp, id := range g.files[k].all() {
			m[fp] = id
		}
		p.files[k] = m
		return m
	}
	drop := func(id string) {
		p.changing[id] = true
		if old := g.notes[id]; old != nil {
			for _, k := range nameKeys(old) {
				delete(touch(k), id)
			}
			if m := touchFile(old.Path); m[old.Path] == id {
				delete(m, old.Path)
			}
			for _, k := range noteKeys(old) {
				p.keys[k] = true
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
		touchFile(n.Path)[n.Path] = n.ID
		for _, k := range noteKeys(n) {
			p.keys[k] = true
		}
		p.notes[n.ID] = n
	}
	for from, to := range files {
		if m := touchFile(from); m[from] == "" {
			delete(m, from)
		}
		touchFile(to)[to] = ""
		p.keys[Fold(fileName(from))] = true
	}
	return p
}

// after is the graph as the change would make it.
func (p *plan) after(visible Visible) view {
	return view{
		note: func(id string) *Note {
			if n, ok := p.notes[id]; ok {
				return n // nil when removed
			}
			return p.g.notes[id]
		},
		names: func(k nameKey) iter.Seq[string] {
			if ids, ok := p.names[k]; ok {
				return maps.Keys(ids)
			}
			return p.g.names[k].keys()
		},
		files: func(k string) iter.Seq2[string, string] {
			if m, ok := p.files[k]; ok {
				return maps.All(m)
			}
			return p.g.files[k].all()
		},
		visible: visible,
	}
}

// shift compares what before, written in a note at path from, names now
// with what after, written at path to, names once the change is made; ok
// when a link that names a note or a file would name something else, or
// only in cairn's own ways where Obsidian resolved it.
func (p *plan) shift(src, from, to, before, after string, visible Visible) (Shift, bool) {
	b := p.g.view(visible).resolve(from, before)
	if b.Status != Resolved || (b.ID == "" && b.Path == "") {
		return Shift{}, false
	}
	w := p.after(visible)
	a := w.resolve(to, after)
	dest, moved := p.dest(b)
	if a.Status == Resolved && a.ID == b.ID && a.Path == dest && (a.Obsidian == ObsidianSame || b.Obsidian != ObsidianSame) {
		return Shift{}, false
	}
	sh := Shift{From: src, Target: before, Before: b, After: a, Moved: moved}
	if dest != "" {
		sh.Keep = p.after(nil).respell(after, to, dest, b.Path, b.Obsidian == ObsidianSame)
		if sh.Keep == "" && b.ID != "" {
			sh.Keep = b.ID
		}
	}
	return sh, true
}

// dest is where what b names sits once the change is made ("" when it is
// removed), and whether the change moves it.
func (p *plan) dest(b Resolution) (string, bool) {
	if b.ID == "" {
		if to, ok := p.moved[b.Path]; ok {
			return to, true
		}
		return b.Path, false
	}
	n, ok := p.notes[b.ID]
	if !ok {
		return b.Path, false
	}
	if n == nil {
		return "", false
	}
	return n.Path, n.Path != b.Path || p.g.notes[b.ID] == nil || p.g.notes[b.ID].Title != n.Title
}
