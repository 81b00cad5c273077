package wikilinks

import (
	"iter"
	"strings"
)

// view is what a resolution reads: the graph as it is, or as a planned
// change would make it (WhatIf), as seen by someone (visible, nil for
// everything).
type view struct {
	note    func(id string) *Note
	names   func(key nameKey) iter.Seq[string]         // ids
	files   func(key string) iter.Seq2[string, string] // path → id
	visible Visible
	// notesOnly leaves out files that are not notes (a ref names a note).
	notesOnly bool
}

func (g *Graph) view(visible Visible) view {
	return view{
		note:    func(id string) *Note { return g.notes[id] },
		names:   func(k nameKey) iter.Seq[string] { return g.names[k].keys() },
		files:   func(k string) iter.Seq2[string, string] { return g.files[k].all() },
		visible: visible,
	}
}

// candidates appends to out the visible files of a lower-cased name.
func (w view) candidates(out []fileRef, key string) []fileRef {
	for p, id := range w.files(key) {
		if w.notesOnly && id == "" {
			continue
		}
		if w.visible != nil && !w.visible(id, p) {
			continue
		}
		out = append(out, fileRef{path: p, id: id})
	}
	return out
}

// resolve says what target names when written in the note at src: what
// Obsidian opens when it resolves it; else cairn's own ways (id, title,
// alias, folded title or alias), reported as Obsidian leaving it
// unresolved. Two notes at the first of cairn's levels that matches make
// it ambiguous, as does a tie in Obsidian's order: reported, never
// guessed.
func (w view) resolve(src, target string) Resolution {
	target = strings.TrimSpace(target)
	if target == "" {
		return Resolution{Status: Unresolved, Obsidian: ObsidianUnresolved}
	}
	how := ByName
	if strings.Contains(target, "/") {
		how = ByPath
	}
	win, tied, ok := obsidianDest(w, target, src)
	switch {
	case ok:
		return Resolution{Status: Resolved, ID: win.id, Path: win.path, How: how, Obsidian: ObsidianSame}
	case len(tied) > 0:
		r := Resolution{Status: Ambiguous, How: how, Obsidian: ObsidianAmbiguous}
		for _, f := range tied {
			if f.id != "" {
				r.Candidates = append(r.Candidates, f.id)
			} else {
				r.Files = append(r.Files, f.path)
			}
		}
		return r
	}
	if n := w.note(target); n != nil && (w.visible == nil || w.visible(target, n.Path)) {
		return Resolution{Status: Resolved, ID: target, Path: n.Path, How: ByID, Obsidian: ObsidianUnresolved}
	}
	for _, level := range []nameKey{{ByTitle, target}, {ByAlias, target}, {ByFold, Fold(target)}} {
		var ids []string
		for id := range w.names(level) {
			if n := w.note(id); n != nil && (w.visible == nil || w.visible(id, n.Path)) {
				ids = append(ids, id)
			}
		}
		switch len(ids) {
		case 0:
			continue
		case 1:
			return Resolution{Status: Resolved, ID: ids[0], Path: w.note(ids[0]).Path, How: level.how, Obsidian: ObsidianUnresolved}
		}
		set := map[string]bool{}
		for _, id := range ids {
			set[id] = true
		}
		return Resolution{Status: Ambiguous, How: level.how, Candidates: sortedKeys(set), Obsidian: ObsidianUnresolved}
	}
	return Resolution{Status: Unresolved, Obsidian: ObsidianUnresolved}
}

// Resolve says which note a ref names (a title, an alias, a path, an id,
// [[Title]] without its brackets), as a link written at the vault's root
// would, files that are not notes aside. See view.resolve.
func (g *Graph) Resolve(target string) Resolution {
	return g.ResolveFor(target, nil)
}

// ResolveFor is Resolve as seen by someone who sees only some notes.
func (g *Graph) ResolveFor(target string, visible Visible) Resolution {
	g.mu.RLock()
	defer g.mu.RUnlock()
	w := g.view(visible)
	w.notesOnly = true
	return w.resolve("", target)
}

