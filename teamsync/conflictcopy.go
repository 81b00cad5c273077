package teamsync

// The conflict copy: the other side of a true conflict kept whole as a
// note beside the original, and linked from it.

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/cairn-dev/cairn/vault"
	"gopkg.in/yaml.v3"
)

// linkCopy adds a link to the copy beside the note to the note's
// conflicts list (vault.ConflictsKey): its file name, with "./" in a
// folder. The time stamp does not make the name unique: one sync may copy
// Plan.md and a/Plan.md alike, and Obsidian reads a bare name that is also
// a root file's path as that root file; "./" names the note's own folder
// (docs/vault-format.md, "How a link resolves"). A note whose frontmatter
// cannot be read, or whose conflicts key is not a list, is left as it is.
func linkCopy(note []byte, copyPath string) ([]byte, bool) {
	if !strings.HasSuffix(copyPath, ".md") {
		return nil, false
	}
	n := vault.ParseNote("note.md", note)
	if n.FrontmatterError() != nil {
		return nil, false
	}
	var items []string
	if k := n.KeyNode(vault.ConflictsKey); k != nil {
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
	if n.SetList(vault.ConflictsKey, items) != nil {
		return nil, false
	}
	return n.Render(), true
}

// copyName is where the other side's version of p is kept:
// "Name (conflict 2026-12-01 101500).md" beside it, "… 101500 2).md" for
// the n-th (n > 1) copy of that second.
func copyName(p, stamp string, n int) string {
	ext := path.Ext(p)
	if n > 1 {
		stamp = fmt.Sprintf("%s %d", stamp, n)
	}
	return strings.TrimSuffix(p, ext) + " (conflict " + stamp + ")" + ext
}

// freeCopyName is the first copyName of p neither in the merged tree (a
// copy an earlier sync made in the same second, on either side) nor
// already given in this merge (taken), which it records.
func freeCopyName(ctx context.Context, g git, tree, p, stamp string, taken map[string]bool) string {
	for n := 1; ; n++ {
		name := copyName(p, stamp, n)
		if taken[name] || g.run(ctx, nil, "cat-file", "-e", tree+":"+name) == nil {
			continue
		}
		taken[name] = true
		return name
	}
}

// conflictCopy is theirs as a note of its own: its id removed (the copy
// gets one of its own; the original keeps the id, so links keep pointing
// at it), and where it came from said in its frontmatter.
func conflictCopy(theirs []byte, commit string) []byte {
	n := vault.ParseNote("copy.md", theirs)
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
		n.SetKey("conflict_of", vault.StrNode(id))
	}
	n.SetKey("conflict_from", vault.StrNode(commit))
	return n.Render()
}
