package vault

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// staleConflictLinks are the entries of the note's conflicts list whose
// copy (beside the note, where the sync put it) is gone.
func (v *Vault) staleConflictLinks(n *note.Note) []string {
	k := n.KeyNode(note.ConflictsKey)
	if k == nil || len(k.Content) == 0 {
		return nil
	}
	var stale []string
	for _, it := range k.Content {
		name, ok := strings.CutPrefix(it.Value, "[[")
		if name, ok = strings.CutSuffix(name, "]]"); !ok || !strings.Contains(name, " (conflict ") {
			continue
		}
		if v.entry(path.Join(path.Dir(n.Path), name+".md"), false) == nil {
			stale = append(stale, it.Value)
		}
	}
	return stale
}

// removeStaleConflictLinks takes the entries whose copy is gone out of
// every note's conflicts list (the key goes when none is left), in one
// commit, and returns the notes changed.
func (v *Vault) removeStaleConflictLinks() ([]string, error) {
	paths := v.catalog.paths()
	var changes []gitstore.Change
	var done []string
	for _, p := range paths {
		data, err := readFileNoFollow(v.abs(p))
		if err != nil {
			continue
		}
		n := note.Parse(p, data)
		stale := v.staleConflictLinks(n)
		if len(stale) == 0 || n.FrontmatterError() != nil {
			continue
		}
		var keep []string
		for _, it := range n.KeyNode(note.ConflictsKey).Content {
			if !contains(stale, it.Value) {
				keep = append(keep, it.Value)
			}
		}
		if len(keep) == 0 {
			err = n.DeleteKey(note.ConflictsKey)
		} else {
			err = n.SetList(note.ConflictsKey, keep)
		}
		if err != nil {
			continue
		}
		n.MigrateLinks()
		changes = append(changes, gitstore.Change{Path: p, Content: n.Render(), RequireClean: true})
		done = append(done, p)
	}
	if len(changes) == 0 {
		return nil, nil
	}
	human := access.Caller{Principal: v.Owner(), Actor: "human", Tool: "cairn doctor"}
	if _, err := v.commit(human, "Remove links to resolved conflict copies", "", changes); err != nil && !errors.Is(err, gitstore.ErrNothingToCommit) {
		return nil, fmt.Errorf("remove links to resolved conflict copies: %w", err)
	}
	return done, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
