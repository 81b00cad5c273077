package vault

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"gopkg.in/yaml.v3"
)

// Moved is what the reorganizing tools return.
type Moved struct {
	ID           string   `json:"id,omitempty"`
	From         string   `json:"from"`
	To           string   `json:"to"`
	Title        string   `json:"title,omitempty"`
	VersionToken string   `json:"versionToken,omitempty"`
	Commit       string   `json:"commit"`
	Notes        int      `json:"notes,omitempty"`            // notes moved, for folders
	Rewritten    []string `json:"linksRewrittenIn,omitempty"` // other notes the caller may read whose links were updated
}

// scope is where a note or folder may go: the project that owns it, or its
// owner's personal domain.
func (v *Vault) scope(p string) string {
	if owner, _, ok := personalPath(p); ok {
		return PeopleDir + "/" + owner
	}
	if pr := v.projectSet().of(p); pr != nil {
		return "project " + pr.Handle
	}
	return "the vault root"
}

// destFolder checks a destination folder given by a caller.
func (v *Vault) destFolder(c access.Caller, arg, folder, mustScope string) (string, error) {
	dir, err := cleanRel(arg, folder)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(dir, ".md") {
		return "", argErr(arg, "%q is a folder, not a file", folder)
	}
	if err := v.noSymlinks(arg, dir); err != nil {
		return "", err
	}
	if err := v.checkNewFolder(arg, dir); err != nil {
		return "", err
	}
	if fi, err := os.Lstat(v.abs(dir)); err == nil && !fi.IsDir() {
		return "", argErr(arg, "%q is a file, not a folder", folder)
	}
	if s := v.scope(dir + "/x.md"); s != mustScope {
		return "", argErr(arg, "%q is outside %s; notes stay in their project", folder, mustScope)
	}
	if v.roleAt(c, dir+"/x.md") < access.RoleWrite {
		return "", argErr(arg, "%q is not a folder you can write to", folder)
	}
	return dir, nil
}

// commitEdits commits e as one commit and returns it with the notes it
// rewrote that the caller may read.
func (v *Vault) commitEdits(c access.Caller, e *edits, msg, id string) (string, []string, error) {
	h, err := v.commit(c, msg, id, e.changes(), e.trailers()...)
	if err != nil {
		var ce *gitstore.ConflictError
		var de *gitstore.DirtyError
		if errors.As(err, &ce) || errors.As(err, &de) {
			return "", nil, &ConflictError{Current: "", Reason: "a note this change touches was changed at the same moment; try again"}
		}
		return "", nil, err
	}
	return h, e.rewritten(), nil
}

// MoveNote moves a note to another folder of its project, keeping its file
// name and id; every link that would stop naming it is rewritten in the
// same commit, in its own style (edits.follow), and no other.
func (v *Vault) MoveNote(c access.Caller, ref, toPath, versionToken string) (*Moved, error) {
	if toPath == "" {
		return nil, argErr("toPath", "is required: the destination folder")
	}
	p, _, _, err := v.forWrite(c, ref, versionToken)
	if err != nil {
		return nil, err
	}
	dir, err := v.destFolder(c, "toPath", toPath, v.scope(p))
	if err != nil {
		return nil, err
	}
	to := strings.TrimPrefix(dir+"/"+baseName(p), "/")
	if to == p {
		return nil, argErr("toPath", "the note is already in %q", toPath)
	}
	if err := v.checkDest("toPath", to, p); err != nil {
		return nil, err
	}
	e := v.newEdits(c)
	n, err := e.note(p)
	if err != nil {
		return nil, err
	}
	if err := e.move(p, to); err != nil {
		return nil, err
	}
	if err := e.follow(); err != nil {
		return nil, err
	}
	if err := e.guard("toPath", "moving the note there", "folder", nil, true); err != nil {
		return nil, err
	}
	h, rewritten, err := v.commitEdits(c, e, fmt.Sprintf("Move %s to %s/", p, dir), n.ID)
	if err != nil {
		return nil, err
	}
	return &Moved{ID: n.ID, From: p, To: to, Title: n.Title, VersionToken: h, Commit: h, Rewritten: rewritten}, nil
}

