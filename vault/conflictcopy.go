package vault

// The conflict copy: the other version of a note kept whole beside it, and
// linked from it, when two changes cannot both stand in one file: a sync's
// true conflict (teamsync), a stranded write brought back over a later
// change (stranded.go).

import (
	"fmt"
	"path"
	"strings"

	"github.com/cairn-dev/cairn/vault/note"
	"gopkg.in/yaml.v3"
)

// LinkConflictCopy adds a link to the copy beside the note to the note's
// conflicts list (ConflictsKey): its file name, with "./" in a
// folder. The time stamp does not make the name unique: one sync may copy
// Plan.md and a/Plan.md alike, and Obsidian reads a bare name that is also
// a root file's path as that root file; "./" names the note's own folder
// (docs/link-resolution.md, "How a link resolves"). A note whose frontmatter
// cannot be read, or whose conflicts key is not a list, is left as it is.
func LinkConflictCopy(content []byte, copyPath string) ([]byte, bool) {
	if !strings.HasSuffix(copyPath, ".md") {
		return nil, false
	}
	n := note.Parse("note.md", content)
	if n.FrontmatterError() != nil {
		return nil, false
	}
	var items []string
	if k := n.KeyNode(note.ConflictsKey); k != nil {
		if k.Kind != yaml.SequenceNode {
			return nil, false
		}
		for _, it := range k.Content {
			items = append(items, it.Value)
		}
	}
	name := strings.TrimSuffix(path.Base(copyPath), ".md")
	if strings.Contains(copyPath, "/") {
		name = "./" + name
	}
	items = append(items, "[["+name+"]]")
	if n.SetList(note.ConflictsKey, items) != nil {
		return nil, false
	}
	return n.Render(), true
}

// ConflictCopyName is where the other side's version of p is kept:
// "Name (conflict 2026-12-01 101500).md" beside it, "… 101500 2).md" for
// the n-th (n > 1) copy of that second.
func ConflictCopyName(p, stamp string, n int) string {
	ext := path.Ext(p)
	if n > 1 {
		stamp = fmt.Sprintf("%s %d", stamp, n)
	}
	return strings.TrimSuffix(p, ext) + " (conflict " + stamp + ")" + ext
}

// ConflictCopy is theirs as a note of its own: its id removed (the copy
// gets one of its own; the original keeps the id, so links keep pointing
// at it), and where it came from said in its frontmatter.
func ConflictCopy(theirs []byte, commit string) []byte {
	n := note.Parse("copy.md", theirs)
	if n.FrontmatterError() != nil {
		return theirs
	}
	id := ""
	if n.IDSaved {
		id = n.ID
	}
	if n.DeleteKey("id") != nil {
		return theirs
	}
	if id != "" {
		n.SetKey("conflict_of", note.StrNode(id))
	}
	n.SetKey("conflict_from", note.StrNode(commit))
	return n.Render()
}
