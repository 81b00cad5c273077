package vault

import (
	"fmt"
	"strings"
)

// leftoverFindings reports what crashed processes left (an interrupted
// commit, git locks, temporary files) and notes changed on disk and not
// committed, for Doctor.
func (v *Vault) leftoverFindings() []Finding {
	var out []Finding
	add := func(level, check, format string, a ...any) {
		out = append(out, Finding{Level: level, Check: check, Message: fmt.Sprintf(format, a...)})
	}
	left, err := v.store.Leftovers()
	if err != nil {
		add("problem", "leftovers", "%v", err)
	}
	live := 0
	for _, l := range left {
		fix := "doctor --fix removes it"
		if !l.Safe {
			fix = "left alone"
		}
		if l.Live {
			live++ // a write under way, cairn's or git's: nothing was left
			continue
		}
		switch l.What {
		case "interrupted commit":
			add("problem", "crash", "%s (%s; doctor --fix now)", l.Why, l.Path)
		case "git lock":
			// A lock stops cairn's writes and git's alike.
			add("problem", "git lock", "%s (%s): %s; nothing can update what it locks while it exists", l.Path, fix, l.Why)
		default:
			add("warning", "temp file", "%s: %s (%s)", l.Path, l.Why, fix)
		}
	}
	if live > 0 {
		add("info", "leftovers", "%d lock or temporary file(s) of a write under way now (cairn's or git's): in use, not left behind", live)
	}
	if len(left) == live && err == nil {
		add("ok", "leftovers", "no interrupted commit, stale lock or temporary file")
	}
	changed, err := v.Uncommitted()
	switch {
	case err != nil:
		add("problem", "uncommitted", "%v", err)
	case len(changed) > 0:
		add("warning", "uncommitted", "%d note(s) changed on disk and not committed: %s (cairn serve commits them once quiet; doctor --fix does now)",
			len(changed), abbreviate(changed, 5))
	default:
		add("ok", "uncommitted", "every note is committed")
	}
	return out
}

// Repair fixes what is safe to fix without a person: it recovers a commit
// a crashed process left, removes the git locks and temporary files known
// to be abandoned (Leftovers says how that is known), and commits notes
// changed on disk and quiet, as the person's, brings back the writes a
// git operation left off the branch (stranded.go), gives notes whose file
// repeats another's id an id of their own, and moves typed links out of
// the legacy links: list into properties (note.MigrateLinks). It returns one
// line per thing it did.
func (v *Vault) Repair() ([]string, error) {
	var did []string
	removed, rep, err := v.store.RepairLeftovers()
	if rep != nil {
		did = append(did, "recovered: "+rep.String())
	}
	for _, l := range removed {
		did = append(did, fmt.Sprintf("removed %s %s (%s)", l.What, l.Path, l.Why))
	}
	if err != nil {
		return did, err
	}
	v.takeStoreRecoveries()
	if err := v.rescan(); err != nil {
		return did, err
	}
	committed, settling, err := v.CommitStrayEdits()
	if len(committed) > 0 {
		did = append(did, fmt.Sprintf("committed %d note(s) changed on disk, as the person's: %s", len(committed), abbreviate(committed, 5)))
	}
	if len(settling) > 0 {
		did = append(did, fmt.Sprintf("left %d note(s) saved in the last %s for later: %s", len(settling), v.quiet, abbreviate(settling, 5)))
	}
	if err != nil {
		return did, err
	}
	restored, err := v.restoreStranded()
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
	cleaned, err := v.removeStaleConflictLinks()
	if len(cleaned) > 0 {
		did = append(did, fmt.Sprintf("removed the links to deleted conflict copies from %s", abbreviate(cleaned, 5)))
	}
	if err != nil {
		return did, err
	}
	migrated, err := v.migrateAllLinks()
	if len(migrated) > 0 {
		did = append(did, fmt.Sprintf("moved the typed links of %d note(s) from the old links: list into properties: %s", len(migrated), abbreviate(migrated, 5)))
	}
	return did, err
}

func abbreviate(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:n], ", "), len(list)-n)
}
