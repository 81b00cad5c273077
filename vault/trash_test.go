package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

// legacyEntry writes a trash entry where cairn kept them before
// (.trash/<id>/), committed as an older cairn committed it.
func legacyEntry(t *testing.T, dir, id, path, content string) {
	t.Helper()
	full := filepath.Join(dir, legacyTrashDir, id, filepath.FromSlash(path))
	os.MkdirAll(filepath.Dir(full), 0o755)
	os.WriteFile(full, []byte(content), 0o644)
	meta := "path: " + path + "\nnoteId: " + id + "\ntitle: Legacy\ndeletedBy: owner\nactor: agent\ntool: delete_note\ndeletedAt: 2025-06-01T10:00:00Z\n"
	os.WriteFile(filepath.Join(dir, legacyTrashDir, id, trashMeta), []byte(meta), 0o644)
	gitOut(t, dir, "add", "-f", legacyTrashDir+"/"+id)
	gitOut(t, dir, "-c", "user.name=owner", "-c", "user.email=owner@cairn.local", "commit", "-qm", "Delete "+path+" (to the trash)")
}

// obsidianTrash is what Obsidian keeps in .trash/ in the test vault, plus
// a folder it trashed whose name happens to look like a trash id.
func obsidianTrash(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	lookalike := filepath.Join(dir, legacyTrashDir, "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	os.MkdirAll(lookalike, 0o755)
	os.WriteFile(filepath.Join(lookalike, "Inside.md"), []byte("# Inside\n"), 0o644)
	out := map[string]fileState{}
	for p, f := range personsFiles(t, dir) {
		if strings.HasPrefix(p, legacyTrashDir+"/") {
			out[p] = f
		}
	}
	return out
}

func trashIDs(t *testing.T, v *Vault) []string {
	t.Helper()
	es, err := v.TrashList()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.TrashID+" "+e.Path)
	}
	return out
}

// cairn's trash (.cairn/trash/, and .trash/<id>/ in an older vault) and
// Obsidian's (.trash/, flat by name) side by side: each lists, restores
// and empties its own, and Obsidian's files are never entries, notes, or
// touched.
func TestCairnsTrashAndObsidiansSideBySide(t *testing.T) {
	dir := obsidianCopy(t)
	if _, err := Init(dir, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	theirs := obsidianTrash(t, dir)
	const legacyID = "01JZ3K5N0M8VQXW2R4T6Y9B0CD"
	legacyEntry(t, dir, legacyID, "Notes/Legacy.md", "# Legacy\n\nDeleted by an older cairn.\n")
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.NoteCount() != 7 {
		t.Fatalf("%d notes: a trash holds none of the vault's", v.NoteCount())
	}
	welcome := readFile(t, filepath.Join(dir, "Welcome.md"))
	d, err := v.DeleteNote(owner, "Welcome", "")
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(dir, TrashDir, d.TrashID, "Welcome.md")) != welcome {
		t.Fatal("the deleted note is not in .cairn/trash/<id>/ at its path")
	}
	if got := trashIDs(t, v); len(got) != 2 || got[0] != d.TrashID+" Welcome.md" || got[1] != legacyID+" Notes/Legacy.md" {
		t.Fatalf("trash list: %q", got)
	}
	cleanAndSound(t, dir)

	// Restore the older vault's entry: back where it was, and gone from .trash/.
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn trash restore"}
	if w, err := v.TrashRestore(human, legacyID, ""); err != nil || w.Path != "Notes/Legacy.md" {
		t.Fatalf("restore the legacy entry: %+v %v", w, err)
	}
	if strings.Contains(gitOut(t, dir, "ls-files", legacyTrashDir), legacyID) {
		t.Fatal("the restored legacy entry is still tracked")
	}
	if w, err := v.TrashRestore(human, d.TrashID, ""); err != nil || readFile(t, filepath.Join(dir, w.Path)) != welcome {
		t.Fatalf("restore: %+v %v", w, err)
	}
	if got := trashIDs(t, v); len(got) != 0 {
		t.Fatalf("trash after restoring both: %q", got)
	}

	// Empty: cairn's entries go, Obsidian's files stay.
	for _, ref := range []string{"Welcome", "Project X"} {
		if _, err := v.DeleteNote(owner, ref, ""); err != nil {
			t.Fatal(err)
		}
	}
	empty := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn trash empty"}
	if n, err := v.TrashEmpty(empty, nil); err != nil || n != 2 {
		t.Fatalf("empty: %d %v", n, err)
	}
	if got := gitOut(t, dir, "ls-files", TrashDir, legacyTrashDir); got != "" {
		t.Fatalf("left in the trash after emptying: %q", got)
	}
	sameFiles(t, dir, theirs, "Obsidian's trash")
	cleanAndSound(t, dir)
}

// A trash entry's .deleted.yaml arrives by sync from anyone who can push:
// one that names a path outside the notes (.git, .obsidian, ..) is no
// entry, and restoring it writes nothing.
func TestATrashEntryNamingNoNotePathIsRefused(t *testing.T) {
	v, dir := sampleVault(t)
	for i, bad := range []string{".git/hooks/pre-commit.md", ".obsidian/plugins/x/main.md", "../outside.md", "a/../../b.md", "/etc/x.md", "acme/x.txt", ""} {
		id := "01JXAMPLE00000000000000" + string(rune('A'+i)) + "ZZ"
		meta := "path: " + bad + "\n"
		os.MkdirAll(filepath.Join(dir, TrashDir, id), 0o755)
		os.WriteFile(filepath.Join(dir, TrashDir, id, trashMeta), []byte(meta), 0o644)
		head := gitOut(t, dir, "rev-parse", "HEAD")
		if got := trashIDs(t, v); len(got) != 0 {
			t.Fatalf("%q listed: %q", bad, got)
		}
		human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn trash restore"}
		if _, err := v.TrashRestore(human, id, ""); err == nil || !strings.Contains(err.Error(), "not the path of a note") {
			t.Fatalf("restore of %q: %v", bad, err)
		}
		if got := gitOut(t, dir, "rev-parse", "HEAD"); got != head {
			t.Fatalf("restore of %q committed", bad)
		}
		os.RemoveAll(filepath.Join(dir, TrashDir, id))
	}
	if _, err := v.TrashRestore(owner, "NOPE", ""); err == nil || !strings.Contains(err.Error(), `no trash entry "NOPE"`) {
		t.Fatalf("restore of an unknown id: %v", err)
	}
}
