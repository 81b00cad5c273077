package doctor

import (
	"fmt"

	"github.com/cairn-dev/cairn/vault"
)

// Repair fixes what is safe to fix without a person: it recovers a commit
// a crashed process left, removes the git locks and temporary files known
// to be abandoned (gitstore.Store.Leftovers says how that is known), and
// commits notes changed on disk and quiet, as the person's, brings back
// the writes a git operation left off the branch
// (vault.Vault.RestoreStranded), gives notes whose file repeats another's
// id an id of their own, and moves typed links out of the legacy links:
// list into properties (note.MigrateLinks). It returns one line per thing
// it did.
func Repair(v *vault.Vault) ([]string, error) {
	var did []string
	removed, rep, err := v.Store().RepairLeftovers()
	if rep != nil {
		did = append(did, "recovered: "+rep.String())
	}
	for _, l := range removed {
		did = append(did, fmt.Sprintf("removed %s %s (%s)", l.What, l.Path, l.Why))
	}
	if err != nil {
		return did, err
	}
	v.TakeStoreRecoveries()
	if err := v.Rescan(); err != nil {
		return did, err
	}
	committed, settling, err := v.CommitStrayEdits()
	if len(committed) > 0 {
		did = append(did, fmt.Sprintf("committed %d note(s) changed on disk, as the person's: %s", len(committed), abbreviate(committed, 5)))
	}
	if len(settling) > 0 {
		did = append(did, fmt.Sprintf("left %d note(s) saved in the last %s for later: %s", len(settling), v.Quiet(), abbreviate(settling, 5)))
	}
	if err != nil {
		return did, err
	}
	restored, err := v.RestoreStranded()
	did = append(did, restored...)
	if err != nil {
		return did, err
	}
	copies, err := v.RepairDuplicateIDs("cairn doctor", nil)
	for _, c := range copies {
		if c.Repaired {
			did = append(did, fmt.Sprintf("gave %s an id of its own, %s (it repeated the id %s of %s)", c.Path, c.NewID, c.ID, c.Kept))
		}
	}
	if err != nil {
		return did, err
	}
	cleaned, err := v.RemoveStaleConflictLinks()
	if len(cleaned) > 0 {
		did = append(did, fmt.Sprintf("removed the links to deleted conflict copies from %s", abbreviate(cleaned, 5)))
	}
	if err != nil {
		return did, err
	}
	migrated, err := v.MigrateLegacyLinks()
	if len(migrated) > 0 {
		did = append(did, fmt.Sprintf("moved the typed links of %d note(s) from the old links: list into properties: %s", len(migrated), abbreviate(migrated, 5)))
	}
	return did, err
}
