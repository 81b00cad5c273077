package teamsync

import (
	"fmt"

	"github.com/cairn-dev/cairn/vault"
)

// repairIDs gives every note whose file repeats another note's id (two
// clones made the same note, or a file was copied) an id of its own, in a
// commit the push then carries, and reports them. Sync runs it once the
// fetch has succeeded and again once the vault has taken what came in (so an id that
// arrived twice is seen). Which note keeps the id depends on the paths
// alone (vault.DuplicateIDs), so two clones that hold the same copy repair
// it the same way before they meet, and the two repairs merge as one
// change instead of conflicting on the copy's id.
func repairIDs(v *vault.Vault, rep *Report) error {
	copies, err := v.RepairDuplicateIDs("cairn sync", rep.Incoming)
	for _, c := range copies {
		replaced := false
		for i := range rep.IDs { // a retried push repairs again: one entry per copy
			if rep.IDs[i].Path == c.Path {
				rep.IDs[i], replaced = c, true
			}
		}
		if !replaced {
			rep.IDs = append(rep.IDs, c)
		}
	}
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}
