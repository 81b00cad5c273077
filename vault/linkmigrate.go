package vault

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// migrateAllLinks moves every committed note's legacy typed links into
// properties, in one commit (cairn doctor --fix), and returns the notes
// changed. A note changed on disk and not committed is left for later:
// a person's edit is never written over.
func (v *Vault) migrateAllLinks() ([]string, error) {
	dirty, err := v.Uncommitted()
	if err != nil {
		return nil, err
	}
	paths := v.catalog.paths()
	var changes []gitstore.Change
	var done []string
	for _, p := range paths {
		data, err := readFileNoFollow(v.abs(p))
		if err != nil || slices.Contains(dirty, p) {
			continue
		}
		n := note.Parse(p, data)
		if n.FrontmatterError() != nil || !n.HasLegacyLinks() || !n.MigrateLinks() {
			continue
		}
		changes = append(changes, gitstore.Change{Path: p, Content: n.Render(), RequireClean: true})
		done = append(done, p)
	}
	if len(changes) == 0 {
		return nil, nil
	}
	human := access.Caller{Principal: v.Owner(), Actor: "human", Tool: "cairn doctor"}
	if _, err := v.commit(human, "Move typed links into properties", "", changes); err != nil && !errors.Is(err, gitstore.ErrNothingToCommit) {
		return nil, fmt.Errorf("move typed links into properties: %w", err)
	}
	return done, nil
}
