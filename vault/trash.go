package vault

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/oklog/ulid/v2"
	"gopkg.in/yaml.v3"
)

// TrashEntry is one deleted note, kept in .cairn/trash/<id>/ at its
// original path, with a .deleted.yaml that says where it came from, who
// deleted it and when. Only people restore or empty the trash (the command
// line).
//
// The trash lives under .cairn/ because .trash/ is Obsidian's: its "move to
// Obsidian trash" puts deleted files there, flat, by name, and never looks
// inside .cairn/. Vaults made before kept cairn's entries in .trash/<id>/;
// those are still listed, restored and emptied where they are (legacyTrashDir),
// so nothing is moved behind anyone's back and an older cairn on another
// member's machine, still writing there, stays understood. Obsidian's own
// files in .trash/ are never taken for entries.
type TrashEntry struct {
	TrashID   string    `yaml:"trashId" json:"trashId"`
	Path      string    `yaml:"path" json:"path"`
	NoteID    string    `yaml:"noteId" json:"noteId"`
	Title     string    `yaml:"title" json:"title"`
	DeletedBy string    `yaml:"deletedBy" json:"deletedBy"`
	Actor     string    `yaml:"actor" json:"actor"`
	Tool      string    `yaml:"tool" json:"tool"`
	DeletedAt time.Time `yaml:"deletedAt" json:"deletedAt"`
	Version   string    `yaml:"version" json:"version"` // the note's versionToken when deleted

	dir string // the entry's folder: TrashDir/<id>, or legacyTrashDir/<id>
}

const trashMeta = ".deleted.yaml"

// legacyTrashDir is where vaults made before kept cairn's trash entries,
// and where Obsidian keeps its own trash.
const legacyTrashDir = ".trash"

// Deleted is what delete_note returns.
type Deleted struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	TrashID string `json:"trashId"`
	Commit  string `json:"commit"`
}

// DeleteNote moves a note to the trash in one commit. With a versionToken
// it is a compare-and-swap like edit_note.
func (v *Vault) DeleteNote(c access.Caller, ref, versionToken string) (*Deleted, error) {
	if versionToken != "" && !isHex40(versionToken) {
		return nil, argErr("versionToken", "%q is not a versionToken (40 hex digits from get_note)", versionToken)
	}
	p, cur, data, err := v.forWrite(c, ref, versionToken)
	if err != nil {
		return nil, err
	}
	n := note.Parse(p, data)
	v.adoptID(n)
	e := TrashEntry{TrashID: note.NewID(), Path: p, NoteID: n.ID, Title: n.Title, DeletedBy: c.Principal,
		Actor: actorOf(c), Tool: c.Tool, DeletedAt: time.Now().UTC().Truncate(time.Second), Version: cur}
	meta, _ := yaml.Marshal(e)
	dir := TrashDir + "/" + e.TrashID
	hash, err := v.commit(c, fmt.Sprintf("Delete %s (to the trash)", p), n.ID, []gitstore.Change{
		{Path: p, Delete: true, CheckVersion: true, ExpectVersion: cur, RequireClean: true},
		{Path: dir + "/" + p, Content: data},
		{Path: dir + "/" + trashMeta, Content: meta},
	})
	if err != nil {
		return nil, v.writeErr(ref, p, err)
	}
	return &Deleted{ID: n.ID, Path: p, TrashID: e.TrashID, Commit: hash}, nil
}

// TrashList lists the trash, newest first: the entries under TrashDir and
// those an older cairn left in .trash/ (never Obsidian's files there).
func (v *Vault) TrashList() ([]TrashEntry, error) {
	var out []TrashEntry
	seen := map[string]bool{}
	for _, root := range []string{TrashDir, legacyTrashDir} {
		items, err := os.ReadDir(v.abs(root))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list the trash: %w", err)
		}
		for _, it := range items {
			if !it.IsDir() || seen[it.Name()] {
				continue
			}
			e, err := v.trashEntryIn(root, it.Name())
			if err != nil {
				continue // not an entry: Obsidian's trash, or something by hand
			}
			seen[e.TrashID] = true
			out = append(out, *e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TrashID > out[j].TrashID })
	return out, nil
}

