package vault

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// The hooks package vault/doctor (cairn doctor and its --fix) needs
// beyond the rest of the exported API: what only the catalog, the link
// graph or the write path knows, each returned as plain data, and the
// three repairs that commit through the vault's own write path. Nothing
// else calls them; vault never imports vault/doctor.

// Rescan walks the vault again (project markers, and every note whose
// size or mtime changed). Used by vault/doctor: Check reports a scan
// that fails, Repair rescans after the store's own repair.
func (v *Vault) Rescan() error { return v.rescan() }

// ScannedProjects are the projects and the marker problems the last scan
// found, without scanning again (ProjectList rescans first). Used by
// vault/doctor right after its Rescan.
func (v *Vault) ScannedProjects() (projects []*Project, problems []string) {
	ps := v.projectSet()
	return ps.list, ps.problems
}

// NotePaths lists every note path the catalog holds, sorted, whoever may
// read it. Used by vault/doctor, which reads every note.
func (v *Vault) NotePaths() []string { return v.catalog.paths() }

// ReadNoteFile (hooks_families.go) also serves vault/doctor, whose
// findings quote its errors.

// NotePathOf is the path of the note with id in the shared link graph (""
// when unknown). Used by vault/doctor to name the notes a link or a
// conflict copy points to.
func (v *Vault) NotePathOf(id string) string { return v.pathOf(id) }

// HasNote says whether the catalog holds a note at p, without reading
// it. Used by vault/doctor to find the original of a conflict copy.
func (v *Vault) HasNote(p string) bool { return v.entry(p, false) != nil }

// StaleConflictLinks are the entries of n's conflicts list whose copy is
// gone. Used by vault/doctor, which reports them (RemoveStaleConflictLinks
// removes them).
func (v *Vault) StaleConflictLinks(n *note.Note) []string { return v.staleConflictLinks(n) }

// UnshareableName says why a file at p is never committed for its name
// ("" when it may be). Used by vault/doctor, which lists such notes.
func UnshareableName(p string) string { return unshareableName(p) }

// InTrash says whether the vault path p lies in a trash: cairn's
// (TrashDir) or the older one that Obsidian uses too. Used by
// vault/doctor, which leaves what the trash holds out of its conflicts.
func InTrash(p string) bool {
	return strings.HasPrefix(p, TrashDir+"/") || strings.HasPrefix(p, legacyTrashDir+"/")
}

// ObsidianLinkSettings is how cairn writes a new link now, as the vault's
// Obsidian settings say (read at each call). Used by vault/doctor, which
// reports them and their Problem.
func (v *Vault) ObsidianLinkSettings() LinkSettings { return v.linkSettings() }

// LinkAudit lists every link of the shared graph that is not plainly
// sound (wikilinks.Graph.Audit): forward references, ambiguous links and
// links only cairn resolves. Used by vault/doctor's link findings.
func (v *Vault) LinkAudit() []wikilinks.Edge { return v.graph().Audit() }

// NewLinkText is the target a new link in the note at src gets, in
// format, so that Obsidian opens the file at path (false when no link can
// name it: wikilinks.Graph.NewLinkText). Used by vault/doctor to say what
// to write instead of a link Obsidian does not resolve.
func (v *Vault) NewLinkText(path, src, format string, markdown bool) (string, bool) {
	return v.graph().NewLinkText(path, src, format, markdown)
}

// WatchedFolders counts the folders cairn serve's watcher watches (one
// inotify watch each): the vault's root and every folder below it that is
// neither hidden nor ignored by git. Used by vault/doctor.
func (v *Vault) WatchedFolders() int {
	folders := 0
	ign := v.ignoreMatcher()
	filepath.WalkDir(v.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(v.root, p)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || ignored(ign, filepath.ToSlash(rel), true)) {
			return filepath.SkipDir
		}
		folders++
		return nil
	})
	return folders
}

// TakeStoreRecoveries collects what the store recovered (an interrupted
// commit finished or dropped) and brings the catalog up to date for the
// paths it changed. Used by vault/doctor's Repair after
// gitstore.Store.RepairLeftovers.
func (v *Vault) TakeStoreRecoveries() []gitstore.RecoveryReport { return v.takeStoreRecoveries() }

// RestoreStranded brings back, as new commits on the vault's branch, the
// writes a git operation left off it (stranded.go), and says what it did.
// Used by vault/doctor's Repair (cairn doctor --fix).
func (v *Vault) RestoreStranded() ([]string, error) { return v.restoreStranded() }

// RemoveStaleConflictLinks takes the entries whose conflict copy is gone
// out of every note's conflicts list, in one commit, and returns the
// notes changed. Used by vault/doctor's Repair (cairn doctor --fix).
func (v *Vault) RemoveStaleConflictLinks() ([]string, error) { return v.removeStaleConflictLinks() }

// MigrateLegacyLinks moves every committed note's typed links out of the
// legacy links: list into properties, in one commit, and returns the
// notes changed. Used by vault/doctor's Repair (cairn doctor --fix).
func (v *Vault) MigrateLegacyLinks() ([]string, error) { return v.migrateAllLinks() }
