package vault

import (
	"testing"

	"github.com/cairn-dev/cairn/wikilinks/obsidianref"
)

// The link a kept note gets to its conflict copy names the copy by its
// file name, which Obsidian opens beside the note (same folder first, then
// the shortest path) even when one sync made copies of the same name in
// several folders: at the root, in a folder, in a folder whose name
// extends it.
func TestConflictCopyLinkOpensTheCopyBesideTheNote(t *testing.T) {
	notes := []string{"Plan.md", "a/Plan.md", "ab/Plan.md", "a/b/Plan.md"}
	var files []string
	for _, p := range notes {
		files = append(files, p, ConflictCopyName(p, "2026-12-01 101500", 1))
	}
	for _, p := range notes {
		linked, ok := LinkConflictCopy([]byte("# Plan\n"), ConflictCopyName(p, "2026-12-01 101500", 1))
		if !ok {
			t.Fatalf("%s: no link", p)
		}
		targets := obsidianref.Targets(files, p, linked)
		if len(targets) != 1 || targets[0].To != ConflictCopyName(p, "2026-12-01 101500", 1) {
			t.Fatalf("%s: %+v\n%s", p, targets, linked)
		}
	}
}
