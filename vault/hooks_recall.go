package vault

import (
	"strconv"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/wikilinks"
)

// Hooks for package vault/recall (the recall tool): what it needs of the
// vault beyond the exported API, each as narrow as recall's use of it.

// PlanSearch checks a search's arguments as Search does and gives the
// query it would run for c, with the scopes c may read; inProject says it
// is narrowed to a project. queryArg names the text's argument in errors.
func (v *Vault) PlanSearch(c access.Caller, a SearchArgs, queryArg string) (q search.Query, inProject bool, err error) {
	plan, err := v.planSearch(c, a, queryArg)
	if err != nil {
		return search.Query{}, false, err
	}
	return plan.q, plan.project != nil, nil
}

// SearchRuns counts a search while it runs, for the index's lane of long
// notes to let it go first; call done when it is finished, packing
// included.
func (v *Vault) SearchRuns() (done func()) { return v.index.SearchRuns() }

// CanRead says whether c may read the note at rel.
func (v *Vault) CanRead(c access.Caller, rel string) bool {
	return v.roleAt(c, rel) >= access.RoleRead
}

// NoteTitle is the id and title the catalog knows the note at rel by, and
// whether it knows the note.
func (v *Vault) NoteTitle(rel string) (id, title string, ok bool) {
	e := v.entry(rel, false)
	if e == nil {
		return "", "", false
	}
	return e.ID, e.Title, true
}

// Neighbour is a note one link away from another.
type Neighbour struct {
	Path     string
	Edge     wikilinks.Edge
	Outgoing bool // the link goes from the other note to this one
}

// Neighbours are the notes one link away from the note at rel, as c may
// see the links: those it links to (resolved links only), then those
// linking to it; never the note itself. Empty when the catalog does not
// know the note.
func (v *Vault) Neighbours(c access.Caller, rel string) []Neighbour {
	var out []Neighbour
	for _, n := range v.linksAround(rel, v.visibleTo(c)) {
		if n.Path != "" && n.Path != rel {
			out = append(out, n)
		}
	}
	return out
}

// linksAround are the notes at the other end of the links of the note at
// rel, as vis lets see them (nil: every link): those it links to
// (resolved links only), then those linking to it. A path is "" where the
// catalog knows no note by the id; nil when it does not know rel.
func (v *Vault) linksAround(rel string, vis wikilinks.Visible) []Neighbour {
	e := v.entry(rel, false)
	if e == nil {
		return nil
	}
	var out []Neighbour
	for _, ed := range v.graph().Outgoing(e.ID, vis) {
		if ed.Status == wikilinks.Resolved {
			out = append(out, Neighbour{Path: v.pathOf(ed.ID), Edge: ed, Outgoing: true})
		}
	}
	for _, ed := range v.graph().Incoming(e.ID, vis) {
		out = append(out, Neighbour{Path: v.pathOf(ed.From), Edge: ed})
	}
	return out
}

// ClassOf is the class of the note at rel, from where it lives.
func ClassOf(rel string) string { return classOf(rel) }

// PersonalPath says whether rel is in a principal's personal domain
// (people/<principal>/…), and whose.
func PersonalPath(rel string) (principal string, ok bool) {
	principal, _, ok = personalPath(rel)
	return principal, ok
}

// RoundScore keeps three significant digits of a score: enough to compare
// hits, and 0.09090909090909091 cost an agent eleven tokens for nothing.
func RoundScore(f float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	if err != nil {
		return f
	}
	return r
}
