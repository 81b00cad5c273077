package vault

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// LinkArgs is one typed edge to add.
type LinkArgs struct {
	From    string `json:"from"`
	To      string `json:"to,omitempty"`
	ToTitle string `json:"toTitle,omitempty"`
	Type    string `json:"type"`
}

// LinkResult says what happened to one edge.
type LinkResult struct {
	From   string `json:"from"`
	Type   string `json:"type"`
	Target string `json:"target"`
	Status string `json:"status"` // created, unchanged (the edge was there), error
	Error  string `json:"error,omitempty"`
	ToID   string `json:"toId,omitempty"` // when the target resolves
}

// LinkOutcome is the answer of link and link_many.
type LinkOutcome struct {
	Results []LinkResult `json:"results"`
	Commit  string       `json:"commit,omitempty"`
}

// Link adds one typed edge from→target in the source note's frontmatter,
// as a link in the list property named after the type
// (`depends_on: ["[[Pricing]]"]`), in one commit; the same edge twice is
// one edge.
func (v *Vault) Link(c access.Caller, a LinkArgs) (*LinkOutcome, error) {
	out, errs, err := v.linkMany(c, []LinkArgs{a}, "")
	if err != nil {
		return nil, err
	}
	if errs[0] != nil {
		return nil, errs[0]
	}
	return out, nil
}

// LinkMany adds many typed edges, best effort: each gets its own result;
// all the edges that can be added go into one commit.
func (v *Vault) LinkMany(c access.Caller, links []LinkArgs, prefix string) (*LinkOutcome, error) {
	out, _, err := v.linkMany(c, links, prefix)
	return out, err
}

// linkMany is LinkMany that also returns each link's error as it was.
func (v *Vault) linkMany(c access.Caller, links []LinkArgs, prefix string) (*LinkOutcome, []error, error) {
	if len(links) == 0 {
		return nil, nil, argErr("links", "is empty")
	}
	if len(links) > 1000 {
		return nil, nil, argErr("links", "has %d links; at most 1000 a call", len(links))
	}
	e := v.newEdits(c)
	out := &LinkOutcome{}
	errs := make([]error, len(links))
	changed := map[string]bool{}
	for i, l := range links {
		arg := prefix
		if len(links) > 1 || prefix != "" {
			arg = fmt.Sprintf("links[%d].", i)
		}
		res := LinkResult{From: l.From, Type: l.Type, Target: l.To + l.ToTitle}
		p, toID, target, err := v.prepareLink(c, e, arg, l)
		if err != nil {
			errs[i] = err
			res.Status, res.Error = "error", err.Error()
			out.Results = append(out.Results, res)
			continue
		}
		res.ToID, res.Target = toID, target
		n := e.notes[p]
		switch {
		case hasTypedLink(n, l.Type, target, toID, v):
			res.Status = "unchanged"
		case note.LinkPropertyProblem(n, l.Type) != "":
			errs[i] = argErr(arg+"type", "%s", note.LinkPropertyProblem(n, l.Type))
			res.Status, res.Error = "error", errs[i].Error()
		default:
			if err := note.AddTypedLink(n, l.Type, target); err != nil {
				errs[i] = argErr(arg+"from", "%s: %v", p, err)
				res.Status, res.Error = "error", errs[i].Error()
				break
			}
			res.Status = "created"
			changed[p] = true
		}
		out.Results = append(out.Results, res)
	}
	// Only notes that gained an edge are written.
	for p := range e.notes {
		if !changed[p] {
			delete(e.notes, p)
		}
	}
	if len(e.notes) == 0 {
		return out, errs, nil
	}
	h, _, err := v.commitEdits(c, e, fmt.Sprintf("Link %d notes", len(changed)), "")
	if err != nil {
		return nil, nil, err
	}
	out.Commit = h
	return out, errs, nil
}

// prepareLink checks one edge and loads its source note into e.
func (v *Vault) prepareLink(c access.Caller, e *edits, arg string, l LinkArgs) (path, toID, target string, err error) {
	if err := v.checkLinkType(arg+"type", l.Type); err != nil {
		return "", "", "", err
	}
	if (l.To == "") == (l.ToTitle == "") {
		return "", "", "", argErr(arg+"to", "give exactly one of to (an existing note) or toTitle (a title, perhaps of a note not written yet)")
	}
	p, err := v.resolve(c, arg+"from", l.From)
	if err != nil {
		return "", "", "", err
	}
	if v.roleAt(c, p) < access.RoleWrite {
		return "", "", "", argErr(arg+"from", "you may read %s but not change it", p)
	}
	if l.To != "" {
		tp, err := v.resolve(c, arg+"to", l.To)
		if err != nil {
			return "", "", "", err
		}
		if !sameSpace(v, p, tp) {
			return "", "", "", argErr(arg+"to", "%q is in another space; links stay within one space", l.To)
		}
		if toID, target, err = v.linkTarget(arg+"to", p, tp); err != nil {
			return "", "", "", err
		}
	} else {
		target = strings.TrimSpace(l.ToTitle)
		if err := checkTitleRef(arg+"toTitle", target); err != nil {
			return "", "", "", err
		}
		if r := v.graph().ResolveFor(target, v.visibleTo(c)); r.Status == wikilinks.Resolved {
			toID = r.ID
			if !sameSpace(v, p, v.pathOf(r.ID)) {
				return "", "", "", argErr(arg+"toTitle", "%q names a note in another space; links stay within one space", target)
			}
		}
	}
	if _, err := e.note(p); err != nil {
		return "", "", "", err
	}
	return p, toID, target, nil
}

// sameSpace: both in one space, or both in one personal domain.
func sameSpace(v *Vault, a, b string) bool {
	sp := func(p string) string {
		if owner, _, ok := personalPath(p); ok {
			return PeopleDir + "/" + owner
		}
		if pr := v.projectSet().of(p); pr != nil {
			return pr.Space()
		}
		return ""
	}
	return sp(a) == sp(b)
}

// linkTarget is how a new typed link from the note at src to the note at
// p is written: by its file name or path in the vault's link format, never
// by its title (Obsidian resolves file names and paths only), so that
// Obsidian opens p (linkText). It returns the note's id too.
func (v *Vault) linkTarget(arg, src, p string, pending ...wikilinks.Note) (id, target string, err error) {
	if e := v.entry(p, true); e != nil {
		id = e.ID
	}
	target, err = v.linkText(arg, src, p, false, pending...)
	return id, target, err
}

// hasTypedLink says whether the note has the edge already: a link of
// the type written as target, or one that names the same note from the
// note's folder.
func hasTypedLink(n *note.Note, typ, target, toID string, v *Vault) bool {
	for _, l := range n.TypedLinks() {
		if l.Type != typ {
			continue
		}
		if strings.EqualFold(l.Target, target) {
			return true
		}
		if toID != "" {
			if r := v.graph().ResolveFrom(n.Path, l.Target, nil); r.Status == wikilinks.Resolved && r.ID == toID {
				return true
			}
		}
	}
	return false
}

// checkTitleRef checks a title given to name a note in a new link.
func checkTitleRef(arg, t string) error {
	if err := validText(arg, t); err != nil {
		return err
	}
	if err := checkVisible(arg, t); err != nil {
		return err
	}
	if strings.TrimSpace(t) == "" || strings.ContainsAny(t, "[]|#^\n\r\t") || len(t) > 300 {
		return argErr(arg, "%q must be a plain title of at most 300 bytes (no [ ] | # ^ or line breaks)", t)
	}
	return nil
}
