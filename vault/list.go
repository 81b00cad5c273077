package vault

import (
	"encoding/base64"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/vault/access"
)

// ListNotes lists the notes and subfolders directly in one folder, folders
// first, then notes, each by name. Personal domains and banks never show:
// list_notes is the shared knowledge base.
func (v *Vault) ListNotes(c access.Caller, a ListArgs) (*Listing, error) {
	if a.Limit == 0 {
		a.Limit = DefaultListLimit
	}
	if a.Limit < 1 || a.Limit > MaxListLimit {
		return nil, argErr("limit", "must be between 1 and %d", MaxListLimit)
	}
	if err := validText("tag", a.Tag); err != nil {
		return nil, err
	}
	if err := v.syncHead(); err != nil {
		return nil, err
	}
	dir, pr, err := v.listedFolder(c, a)
	if err != nil {
		return nil, err
	}
	items, err := os.ReadDir(v.abs(dir))
	if err != nil || (dir != "" && v.roleAt(c, dir) == access.RoleNone && !v.anyReadableBelow(c, dir)) {
		return nil, notFound("path", fmt.Sprintf("no folder %q is accessible", a.Path))
	}
	after := ""
	if a.Cursor != "" {
		if after, err = readListCursor(a.Cursor, dir, a.Tag); err != nil {
			return nil, err
		}
	}
	ps := v.projectSet()
	all := v.listEntries(c, dir, a.Tag, items, ps)
	start := 0
	if after != "" {
		start = sort.Search(len(all), func(i int) bool { return sortKey(all[i]) > after })
	}
	out := &Listing{Path: dir, Entries: []Entry{}}
	if pr != nil {
		out.Project = pr.Handle
	} else if own := ps.of(dir); own != nil {
		out.Project = own.Handle
	}
	end := min(start+a.Limit, len(all))
	out.Entries = append(out.Entries, all[start:end]...)
	if end < len(all) {
		out.NextCursor = listCursor(dir, a.Tag, sortKey(all[end-1]))
	}
	return out, nil
}

// listedFolder is the folder list_notes lists: the path, inside the
// project when one is named (and the project), checked to be shared
// knowledge, not private memory, and reached through no symlink.
func (v *Vault) listedFolder(c access.Caller, a ListArgs) (string, *Project, error) {
	dir, err := cleanRel("path", a.Path)
	if err != nil {
		return "", nil, err
	}
	var pr *Project
	if a.Project != "" {
		if pr, _, err = v.project(c, "project", a.Project); err != nil {
			return "", nil, err
		}
		if !pr.holds(dir) {
			if dir, err = cleanRel("path", pr.within(dir)); err != nil {
				return "", nil, err
			}
		}
		if own := v.projectSet().of(dir); own == nil || (own != pr && !pr.holds(own.Dir)) {
			return "", nil, argErr("path", "%q is not inside project %s", a.Path, pr.Handle)
		}
	}
	if top, _, _ := strings.Cut(dir, "/"); top == PeopleDir || top == BanksDir {
		return "", nil, argErr("path", "%q is private memory, not part of the shared knowledge base", a.Path)
	}
	if err := v.noSymlinks("path", dir); err != nil {
		return "", nil, err
	}
	return dir, pr, nil
}

// listEntries are the folder's items c may see, folders first, then
// notes (with tag, only those carrying it), each by name.
func (v *Vault) listEntries(c access.Caller, dir, tag string, items []os.DirEntry, ps *projectSet) []Entry {
	var folders, notes []Entry
	for _, it := range items {
		name := it.Name()
		rel := strings.TrimPrefix(dir+"/"+name, "/")
		if strings.HasPrefix(name, ".") || (dir == "" && (name == PeopleDir || name == BanksDir)) {
			continue
		}
		if it.IsDir() {
			if v.roleAt(c, rel) == access.RoleNone && !v.anyReadableBelow(c, rel) {
				continue
			}
			e := Entry{Kind: "folder", Path: rel, Name: name}
			if p := ps.byDir[rel]; p != nil {
				e.Project = p.Handle
			}
			folders = append(folders, e)
			continue
		}
		if !it.Type().IsRegular() || !isNotePath(rel) || v.roleAt(c, rel) == access.RoleNone {
			continue
		}
		e := Entry{Kind: "note", Path: rel, Name: name}
		if ce := v.entry(rel, true); ce != nil {
			e.ID, e.Title, e.Type, e.Tags = ce.ID, ce.Title, ce.Type, ce.Tags
		}
		if tag != "" && !hasTag(e.Tags, tag) {
			continue
		}
		notes = append(notes, e)
	}
	sort.Slice(folders, func(i, j int) bool { return folders[i].Name < folders[j].Name })
	sort.Slice(notes, func(i, j int) bool { return notes[i].Name < notes[j].Name })
	return append(folders, notes...)
}

// Entry is one line of a folder listing: a subfolder or a note.
type Entry struct {
	Kind  string   `json:"kind"` // "folder" or "note"
	Path  string   `json:"path"`
	Name  string   `json:"name"`
	ID    string   `json:"id,omitempty"`
	Title string   `json:"title,omitempty"`
	Type  string   `json:"type,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	// Project is set on a folder that is a project of its own.
	Project string `json:"project,omitempty"`
}

// Listing is one page of a folder.
type Listing struct {
	Project    string  `json:"project,omitempty"`
	Path       string  `json:"path"`
	Entries    []Entry `json:"entries"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// ListArgs are list_notes' arguments.
type ListArgs struct {
	Project string
	Path    string
	Tag     string
	Cursor  string
	Limit   int
}

// Default and maximum page sizes of ListNotes.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// A list_notes cursor is the sort key of the last entry given (the next
// page starts after it, so entries added or removed meanwhile shift
// nothing), bound to the folder and tag it was made for. It is checked,
// not trusted: a forged or foreign cursor is an error naming it, never a
// page that is silently empty or of another folder.
const listCursorVersion = "l1"

func listCursor(dir, tag, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(listCursorVersion + "\x00" + dir + "\x00" + tag + "\x00" + key))
}

// readListCursor returns the sort key a cursor holds, if it is one
// list_notes gave for this folder and tag.
func readListCursor(cursor, dir, tag string) (string, error) {
	bad := argErr("cursor", "is not a cursor list_notes gave for this folder and tag; list again without a cursor")
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := strings.Split(string(b), "\x00")
	if err != nil || len(parts) != 4 || parts[0] != listCursorVersion || parts[1] != dir || parts[2] != tag {
		return "", bad
	}
	key := parts[3]
	if len(key) < 2 || (key[0] != '0' && key[0] != '1') || strings.Contains(key, "/") || !utf8.ValidString(key) {
		return "", bad
	}
	return key, nil
}

// sortKey orders folders before notes, then by name.
func sortKey(e Entry) string {
	if e.Kind == "folder" {
		return "0" + e.Name
	}
	return "1" + e.Name
}
