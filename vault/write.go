package vault

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// LinkSpec is a typed edge given when a note is created.
type LinkSpec struct {
	Type    string `json:"type"`
	To      string `json:"to,omitempty"`      // an existing note (ref)
	ToTitle string `json:"toTitle,omitempty"` // a title, possibly of a note not written yet
}

// CreateArgs are create_note's arguments.
type CreateArgs struct {
	Project string
	Body    string
	Path    string // destination folder, inside the project
	Type    string
	Tags    []string
	Links   []LinkSpec
}

// Written is what a write returns.
type Written struct {
	ID           string `json:"id"`
	Path         string `json:"path"`
	Title        string `json:"title"`
	Project      string `json:"project,omitempty"`
	VersionToken string `json:"versionToken"`
	Unchanged    bool   `json:"unchanged,omitempty"`
	// LinksRewrittenIn are notes the caller may read whose links the
	// write rewrote so they keep naming the note they named (upkeep.go).
	LinksRewrittenIn []string `json:"linksRewrittenIn,omitempty"`
}

var (
	typeRE = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_-]{0,63}$`)
)

func checkBody(arg, body string) error {
	if err := validText(arg, body); err != nil {
		return err
	}
	if len(body) > MaxNoteBytes {
		return argErr(arg, "is %d bytes; a note holds at most %d bytes (1 MiB)", len(body), MaxNoteBytes)
	}
	return nil
}

func checkTags(prefix string, tags []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for i, t := range tags {
		if err := validText(prefix+"tags", t); err != nil {
			return nil, err
		}
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t == "" || strings.ContainsAny(t, " ,[]{}:\n\t") || len(t) > 100 {
			return nil, argErr(prefix+"tags", "tag %d (%q) must be one word of at most 100 bytes, without spaces, commas or brackets", i+1, tags[i])
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// CreateNote writes a new shared note (class user-doc) in a project. Its
// title is the body's leading # H1 and its file name is that title.
// Links elsewhere that the new title would take over are kept naming
// their note in the same commit, or refuse the note (upkeep.go).
func (v *Vault) CreateNote(c access.Caller, a CreateArgs) (*Written, error) {
	n, pr, e, links, err := v.prepareCreate(c, a, "")
	if err != nil {
		return nil, err
	}
	if err := v.writeNewLinks(n, links, pendingNote(n)); err != nil {
		return nil, err
	}
	changes := append([]gitstore.Change{newFile(n)}, e.changes()...)
	hash, err := v.commit(c, fmt.Sprintf("Create %s", n.Path), n.ID, changes, e.trailers()...)
	if err != nil {
		return nil, v.createConflict(n, "", err)
	}
	return &Written{ID: n.ID, Path: n.Path, Title: n.Title, Project: pr.Handle, VersionToken: hash, LinksRewrittenIn: e.rewritten()}, nil
}

// pendingNote is a new note as a link written before it exists must
// count it: where it will be (see wikilinks.Graph.NewLinkText).
func pendingNote(n *note.Note) wikilinks.Note {
	return wikilinks.Note{ID: n.ID, Path: n.Path, Title: n.Title}
}

func newFile(n *note.Note) gitstore.Change {
	return gitstore.Change{Path: n.Path, Content: n.Render(), CheckVersion: true, ExpectVersion: "", RequireClean: true}
}

func (v *Vault) createConflict(n *note.Note, prefix string, err error) error {
	if oe := otherConflict(err, n.Path); oe != nil {
		return oe
	}
	var ce *gitstore.ConflictError
	var de *gitstore.DirtyError
	if errors.As(err, &ce) || errors.As(err, &de) {
		return argErr(prefix+"body", "a note titled %q was created at %s at the same moment; choose another title", n.Title, n.Path)
	}
	return fmt.Errorf("create %s: %w", n.Path, err)
}

// prepareCreate checks create_note's arguments and renders the new note,
// with the edits that keep other notes' links naming their notes, and
// the typed links to write in it once the notes written with it are
// known (writeNewLinks). Argument names in errors get prefix (for
// create_notes: "notes[3].").
func (v *Vault) prepareCreate(c access.Caller, a CreateArgs, prefix string) (*note.Note, *Project, *edits, []newLink, error) {
	if err := checkBody(prefix+"body", a.Body); err != nil {
		return nil, nil, nil, nil, err
	}
	if strings.TrimSpace(a.Body) == "" {
		return nil, nil, nil, nil, argErr(prefix+"body", "is empty; it must start with a # Title line")
	}
	if bytes.HasPrefix(bytes.TrimLeft([]byte(a.Body), "\r\n"), []byte("---")) {
		return nil, nil, nil, nil, argErr(prefix+"body", "starts with a frontmatter block; give type and tags as arguments instead (the server writes the frontmatter)")
	}
	title := note.TitleOf([]byte(a.Body))
	if title == "" {
		return nil, nil, nil, nil, argErr(prefix+"body", "has no leading level-1 heading: its first line must be '# Title'")
	}
	name, err := titleFile(prefix+"body", title)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if a.Type != "" && !typeRE.MatchString(a.Type) {
		return nil, nil, nil, nil, argErr(prefix+"type", "%q must be one word (letters, digits, '-' or '_'), at most 64 characters", a.Type)
	}
	tags, err := checkTags(prefix, a.Tags)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pr, folder, err := v.destination(c, a.Project, a.Path, prefix)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	links, err := v.newLinks(c, pr, a.Links, prefix)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	p := strings.TrimPrefix(folder+"/"+name, "/")
	if err := v.noSymlinks(prefix+"path", p); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := v.checkNewFolder(prefix+"path", folder); err != nil {
		return nil, nil, nil, nil, err
	}
	if _, err := os.Lstat(v.abs(p)); err == nil {
		existing := ""
		if e := v.entry(p, false); e != nil {
			existing = " (id " + e.ID + ")"
		}
		return nil, nil, nil, nil, argErr(prefix+"body", "a note titled %q already exists at %s%s; edit it with edit_note, or choose another title", title, p, existing)
	}
	if err := v.checkNoTwin(prefix+"body", folder, name, ""); err != nil {
		return nil, nil, nil, nil, err
	}
	n := &note.Note{Path: p, ID: note.NewID(), Title: title, Body: []byte(ensureNewline(a.Body))}
	e := v.newEdits(c)
	if err := e.guard(prefix+"body", fmt.Sprintf("the title %q", title), "title", []wikilinks.Note{n.GraphNote()}, true); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := n.SetKey("id", note.StrNode(n.ID)); err != nil {
		return nil, nil, nil, nil, err
	}
	if a.Type != "" {
		n.SetKey("type", note.StrNode(a.Type))
	}
	if len(tags) > 0 {
		n.SetKey("tags", note.ListNode(tags))
	}
	n.SetKey("created", note.DateTimeNode(time.Now()))
	if err := v.checkNewLinks(n, links, pendingNote(n)); err != nil {
		return nil, nil, nil, nil, err
	}
	return n, pr, e, links, nil
}

// BatchResult is one note of create_notes.
type BatchResult struct {
	Index        int    `json:"index"`
	Status       string `json:"status"` // ok or error
	ID           string `json:"id,omitempty"`
	Path         string `json:"path,omitempty"`
	Title        string `json:"title,omitempty"`
	VersionToken string `json:"versionToken,omitempty"`
	Error        string `json:"error,omitempty"`
	// LinksRewrittenIn: as in Written, the notes whose links to another
	// note this one's title would have taken over.
	LinksRewrittenIn []string `json:"linksRewrittenIn,omitempty"`
}

// CreateNotes creates many notes in one commit, best effort: each note is
// checked on its own and reported in results; the valid ones are written
// together. Links between notes of the batch resolve (by title). Each
// note's title is guarded on its own (a refusal names its index); the
// links kept naming their notes are worked out once for the whole batch,
// since two new notes may both take the same link over.
func (v *Vault) CreateNotes(c access.Caller, project string, notes []CreateArgs) ([]BatchResult, error) {
	if len(notes) == 0 {
		return nil, argErr("notes", "is empty")
	}
	if len(notes) > 1000 {
		return nil, argErr("notes", "has %d notes; at most 1000 a call", len(notes))
	}
	results := make([]BatchResult, len(notes))
	var ok []*note.Note
	var okLinks [][]newLink
	taken := map[string]int{}
	dirs := folderSpellings{}
	size := 0
	for i, a := range notes {
		if a.Project == "" {
			a.Project = project
		}
		prefix := fmt.Sprintf("notes[%d].", i)
		results[i] = BatchResult{Index: i}
		n, _, _, links, err := v.prepareCreate(c, a, prefix)
		if err == nil {
			if j, dup := taken[foldName(n.Path)]; dup {
				err = argErr(prefix+"body", "has the same title as notes[%d] in the same folder (case aside)", j)
			} else if d := dirs.clash(parentDir(n.Path)); d != "" {
				err = argErr(prefix+"path", "another note of this batch creates the folder %s, which differs only by case; use its spelling", d)
			} else if size += len(a.Body); size > 8*MaxNoteBytes {
				err = argErr(prefix+"body", "the batch would exceed %d bytes; send the rest in another call", 8*MaxNoteBytes)
			}
		}
		if err != nil {
			results[i].Status, results[i].Error = "error", err.Error()
			continue
		}
		taken[foldName(n.Path)] = i
		dirs.add(parentDir(n.Path))
		results[i].Status, results[i].ID, results[i].Path, results[i].Title = "ok", n.ID, n.Path, n.Title
		ok = append(ok, n)
		okLinks = append(okLinks, links)
	}
	if len(ok) == 0 {
		return results, nil
	}
	if err := v.writeBatchLinks(ok, okLinks); err != nil {
		return nil, err
	}
	changes := make([]gitstore.Change, len(ok))
	set := make([]wikilinks.Note, len(ok))
	for i, n := range ok {
		changes[i] = newFile(n)
		set[i] = n.GraphNote()
	}
	// Every title was guarded alone; a link two of them take over together
	// is taken over by each alone, so this pass has nothing left to refuse.
	e := v.newEdits(c)
	if err := e.guard("notes", "these titles", "title", set, false); err != nil {
		return nil, err
	}
	changes = append(changes, e.changes()...)
	hash, err := v.commit(c, fmt.Sprintf("Create %d notes", len(ok)), "", changes, e.trailers()...)
	if err != nil {
		own := make([]string, len(ok))
		for i, n := range ok {
			own[i] = n.Path
		}
		if oe := otherConflict(err, own...); oe != nil {
			return nil, oe
		}
		return nil, v.createConflict(ok[0], "", err)
	}
	v.attributeUpkeep(c, e, results)
	for i := range results {
		if results[i].Status == "ok" {
			results[i].VersionToken = hash
		}
	}
	return results, nil
}

// writeBatchLinks writes the typed links of a batch's notes once every
// note of the batch is known: a new note may share a target's file name,
// which then needs its path.
func (v *Vault) writeBatchLinks(notes []*note.Note, links [][]newLink) error {
	pending := make([]wikilinks.Note, len(notes))
	for i, n := range notes {
		pending[i] = pendingNote(n)
	}
	for i, n := range notes {
		if err := v.writeNewLinks(n, links[i], pending...); err != nil {
			return err
		}
	}
	return nil
}

// attributeUpkeep tells each new note of a batch which notes the caller
// may read had links rewritten because of its title.
func (v *Vault) attributeUpkeep(c access.Caller, e *edits, results []BatchResult) {
	byID := map[string]int{}
	for i, r := range results {
		if r.Status == "ok" {
			byID[r.ID] = i
		}
	}
	for _, sh := range e.keptShifts {
		src := v.pathOf(sh.From)
		if v.roleAt(c, src) < access.RoleRead {
			continue
		}
		for _, id := range append([]string{sh.After.ID}, sh.After.Candidates...) {
			if i, ok := byID[id]; ok && !slices.Contains(results[i].LinksRewrittenIn, src) {
				results[i].LinksRewrittenIn = append(results[i].LinksRewrittenIn, src)
			}
		}
	}
	for i := range results {
		slices.Sort(results[i].LinksRewrittenIn)
	}
}

// destination finds the project and folder a new note goes to, checking
// write access on the project that will own it.
func (v *Vault) destination(c access.Caller, project, path, prefix string) (*Project, string, error) {
	folder, err := cleanRel(prefix+"path", path)
	if err != nil {
		return nil, "", err
	}
	if strings.HasSuffix(folder, ".md") {
		return nil, "", argErr(prefix+"path", "%q is the destination folder, not a file name (the file name comes from the title)", path)
	}
	var pr *Project
	switch {
	case project != "":
		if pr, _, err = v.project(c, prefix+"project", project); err != nil {
			return nil, "", err
		}
		if !pr.holds(folder) {
			if folder, err = cleanRel(prefix+"path", pr.within(folder)); err != nil {
				return nil, "", err
			}
		}
	case folder != "":
		if pr = v.projectSet().of(folder); pr == nil {
			return nil, "", argErr(prefix+"path", "%q is not inside a project you can write to (get_my_projects lists yours)", path)
		}
	default:
		ps, err := v.Projects(c)
		if err != nil {
			return nil, "", err
		}
		var writable []string
		for _, p := range ps {
			if p.Access == "write" {
				writable = append(writable, p.Handle)
			}
		}
		if len(writable) != 1 {
			return nil, "", argErr(prefix+"project", "is required: you can write to %d projects (get_my_projects lists them)", len(writable))
		}
		pr, _, _ = v.project(c, prefix+"project", writable[0])
		folder = pr.Dir
	}
	if top, _, _ := strings.Cut(folder, "/"); top == PeopleDir || top == BanksDir {
		return nil, "", argErr(prefix+"path", "%q is private memory; create_note writes shared notes", path)
	}
	owner := v.projectSet().of(folder)
	if owner == nil || (owner != pr && !pr.holds(owner.Dir)) {
		return nil, "", argErr(prefix+"path", "%q is not inside project %s", path, pr.Handle)
	}
	if r := v.roleAt(c, folder+"/x.md"); r < access.RoleWrite {
		if r == access.RoleNone {
			return nil, "", argErr(prefix+"path", "%q is not inside a project you can write to (get_my_projects lists yours)", path)
		}
		return nil, "", fmt.Errorf("%w: your access to project %s is read-only", ErrForbidden, owner.Handle)
	}
	if fi, err := os.Lstat(v.abs(folder)); err == nil && !fi.IsDir() {
		return nil, "", argErr(prefix+"path", "%q is a file, not a folder", path)
	}
	return owner, folder, nil
}

// newLink is a typed link a new note is written with: to the note at
// path (given by to), or to target as given (toTitle). arg names it.
type newLink struct{ arg, typ, target, path string }

// newLinks checks create_note's typed links and finds the notes they
// name.
func (v *Vault) newLinks(c access.Caller, pr *Project, links []LinkSpec, prefix string) ([]newLink, error) {
	var out []newLink
	for i, l := range links {
		arg := fmt.Sprintf("%slinks[%d]", prefix, i)
		if err := v.checkLinkType(arg+".type", l.Type); err != nil {
			return nil, err
		}
		if (l.To == "") == (l.ToTitle == "") {
			return nil, argErr(arg, "give exactly one of to (an existing note) or toTitle (a title)")
		}
		nl := newLink{arg: arg + ".to", typ: l.Type, target: strings.TrimSpace(l.ToTitle)}
		if l.To != "" {
			p, err := v.resolve(c, arg+".to", l.To)
			if err != nil {
				return nil, err
			}
			if tp := v.projectSet().of(parentDir(p)); tp == nil || tp.Space() != pr.Space() {
				return nil, argErr(arg+".to", "%q is in another space; links stay within one space", l.To)
			}
			nl.path = p
		} else if err := checkTitleRef(arg+".toTitle", nl.target); err != nil {
			return nil, err
		}
		out = append(out, nl)
	}
	return out, nil
}

// checkNewLinks says whether every link to an existing note can be
// written from the new note n, with pending (n among them) written too.
func (v *Vault) checkNewLinks(n *note.Note, links []newLink, pending ...wikilinks.Note) error {
	for _, l := range links {
		if l.path != "" {
			if _, err := v.linkText(l.arg, n.Path, l.path, false, pending...); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeNewLinks writes the typed links in the new note n, each once: a
// link to an existing note by its file name or path in the vault's link
// format, as it reads from n once n and the other pending notes of the
// write exist (linkTarget), a title as given.
func (v *Vault) writeNewLinks(n *note.Note, links []newLink, pending ...wikilinks.Note) error {
	seen := map[string]bool{}
	for _, l := range links {
		target := l.target
		if l.path != "" {
			var err error
			if _, target, err = v.linkTarget(l.arg, n.Path, l.path, pending...); err != nil {
				return err
			}
		}
		if k := l.typ + "\x00" + strings.ToLower(target); !seen[k] {
			seen[k] = true
			if err := note.AddTypedLink(n, l.typ, target); err != nil {
				return err
			}
		}
	}
	return nil
}

func ensureNewline(s string) string {
	if !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
