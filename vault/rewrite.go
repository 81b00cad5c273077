package vault

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/wikilinks"
	"gopkg.in/yaml.v3"
)

// edits collects the notes a reorganization changes, so that everything
// it touches goes into one commit: each note is read once, changed in
// memory, and rendered at the end.
type edits struct {
	v      *Vault
	c      Caller
	notes  map[string]*Note // by current path
	moves  map[string]string
	tokens map[string]string // path → version read
	// What the link guard did to notes the change does not otherwise
	// touch (upkeep.go): links it rewrote to keep naming their note, links
	// it had to leave as written, and the shifts it kept.
	kept, left map[string]bool
	keptShifts []wikilinks.Shift
}

func (v *Vault) newEdits(c Caller) *edits {
	return &edits{v: v, c: c, notes: map[string]*Note{}, moves: map[string]string{}, tokens: map[string]string{},
		kept: map[string]bool{}, left: map[string]bool{}}
}

// note loads a note for changing (once), after committing any edit made on
// disk, and remembers the version it was read at for the compare-and-swap.
func (e *edits) note(p string) (*Note, error) {
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
	n := ParseNote(p, data)
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

// retarget rewrites, in every note the caller may write that links to id
// by a spelling pick accepts, the target text to newTarget. Body links are
// rewritten in place (label, fragment and surroundings kept); typed links
// in the frontmatter (link properties, legacy `links:` entries) get their
// value's target replaced. These are the caller's own
// edits, reported to it. Links in notes it may not write are left to the
// guard (upkeep.go), which keeps them naming the note without telling the
// caller about notes it cannot read, and never blocks on them.
func (e *edits) retarget(id string, pick func(wikilinks.Edge) bool, newTarget string) error {
	byPath := map[string][]wikilinks.Edge{}
	for _, ed := range e.v.cat.graph.Incoming(id, nil) {
		if !pick(ed) {
			continue
		}
		p := e.v.cat.pathOf(ed.From)
		byPath[p] = append(byPath[p], ed)
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if e.v.roleAt(e.c, p) < RoleWrite {
			continue
		}
		n, err := e.note(p)
		if err != nil {
			return err
		}
		rewriteLinks(n, byPath[p], newTarget)
	}
	return nil
}

// rewriteLinks replaces the target text of the given links of n.
func rewriteLinks(n *Note, which []wikilinks.Edge, newTarget string) {
	want := map[string]bool{}
	typed := false
	for _, ed := range which {
		want[ed.Target] = true
		typed = typed || ed.Typed
	}
	// Body: from the end, so earlier offsets stay valid.
	links := wikilinks.Parse(n.Body)
	body := n.Body
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		if l.Offset < 0 || !want[l.Target] {
			continue
		}
		body = append(append(append([]byte{}, body[:l.Offset]...), writtenAs(l, newTarget)...), body[l.Offset+l.Len:]...)
	}
	n.Body = body
	if typed {
		n.typedLinkValues(func(val *yaml.Node) bool {
			if t, _ := wikilinks.ParseRef(val.Value); !want[t] {
				return false
			}
			val.Value = retargetRef(val.Value, newTarget)
			val.Style = yaml.DoubleQuotedStyle
			return true
		})
	}
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
		n.MigrateLinks() // a note cairn writes leaves the legacy links: list (linkmigrate.go)
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

// pathTarget is how a path-form link to p is written: the vault path
// without .md.
func pathTarget(p string) string { return strings.TrimSuffix(p, ".md") }

// byPathLink picks links that found their note by its path.
func byPathLink(ed wikilinks.Edge) bool { return ed.How == wikilinks.ByPath }

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