// ResolveFrom says what a link target written in the note at path src
// names: a note, or another file of the vault (an attachment). visible
// may be nil.
func (g *Graph) ResolveFrom(src, target string, visible Visible) Resolution {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.view(visible).resolve(src, target)
}

// LinkText is the shortest link target that names the file at path from
// the note at src, as Obsidian writes a new link with its default "shortest
// path when possible": the file name (without .md for a note) when that
// names this file alone, else the full path (without .md for a note),
// also when no text opens the file (see NewLinkText).
func (g *Graph) LinkText(path, src string) string {
	if t, ok := g.NewLinkText(path, src, FormatShortest, false); ok {
		return t
	}
	if strings.HasSuffix(strings.ToLower(path), ".md") {
		return path[:len(path)-3]
	}
	return path
}

// Outgoing resolves every link of a note, in order (visible may be nil).
func (g *Graph) Outgoing(id string, visible Visible) []Edge {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := g.notes[id]
	if n == nil {
		return nil
	}
	w := g.view(visible)
	out := make([]Edge, 0, len(n.Links))
	for _, l := range n.Links {
		r := Resolution{Status: Resolved, ID: id, Path: n.Path, How: "self", Obsidian: ObsidianSame}
		if l.Target != "" {
			r = w.resolve(n.Path, l.Target)
		}
		out = append(out, Edge{From: id, Link: l, Resolution: r})
	}
	return out
}

// Incoming lists the links of other notes (and the note's own) that resolve
// to this note, ordered by source id; with visible, only from visible notes.
// Only links whose target could name the note (its file name, id, title or
// an alias) are resolved, each target once per source folder.
func (g *Graph) Incoming(id string, visible Visible) []Edge {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := g.notes[id]
	if n == nil {
		return nil
	}
	keys := map[string]bool{}
	sources := map[string]bool{}
	for _, k := range noteKeys(n) {
		keys[k] = true
		for src := range g.refs[k].keys() {
			sources[src] = true
		}
	}
	w := g.view(visible)
	memo := map[[2]string]Resolution{}
	var out []Edge
	for _, src := range sortedKeys(sources) {
		sn := g.notes[src]
		if visible != nil && !visible(src, sn.Path) {
			continue
		}
		for _, l := range sn.Links {
			if l.Target == "" || !anyKey(keys, l.Target) {
				continue
			}
			mk := [2]string{dirName(sn.Path), l.Target}
			r, ok := memo[mk]
			if !ok {
				r = w.resolve(sn.Path, l.Target)
				memo[mk] = r
			}
			if r.Status == Resolved && r.ID == id {
				out = append(out, Edge{From: src, Link: l, Resolution: r})
			}
		}
	}
	return out
}

// anyKey says whether one of target's link keys is in keys.
func anyKey(keys map[string]bool, target string) bool {
	ks, n := linkKeys(target)
	for _, k := range ks[:n] {
		if keys[k] {
			return true
		}
	}
	return false
}

// Audit lists, by source id, every link that is not plainly sound: those
// that resolve to nothing (forward references), those that are ambiguous,
// and those only cairn resolves (Obsidian leaves them unresolved).
func (g *Graph) Audit() []Edge {
	g.mu.RLock()
	defer g.mu.RUnlock()
	ids := map[string]bool{}
	for id := range g.notes {
		ids[id] = true
	}
	w := g.view(nil)
	var out []Edge
	for _, src := range sortedKeys(ids) {
		n := g.notes[src]
		for _, l := range n.Links {
			if l.Target == "" {
				continue
			}
			if r := w.resolve(n.Path, l.Target); r.Status != Resolved || r.Obsidian != ObsidianSame {
				out = append(out, Edge{From: src, Link: l, Resolution: r})
			}
		}
	}
	return out
}

// Unresolved lists every link that names no note or file (forward
// references) or more than one (ambiguous), by source id.
func (g *Graph) Unresolved() []Edge {
	var out []Edge
	for _, e := range g.Audit() {
		if e.Status != Resolved {
			out = append(out, e)
		}
	}
	return out
}
