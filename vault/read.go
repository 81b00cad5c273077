package vault

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// resolve turns a ref into the path of a note c can read. A ref is a note
// id, a vault path (with or without .md), or a wiki-ref: [[Title]], Title or
// an alias. A ref c may not read is reported exactly like a missing one.
func (v *Vault) resolve(c access.Caller, arg, ref string) (string, error) {
	if err := validText(arg, ref); err != nil {
		return "", err
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", argErr(arg, "is empty: give a note id, a path or a title")
	}
	if err := v.syncHead(); err != nil {
		return "", err
	}
	if strings.HasPrefix(ref, "[[") && strings.HasSuffix(ref, "]]") {
		ref = strings.TrimSpace(ref[2 : len(ref)-2])
		if i := strings.IndexAny(ref, "|#"); i >= 0 {
			ref = strings.TrimSpace(ref[:i])
		}
	}
	for attempt := 0; attempt < 2; attempt++ {
		p, err := v.lookup(c, arg, ref)
		if err == nil || !errors.Is(err, ErrNotFound) {
			return p, err
		}
		if attempt == 0 {
			// Not known: perhaps written by hand a moment ago. At most one
			// rescan a second, however many unknown refs come.
			if err := v.rescanIfStale(time.Second); err != nil {
				return "", err
			}
		}
	}
	return "", notFound(arg, fmt.Sprintf("no note %q is accessible", ref))
}

func (v *Vault) lookup(c access.Caller, arg, ref string) (string, error) {
	r := v.graph().ResolveFor(ref, v.visibleTo(c))
	switch r.Status {
	case wikilinks.Resolved:
		if p := v.pathOf(r.ID); p != "" {
			return p, nil
		}
	case wikilinks.Ambiguous:
		var paths []string
		for _, id := range r.Candidates {
			paths = append(paths, v.pathOf(id))
		}
		return "", argErr(arg, "%q is ambiguous: %d notes have that %s (%s); pass an id or a path", ref, len(paths), r.How, strings.Join(paths, ", "))
	}
	return "", ErrNotFound
}

// visibleTo is the graph's view of what c may read. The graph calls it
// under its own lock, so it must not touch the graph or the catalog.
func (v *Vault) visibleTo(c access.Caller) wikilinks.Visible {
	memo := map[string]bool{}
	var mu sync.Mutex
	return func(id, path string) bool {
		mu.Lock()
		defer mu.Unlock()
		ok, seen := memo[path]
		if !seen {
			ok = v.roleAt(c, path) >= access.RoleRead
			memo[path] = ok
		}
		return ok
	}
}

func (v *Vault) abs(rel string) string { return filepath.Join(v.root, filepath.FromSlash(rel)) }

// Provenance says who touched a note last, how and when.
type Provenance struct {
	UpdatedBy string    `json:"updatedBy"`
	Actor     string    `json:"actor"` // agent or human
	Tool      string    `json:"tool"`  // MCP tool, cairn command, or "editor"/"git"
	UpdatedAt time.Time `json:"updatedAt"`
	Commit    string    `json:"commit"`
	// Revisions are the note's recent versions, newest first (with
	// get_note detailed): pass a commit as `revision` to read one.
	Revisions []Revision `json:"revisions,omitempty"`
}

// Revision is one version of a note.
type Revision struct {
	Commit string    `json:"commit"`
	By     string    `json:"by"`
	Actor  string    `json:"actor"`
	Tool   string    `json:"tool"`
	At     time.Time `json:"at"`
}

// Bounds of the revision list: the newest few, found within the latest
// commits of the note's history.
const (
	maxRevisions        = 10
	maxRevisionsCommits = 2000
)

func (v *Vault) revisions(p string) []Revision {
	hist, err := v.store.FileHistory(p, maxRevisions, maxRevisionsCommits)
	if err != nil {
		return nil
	}
	out := make([]Revision, 0, len(hist))
	for _, h := range hist {
		pv := provenanceOf(h)
		out = append(out, Revision{Commit: h.Hash, By: pv.UpdatedBy, Actor: pv.Actor, Tool: pv.Tool, At: pv.UpdatedAt})
	}
	return out
}

// NoteView is a note as the read tools return it.
type NoteView struct {
	ID           string         `json:"id"`
	Path         string         `json:"path"`
	Title        string         `json:"title"`
	Class        string         `json:"class"`
	Project      string         `json:"project,omitempty"`
	Type         string         `json:"type,omitempty"`
	Tags         []string       `json:"tags"`
	Aliases      []string       `json:"aliases,omitempty"`
	VersionToken string         `json:"versionToken"`
	Revision     string         `json:"revision,omitempty"`
	Frontmatter  map[string]any `json:"frontmatter"`
	Content      string         `json:"content"`
	Provenance   *Provenance    `json:"provenance,omitempty"`
	Outline      []note.Heading `json:"outline,omitempty"`
	Links        *Links         `json:"links,omitempty"`
	Warning      string         `json:"warning,omitempty"`
}