// RenameNote changes a note's title: the H1 and the file name follow, and
// every link that would stop naming the note is rewritten to its new name
// in the same commit, in its own style (edits.follow). With keepAlias the
// old title also joins the aliases, for whoever searches by it; links never
// depend on it (Obsidian does not resolve aliases).
func (v *Vault) RenameNote(c access.Caller, ref, title, versionToken string, keepAlias bool) (*Moved, error) {
	title = strings.TrimSpace(title)
	if err := validText("title", title); err != nil {
		return nil, err
	}
	if title == "" || strings.ContainsAny(title, "[]|#^") || strings.IndexFunc(title, unicode.IsControl) >= 0 {
		return nil, argErr("title", "%q must be one line without [ ] | # ^ or control characters", title)
	}
	if len(title) > 200 {
		return nil, argErr("title", "is longer than 200 bytes")
	}
	name, err := titleFile("title", title)
	if err != nil {
		return nil, err
	}
	p, _, _, err := v.forWrite(c, ref, versionToken)
	if err != nil {
		return nil, err
	}
	e := v.newEdits(c)
	n, err := e.note(p)
	if err != nil {
		return nil, err
	}
	old := n.Title
	if old == title {
		return nil, argErr("title", "the note is already titled %q", title)
	}
	to := strings.TrimPrefix(parentDir(p)+"/"+name, "/")
	if to != p {
		if v.otherEntry(to, p) {
			return nil, argErr("title", "%s already exists; choose another title", to)
		}
		if err := v.checkNoTwin("title", parentDir(p), name, baseName(p)); err != nil {
			return nil, err
		}
	}
	if err := setTitle(n, old, title, keepAlias); err != nil {
		return nil, err
	}
	if to != p {
		if err := e.move(p, to); err != nil {
			return nil, err
		}
	} else if err := n.EnsureID(); err != nil {
		return nil, err
	}
	if err := e.follow(); err != nil {
		return nil, err
	}
	if err := e.guard("title", "this title", "title", nil, true); err != nil {
		return nil, err
	}
	h, rewritten, err := v.commitEdits(c, e, fmt.Sprintf("Rename %q to %q", old, title), n.ID)
	if err != nil {
		return nil, err
	}
	return &Moved{ID: n.ID, From: p, To: to, Title: title, VersionToken: h, Commit: h, Rewritten: rewritten}, nil
}

// setTitle rewrites the leading H1 (or adds one) and, with keepAlias,
// keeps the old title as an alias. The new title leaves the aliases.
func setTitle(n *note.Note, old, title string, keepAlias bool) error {
	lines := strings.SplitAfter(string(n.Body), "\n")
	replaced := false
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if _, ok := note.TitleLine(strings.TrimRight(l, "\r\n")); ok {
			nl := l[len(strings.TrimRight(l, "\r\n")):]
			lines[i] = "# " + title + nl
			replaced = true
		}
		break
	}
	body := strings.Join(lines, "")
	if !replaced {
		body = "# " + title + "\n\n" + body
	}
	n.Body = []byte(body)
	aliases := slices.DeleteFunc(slices.Clone(n.Aliases), func(a string) bool { return a == title })
	if keepAlias && !slices.Contains(aliases, old) {
		aliases = append(aliases, old)
	}
	if len(aliases) != len(n.Aliases) {
		if err := n.SetList("aliases", aliases); err != nil {
			return err
		}
	}
	n.Aliases = aliases
	n.Title = title
	return nil
}

// RenameProject changes a project's handle and/or display name; the old
// handle stays as an alias, accepted everywhere (tokens, grants, tools).
func (v *Vault) RenameProject(c access.Caller, project, handle, name string) (*Project, error) {
	if handle == "" && name == "" {
		return nil, argErr("handle", "give a new handle, a new name, or both")
	}
	pr, role, err := v.project(c, "project", project)
	if err != nil {
		return nil, err
	}
	if role < access.RoleWrite {
		return nil, fmt.Errorf("%w: your access to project %s is read-only", ErrForbidden, pr.Handle)
	}
	if err := validText("name", name); err != nil {
		return nil, err
	}
	if strings.ContainsAny(name, "\n\r") || len(name) > 200 {
		return nil, argErr("name", "must be one line of at most 200 bytes")
	}
	marker := pr.within(ProjectMarker)
	data, err := os.ReadFile(v.abs(marker))
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is not a YAML mapping; fix it by hand", marker)
	}
	fm := doc.Content[0]
	out := *pr
	if handle != "" && handle != pr.Handle {
		if err := ValidHandle(handle); err != nil {
			return nil, &ArgError{Arg: "handle", Msg: err.Error()}
		}
		if other := v.projectSet().byHandle[handle]; other != nil && other != pr {
			return nil, argErr("handle", "%s is already taken", handle)
		}
		if s, _, _ := strings.Cut(handle, "/"); s != pr.Space() {
			return nil, argErr("handle", "%s would move the project to another space (%s); handles keep their space", handle, s)
		}
		aliases := slices.DeleteFunc(slices.Clone(pr.Aliases), func(a string) bool { return a == handle })
		if !slices.Contains(aliases, pr.Handle) {
			aliases = append(aliases, pr.Handle)
		}
		setMapKey(fm, "handle", note.StrNode(handle))
		setMapKey(fm, "aliases", note.ListNode(aliases))
		out.Handle, out.Aliases = handle, aliases
	}
	if name != "" {
		setMapKey(fm, "name", note.StrNode(name))
		out.Name = name
	}
	var buf strings.Builder
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	enc.Close()
	cur, _, _ := v.store.Version(marker)
	if _, err := v.commit(c, fmt.Sprintf("Rename project %s", pr.Handle), "", []gitstore.Change{
		{Path: marker, Content: []byte(buf.String()), CheckVersion: true, ExpectVersion: cur, RequireClean: true},
	}); err != nil {
		return nil, v.writeErr(project, marker, err)
	}
	if err := v.rescan(); err != nil {
		return nil, err
	}
	return &out, nil
}

func setMapKey(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, note.StrNode(key), value)
}
