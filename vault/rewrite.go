package vault

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// edits collects the notes a reorganization changes, so that everything
// it touches goes into one commit: each note is read once, changed in
// memory, and rendered at the end.
type edits struct {
	v      *Vault
	c      access.Caller
	notes  map[string]*note.Note // by current path
	moves  map[string]string
	files  map[string]string // files that are not notes it moves: old path → new
	tokens map[string]string // path → version read
	// What the link guard did to notes the change does not otherwise
	// touch (upkeep.go): links it rewrote to keep naming their note, links
	// it had to leave as written, and the shifts it kept.
	kept, left map[string]bool
	keptShifts []wikilinks.Shift
}

func (v *Vault) newEdits(c access.Caller) *edits {
	return &edits{v: v, c: c, notes: map[string]*note.Note{}, moves: map[string]string{}, files: map[string]string{}, tokens: map[string]string{},
		kept: map[string]bool{}, left: map[string]bool{}}
}

// note loads a note for changing (once), after committing any edit made on
// disk, and remembers the version it was read at for the compare-and-swap.
func (e *edits) note(p string) (*note.Note, error) {
	if n, ok := e.notes[p]; ok {
		return n, nil
	}
	if err := e.v.flushHuman(p); err != nil {
		return nil, err
	}
	cur, _, err := e.v.store.Version(p)
	if err != nil {
		return nil, err
	}
	data, err := readFileNoFollow(e.v.abs(p))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	n := note.Parse(p, data)
	if err := n.FrontmatterError(); err != nil {
		return nil, fmt.Errorf("%s: the frontmatter is not valid YAML (%v); fix it in an editor first", p, err)
	}
	e.v.adoptID(n)
	e.notes[p] = n
	e.tokens[p] = cur
	return n, nil
}

// move records that the note at from goes to to (same content, plus its id
// saved so that it survives the new path).
func (e *edits) move(from, to string) error {
	n, err := e.note(from)
	if err != nil {
		return err
	}
	if err := n.EnsureID(); err != nil {
		return err
	}
	e.moves[from] = to
	return nil
}

// follow rewrites, in every note the caller may write, each link that the
// edits would make name something else (in Obsidian, or at all), so that
// it names what it names now, as Obsidian's "automatically update internal
// links" does for a moved file: a link to a note or file that moves gets
// its new place, in its own style (Shift.Keep: a name stays a name while
// it is unique, a path a path, a relative path relative, a Markdown link
// Markdown; label and fragment stay); a link to something that stays put
// that a move would capture (a shorter path with its name, a note moving
// into its folder) gets a target that keeps naming it, labelled with what
// it showed, when everyone who may read the link may read its note (the
// guard's rule, upkeep.go; otherwise the guard decides). Links that keep
// naming what they name are left as written. These are the caller's own
// edits, reported to it; links in notes it may not write are the guard's,
// which keeps them without telling the caller about notes it cannot read.
func (e *edits) follow() error {
	own := map[string]map[string]keptAs{}
	readers := e.v.newReaderCheck()
	for _, sh := range e.v.graph().WhatIfMoved(e.planned(), nil, e.files, nil) {
		src := e.v.pathOf(sh.From)
		if sh.Keep == "" || src == "" || e.v.roleAt(e.c, src) < access.RoleWrite {
			continue
		}
		if !sh.Moved && !readers.allMayRead(src, sh.Before.Path) {
			continue
		}
		if _, err := e.note(src); err != nil {
			return err
		}
		if own[src] == nil {
			own[src] = map[string]keptAs{}
		}
		own[src][sh.Target] = keptAs{target: sh.Keep, label: !sh.Moved && sh.Before.How != wikilinks.ByPath}
	}
	for src, m := range own {
		keepLinks(e.notes[src], m)
	}
	return nil
}

// changes renders everything as commit changes: moves become a delete and
// an add, each checked against the version read. Typed links still in the
// legacy `links:` list move into properties on the way.
func (e *edits) changes() []gitstore.Change {
	var out []gitstore.Change
	paths := make([]string, 0, len(e.notes))
	for p := range e.notes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		n := e.notes[p]
		n.MigrateLinks() // a note cairn writes leaves the legacy links: list (note.MigrateLinks)
		if to, moved := e.moves[p]; moved {
			out = append(out,
				gitstore.Change{Path: p, Delete: true, CheckVersion: true, ExpectVersion: e.tokens[p], RequireClean: true},
				gitstore.Change{Path: to, Content: n.Render(), CheckVersion: true, ExpectVersion: "", RequireClean: true})
			continue
		}
		out = append(out, gitstore.Change{Path: p, Content: n.Render(), CheckVersion: true, ExpectVersion: e.tokens[p], RequireClean: true})
	}
	return out
}

// retargetRef replaces the target of a typed link's value ("[[T#frag|label]]"
// or a bare "T"), keeping its fragment and label.
func retargetRef(value, newTarget string) string {
	inner := strings.TrimSpace(value)
	inner = strings.TrimSuffix(strings.TrimPrefix(inner, "[["), "]]")
	rest := ""
	if i := strings.IndexAny(inner, "#|"); i >= 0 {
		rest = inner[i:]
	}
	return "[[" + newTarget + rest + "]]"
}

// planned is every note the edits touch, as the graph will see it once
// they are committed.
func (e *edits) planned() []wikilinks.Note {
	out := make([]wikilinks.Note, 0, len(e.notes))
	for p, n := range e.notes {
		to := p
		if m, ok := e.moves[p]; ok {
			to = m
		}
		out = append(out, wikilinks.Note{ID: n.ID, Path: to, Title: n.Title, Aliases: n.Aliases, Links: n.Links()})
	}
	return out
}