// GetNote reads a whole note. An edit saved in an editor and not yet
// committed is committed first (as the human's), so the versionToken
// returned always names a real commit holding exactly this content.
func (v *Vault) GetNote(c access.Caller, ref string, detailed bool, revision string) (*NoteView, error) {
	p, err := v.resolve(c, "ref", ref)
	if err != nil {
		return nil, err
	}
	if revision != "" {
		return v.noteAt(c, p, revision, detailed)
	}
	data, token, err := v.readCommitted(p, ref)
	if err != nil {
		return nil, err
	}
	view := v.view(note.Parse(p, data), token, detailed)
	if detailed {
		view.Links = v.links(c, view.ID)
	}
	if token != "" {
		if info, err := v.store.CommitInfo(token); err == nil {
			view.Provenance = provenanceOf(info)
			if detailed {
				view.Provenance.Revisions = v.revisions(p)
			}
		}
	}
	return view, nil
}

// readCommitted reads note p as its last commit holds it, with that
// commit. What was read is checked against the commit (one read, one
// hash): a file that differs is an edit saved in an editor and not yet
// committed, committed once quiet (flushHuman), or an editor's save under
// way (truncated, a first part written), waited for; then it is read
// again. A note saved on and on answers BusyError.
// A note whose name cairn never commits is read as it is.
func (v *Vault) readCommitted(p, ref string) ([]byte, string, error) {
	if unshareableName(p) != "" {
		// Never committed (doctor lists it): read as it is.
		data, err := readFileNoFollow(v.abs(p))
		if err != nil {
			return nil, "", notFound("ref", fmt.Sprintf("no note %q is accessible", ref))
		}
		token, _, err := v.store.Version(p)
		return data, token, err
	}
	deadline := time.Now().Add(v.quiet + settleWait) // as waitQuiet's
	for {
		data, err := readFileNoFollow(v.abs(p))
		if err != nil {
			if gitstore.Missing(err) {
				v.flushHuman(p) // deleted by hand: committed as such
			}
			return nil, "", notFound("ref", fmt.Sprintf("no note %q is accessible", ref))
		}
		token, whole, err := v.store.CommittedAs(p, data)
		switch {
		case err != nil:
			return nil, "", err
		case whole:
			return data, token, nil
		case time.Now().After(deadline):
			return nil, "", &BusyError{Path: p, RetryAfter: v.quiet}
		}
		if err := v.flushHuman(p); err != nil {
			return nil, "", err
		}
	}
}

func (v *Vault) noteAt(c access.Caller, p, revision string, detailed bool) (*NoteView, error) {
	if !isHex40(revision) {
		return nil, argErr("revision", "%q is not a commit hash (40 hex digits, as versionToken and provenance give)", revision)
	}
	data, err := v.store.ReadAt(revision, p)
	if err != nil {
		return nil, argErr("revision", "%s", err)
	}
	view := v.view(note.Parse(p, data), revision, detailed)
	view.Revision = revision
	if cur, _, err := v.store.Version(p); err == nil {
		view.VersionToken = cur // writes compare against the current version
	}
	if info, err := v.store.CommitInfo(revision); err == nil {
		view.Provenance = provenanceOf(info)
	}
	return view, nil
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

func (v *Vault) view(n *note.Note, token string, detailed bool) *NoteView {
	fileID := n.ID
	clash := v.adoptID(n)
	fm, fmErr := n.FrontmatterValues()
	view := &NoteView{
		ID: n.ID, Path: n.Path, Title: n.Title, Class: classOf(n.Path), Type: n.Type,
		Tags: n.Tags, Aliases: n.Aliases, VersionToken: token,
		Frontmatter: fm, Content: string(n.Body),
	}
	if view.Tags == nil {
		view.Tags = []string{}
	}
	if pr := v.projectSet().of(parentDir(n.Path)); pr != nil {
		view.Project = pr.Handle
	}
	if clash {
		view.Warning = fmt.Sprintf("this file repeats the id %s of another note (a copy?); it is known by the id %s, which its next change saves", fileID, n.ID)
	}
	if fmErr != nil {
		view.Warning = fmt.Sprintf("part of the frontmatter cannot be read as values (%v); frontmatter shows what could be read, content is as written", fmErr)
	}
	if err := n.FrontmatterError(); err != nil {
		view.Warning = fmt.Sprintf("the frontmatter is not valid YAML (%v); content is shown as it is, and writes are refused until it is fixed", err)
	}
	if detailed {
		view.Outline = note.Outline(n.Body)
		if view.Outline == nil {
			view.Outline = []note.Heading{}
		}
	}
	return view
}

func provenanceOf(info gitstore.CommitInfo) *Provenance {
	p := &Provenance{UpdatedBy: info.Author, UpdatedAt: info.When.UTC(), Commit: info.Hash, Actor: "human", Tool: "git"}
	if pr := info.Trailers["Cairn-Principal"]; pr != "" {
		p.UpdatedBy = pr
	}
	if a := info.Trailers["Cairn-Actor"]; a != "" {
		p.Actor = a
	}
	if t := info.Trailers["Cairn-Tool"]; t != "" {
		p.Tool = t
	}
	return p
}

// anyReadableBelow reports whether some project under dir is readable by c,
// so that a folder leading to a project c may see is listed.
func (v *Vault) anyReadableBelow(c access.Caller, dir string) bool {
	a, err := v.accessNow()
	if err != nil {
		return false
	}
	for _, pr := range v.projectSet().list {
		if (dir == "" || strings.HasPrefix(pr.Dir, dir+"/")) && v.projectRole(c, a, pr) > access.RoleNone {
			return true
		}
	}
	return false
}

func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		if strings.EqualFold(strings.TrimPrefix(x, "#"), strings.TrimPrefix(t, "#")) {
			return true
		}
	}
	return false
}
