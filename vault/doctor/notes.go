package doctor

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/note"
)

// noteFindings reads every note: names that cannot be shared, broken
// frontmatter, conflicts, stale conflict links, legacy typed links and
// copied ids. It returns, for each note, the lines before its body (the
// frontmatter's), which the link findings count from.
func noteFindings(v *vault.Vault, f *report) map[string]int {
	var broken, conflicts, resolved, legacy []string
	bodyLine := map[string]int{}
	paths := v.NotePaths()
	for _, p := range paths {
		data, err := v.ReadNoteFile(p)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		n := note.Parse(p, data)
		if err := n.FrontmatterError(); err == nil && n.HasLegacyLinks() && note.Parse(p, data).MigrateLinks() {
			legacy = append(legacy, p)
		}
		bodyLine[p] = bytes.Count(data[:len(data)-len(n.Body)], []byte{'\n'})
		if err := n.FrontmatterError(); err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", p, err))
		} else if c := unresolvedConflict(v, n); c != "" {
			conflicts = append(conflicts, c)
		} else if stale := v.StaleConflictLinks(n); len(stale) > 0 {
			resolved = append(resolved, fmt.Sprintf("%s still lists %s under %s, deleted: the conflict is resolved (doctor --fix removes the entry)",
				p, strings.Join(stale, ", "), note.ConflictsKey))
		}
	}
	f.add("ok", "notes", "%d notes", len(paths))
	for _, p := range paths {
		if why := vault.UnshareableName(p); why != "" {
			f.add("warning", "names", "%s is %s; it stays on this machine, uncommitted, until it is renamed", gitstore.QuotePath(p), why)
		}
	}
	for _, b := range broken {
		f.add("warning", "frontmatter", "%s (read as it is; writes refused until fixed)", b)
	}
	conflicts = append(conflicts, fileConflictCopies(v)...)
	for _, c := range conflicts {
		f.add("warning", "conflicts", "%s", c)
	}
	for _, c := range resolved {
		f.add("info", "conflict links", "%s", c)
	}
	if len(legacy) > 0 {
		f.add("info", "typed links", "%d note(s) keep typed links in the old links: list, which Obsidian's Properties cannot show: %s (read as before; cairn's next write of each moves them into properties, doctor --fix does it now)",
			len(legacy), abbreviate(legacy, 5))
	}
	for _, c := range v.DuplicateIDs() {
		f.add("warning", "ids", "%s repeats the id %s of %s, which keeps it; it is known by %s, which cairn sync or doctor --fix writes into its file", c.Path, c.ID, c.Kept, c.NewID)
	}
	return bodyLine
}

// unresolvedConflict describes n when it is a sync's conflict copy not yet
// resolved: its frontmatter still says conflict_from. Resolving is
// deleting the copy (its content merged into the original, or not wanted)
// or removing its conflict_from key (both notes kept): either is a
// person's decision, so the warning stays until one is made.
func unresolvedConflict(v *vault.Vault, n *note.Note) string {
	from := n.Scalar("conflict_from")
	if n.KeyNode("conflict_from") == nil {
		return ""
	}
	orig := ""
	if id := n.Scalar("conflict_of"); id != "" {
		orig = v.NotePathOf(id)
	}
	if orig == "" {
		if stem, _, ok := strings.Cut(n.Path, " (conflict "); ok {
			if p := stem + path.Ext(n.Path); v.HasNote(p) {
				orig = p
			}
		}
	}
	what := "a note no longer in the vault"
	if orig != "" {
		what = orig
	}
	return fmt.Sprintf("%s is the other version of %s, kept by a sync conflict (commit %s) and not yet resolved: "+
		"bring what you want of it into the note, then delete the copy (or remove its conflict_from key to keep both)",
		n.Path, what, short(from))
}

// fileCopyName is a sync's copy of a file other than a note: "name
// (conflict 2026-12-01 101500).ext", "… 101500 2).ext" (teamsync).
var fileCopyName = regexp.MustCompile(`^(.*) \(conflict \d{4}-\d{2}-\d{2} \d{6}(?: \d+)?\)(\.[^/.]*)?$`)

// fileConflictCopies are the copies a sync kept of files other than notes
// changed both ways (an image, Obsidian's settings): they carry no
// frontmatter to say so, their names do. They stay reported until deleted.
func fileConflictCopies(v *vault.Vault) []string {
	paths, err := v.Store().Paths()
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range paths {
		m := fileCopyName.FindStringSubmatch(p)
		if m == nil || strings.HasSuffix(p, ".md") || vault.InTrash(p) {
			continue // notes say so in their frontmatter; the trash holds what was resolved
		}
		out = append(out, fmt.Sprintf("%s is the other version of %s, kept by a sync conflict and not yet resolved: "+
			"keep what you want of the two in %s, then delete the copy", p, m[1]+m[2], m[1]+m[2]))
	}
	return out
}