// trashEntry finds a trash entry by its id, in TrashDir or else where an
// older cairn kept it.
func (v *Vault) trashEntry(id string) (*TrashEntry, error) {
	e, err := v.trashEntryIn(TrashDir, id)
	if errors.Is(err, errNoEntry) {
		e, err = v.trashEntryIn(legacyTrashDir, id)
	}
	if errors.Is(err, errNoEntry) {
		return nil, fmt.Errorf("no trash entry %q (cairn trash list shows them)", id)
	}
	return e, err
}

var errNoEntry = errors.New("no such trash entry")

// trashEntryIn reads the entry id under root. In .trash/, only a folder
// named by a ULID (a trash id) with a .deleted.yaml is one: Obsidian names
// what it trashes after the file or folder deleted. The path the entry
// names must be a note's, since it decides where a restore writes, and
// the file arrives by sync from anyone who can push.
func (v *Vault) trashEntryIn(root, id string) (*TrashEntry, error) {
	if id == "" || strings.ContainsAny(id, "/\\.") {
		return nil, errNoEntry
	}
	if root == legacyTrashDir {
		if _, err := ulid.ParseStrict(id); err != nil {
			return nil, errNoEntry
		}
	}
	dir := root + "/" + id
	data, err := os.ReadFile(v.abs(dir + "/" + trashMeta))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoEntry
	}
	if err != nil {
		return nil, fmt.Errorf("trash entry %s: %w", id, err)
	}
	var e TrashEntry
	if err := yaml.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("trash entry %s: %w", id, err)
	}
	if !trashablePath(e.Path) {
		return nil, fmt.Errorf("trash entry %s: %q in its %s is not the path of a note", id, e.Path, trashMeta)
	}
	e.TrashID, e.dir = id, dir
	return &e, nil
}

// trashablePath says whether p can be a deleted note's path: relative,
// clean, a .md file outside dot-folders (so a restore never writes into
// .git, .cairn or .obsidian).
func trashablePath(p string) bool {
	return p != "" && p == path.Clean(p) && !strings.HasPrefix(p, "/") && strings.HasSuffix(p, ".md") && !hiddenSegment(p)
}

// TrashRestore puts a trashed note back at its original path (or at to, a
// vault path, when given), in one commit by a human.
func (v *Vault) TrashRestore(c access.Caller, id, to string) (*Written, error) {
	e, err := v.trashEntry(id)
	if err != nil {
		return nil, err
	}
	dest := e.Path
	if to != "" {
		if dest, err = cleanRel("to", to); err != nil {
			return nil, err
		}
		if !strings.HasSuffix(dest, ".md") {
			dest += "/" + baseName(e.Path)
		}
	}
	if _, err := os.Lstat(v.abs(dest)); err == nil {
		return nil, fmt.Errorf("%s exists again; restore elsewhere with --to FOLDER", dest)
	}
	src := e.dir + "/" + e.Path
	data, err := os.ReadFile(v.abs(src))
	if err != nil {
		return nil, fmt.Errorf("trash entry %s has lost its file: %w", id, err)
	}
	hash, err := v.commit(c, fmt.Sprintf("Restore %s from the trash", dest), e.NoteID, []gitstore.Change{
		{Path: dest, Content: data, CheckVersion: true, ExpectVersion: ""},
		{Path: src, Delete: true},
		{Path: e.dir + "/" + trashMeta, Delete: true},
	})
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", id, err)
	}
	return &Written{ID: e.NoteID, Path: dest, Title: e.Title, VersionToken: hash, Project: v.projectHandle(dest)}, nil
}

// TrashEmpty removes trash entries (all when ids is empty) in one commit.
// The notes stay in git history; emptying only takes them out of the tree.
func (v *Vault) TrashEmpty(c access.Caller, ids []string) (int, error) {
	entries, err := v.TrashList()
	if err != nil {
		return 0, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		if _, err := v.trashEntry(id); err != nil {
			return 0, err
		}
		want[id] = true
	}
	var changes []gitstore.Change
	count := 0
	for _, e := range entries {
		if len(want) > 0 && !want[e.TrashID] {
			continue
		}
		count++
		changes = append(changes,
			gitstore.Change{Path: e.dir + "/" + e.Path, Delete: true},
			gitstore.Change{Path: e.dir + "/" + trashMeta, Delete: true})
	}
	if count == 0 {
		return 0, nil
	}
	if _, err := v.commit(c, fmt.Sprintf("Empty the trash (%d notes)", count), "", changes); err != nil {
		return 0, fmt.Errorf("empty the trash: %w", err)
	}
	return count, nil
}
