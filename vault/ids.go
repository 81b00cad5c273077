package vault

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// IDCopy is a note whose file carries an id that another note's file
// carries too: a file copied by hand, or the same note made in two clones
// (copied from one template) that a sync brought together. The catalog
// already resolves the id to one of them (Kept, the first path in order)
// and knows the other by an id of its own (NewID); a repair writes that id
// into the copy's frontmatter, so every clone and every tool that reads
// the files agrees from then on.
type IDCopy struct {
	ID       string `json:"id"`             // the id both files carry
	Kept     string `json:"kept"`           // the note that keeps it
	Path     string `json:"path"`           // the copy
	NewID    string `json:"newId"`          // the copy's own id (the one the vault already knows it by)
	Repaired bool   `json:"repaired"`       // NewID is now in the copy's file, committed
	Left     string `json:"left,omitempty"` // why a repair left it for later
}

// DuplicateIDs lists every note whose file repeats another note's id, as
// the catalog knows the files now, by path. Which note keeps the id is
// the catalog's choice (idOrder), so a repair moves no id the vault has
// handed out.
func (v *Vault) DuplicateIDs() []IDCopy {
	out := v.catalog.duplicateIDs()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// idOrder is the order in which the paths carrying one id claim it: the
// first keeps it. Paths compare without their ".md", so that a copy named
// after its original with something added ("Pricing 1.md", as Obsidian
// names a copy, or "Pricing copy.md", as Finder does) comes after it ("Pricing.md"
// would come after both by plain byte order, '.' being above ' '), and
// the original keeps its id, so links by id keep leading to it. A rule of
// the paths alone gives the same answer on every clone at any time: two
// clones repairing the same pair at once make the same change, which
// merges cleanly.
func idOrder(set []string) []string {
	paths := slices.Clone(set)
	sort.Slice(paths, func(i, j int) bool {
		return strings.TrimSuffix(paths[i], ".md") < strings.TrimSuffix(paths[j], ".md")
	})
	return paths
}

// copyID is the id a copy at p is given: the id the catalog knows it by
// (DerivedID), unless that is the very id it repeats (a note moved from p
// after its derived id was saved, and a new file without an id at p
// since), when it is derived once more so that the repair ends the clash.
func copyID(id, p string) string {
	if d := note.DerivedID(p); d != id {
		return d
	}
	return note.DerivedID(p + "\x00" + id)
}

// RepairDuplicateIDs gives each copy DuplicateIDs lists its own id, in
// one commit by tool on the owner's behalf: the id goes into the copy's
// frontmatter (the rest of the file is kept byte for byte), so links by
// title or path keep working, and links by id lead to the note that kept
// it, as they did before. changed are paths a sync has just written (they
// are read first, so that an id arriving with them counts).
//
// A copy edited on disk and not committed yet, not committed at all, or
// whose frontmatter cannot be read is left for later and says why (a
// person's edit is never written over); so is every copy when a write
// lands on one of them at the same moment. The error is for what stops
// the commit otherwise.
func (v *Vault) RepairDuplicateIDs(tool string, changed []string) ([]IDCopy, error) {
	v.readChanged(changed)
	copies := v.DuplicateIDs()
	var changes []gitstore.Change
	var fixed []int
	for i := range copies {
		ch, why := v.idRepair(copies[i])
		if why != "" {
			copies[i].Left = why
			continue
		}
		changes = append(changes, ch)
		fixed = append(fixed, i)
	}
	if len(changes) == 0 {
		return copies, nil
	}
	c := access.Caller{Principal: v.Owner(), Actor: "human", Tool: tool}
	var lines []string
	var trailers []gitstore.Trailer
	for _, i := range fixed {
		lines = append(lines, fmt.Sprintf("- %s: %s (it repeated the id of %s)", copies[i].Path, copies[i].NewID, copies[i].Kept))
		trailers = append(trailers, gitstore.Trailer{Key: "Cairn-Note", Value: copies[i].NewID})
	}
	msg := fmt.Sprintf("Give %d copied note(s) an id of their own\n\n%s", len(fixed), strings.Join(lines, "\n"))
	_, err := v.commit(c, msg, "", changes, trailers...)
	var ce *gitstore.ConflictError
	var de *gitstore.DirtyError
	switch {
	case errors.As(err, &ce) || errors.As(err, &de):
		for _, i := range fixed {
			copies[i].Left = "a write landed on it at the same moment; the next repair gives it its id"
		}
		return copies, nil
	case err != nil:
		return copies, fmt.Errorf("give copied notes an id of their own: %w", err)
	}
	for _, i := range fixed {
		copies[i].Repaired = true
	}
	return copies, nil
}

// readChanged brings the catalog up to date for paths written outside the
// vault's own commits (a sync's), before its ids are compared.
func (v *Vault) readChanged(paths []string) {
	if v.catalog.refresh(v.root, paths) > 0 {
		v.index.Soon()
	}
}

// idRepair is the change that writes a copy's own id into its file, or
// why it cannot be made now.
func (v *Vault) idRepair(c IDCopy) (gitstore.Change, string) {
	version, committed, err := v.store.Version(c.Path)
	switch {
	case err != nil:
		return gitstore.Change{}, err.Error()
	case !committed:
		return gitstore.Change{}, "not committed yet; the repair after its commit gives it its id"
	}
	if dirty, err := v.store.Dirty(c.Path); err != nil || dirty {
		return gitstore.Change{}, "changed on disk and not committed yet; the repair after its commit gives it its id"
	}
	data, err := readFileNoFollow(v.abs(c.Path))
	if err != nil {
		return gitstore.Change{}, err.Error()
	}
	n := note.Parse(c.Path, data)
	if n.ID != c.ID {
		return gitstore.Change{}, "its file changed since it was read"
	}
	if err := n.SetKey("id", note.StrNode(c.NewID)); err != nil {
		return gitstore.Change{}, err.Error()
	}
	return gitstore.Change{Path: c.Path, Content: n.Render(), CheckVersion: true, ExpectVersion: version, RequireClean: true}, ""
}
