package vault

// The vault as its search index reads it (package indexing): each note as
// a search document, its scope, the catalog's changed paths, and the
// embedder this machine's settings choose.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/indexing"
	"github.com/cairn-dev/cairn/vault/note"
	"gopkg.in/yaml.v3"
)

// newIndexKeeper makes the keeper of v's search index.
func newIndexKeeper(v *Vault, answerDuringBuild bool) *indexing.Keeper {
	return indexing.New(indexNotes{v}, indexing.Config{
		Root:              v.root,
		Dir:               filepath.Join(v.root, CacheDir, "search"),
		MaxReadBytes:      maxReadBytes,
		Embedder:          v.searchEmbedder,
		AnswerDuringBuild: answerDuringBuild,
		Yield:             v.askingGit,
		Logf:              func(format string, args ...any) { SearchLog(format, args...) },
	})
}

// askingGit says whether a read or a write waits for git to give a
// note's version while the version map builds (gitstore.AskingGit): a
// first index build lets it go first.
func (v *Vault) askingGit() bool {
	return v.store != nil && v.store.AskingGit()
}

// loadedHook, when set (tests), is called by Open once the catalog is
// loaded, before an index open begun beside it may sync.
var loadedHook func(v *Vault)

// SearchIndex opens the search index (on the first call), brings it up to
// date with the notes, and queues the vectors that are missing. `cairn
// serve` calls it at start, in the background. A Rebuild closes the index
// it replaces: use what this returns for a call, do not keep it.
func (v *Vault) SearchIndex() (*search.Index, error) {
	return v.index.Index(context.Background())
}

// Rebuild rebuilds the search index (Bleve and vectors) from the notes,
// beside the live one, which goes on answering searches
// (indexing.Keeper.Rebuild); progress is told "index", then "embed".
func (v *Vault) Rebuild(progress func(stage string, done, total int)) error {
	return v.index.Rebuild(progress)
}

// Reindex rebuilds the search index from scratch, as Rebuild does; it is
// what `cairn reindex` runs.
func (v *Vault) Reindex(progress func(stage string, done, total int)) error {
	return v.index.Rebuild(progress)
}

// WaitIndexed waits, at most timeout, until the long notes queued for the
// search index are indexed; it says whether they are. A short-lived
// command (`cairn search`) calls it: it would otherwise close the vault,
// and stop the lane, before they are.
func (v *Vault) WaitIndexed(timeout time.Duration) bool {
	return v.index.WaitIndexed(timeout)
}

// SearchLog receives the index's log lines (rebuilds, embedder failures).
var SearchLog = func(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "cairn: "+format+"\n", args...)
}

// indexNotes is the vault as its index keeper reads it.
type indexNotes struct{ v *Vault }

func (n indexNotes) Doc(p string) (*search.Doc, error) { return n.v.searchDoc(p) }

func (n indexNotes) ScanDoc(p string, data []byte) *search.Doc { return n.v.scanDoc(p, data) }

func (n indexNotes) GiveBack(paths []string) { n.v.catalog.giveBack(paths) }

func (n indexNotes) ChangedNotes() []string { return n.v.catalog.changedNotes() }

func (n indexNotes) BySize(paths []string) (short, long []string) { return n.v.catalog.bySize(paths) }

func (n indexNotes) AllBySize() (short, long []string) { return n.v.catalog.allBySize() }

func (n indexNotes) TakeChanged(force map[string]bool, all bool) (map[string]bool, map[string]indexing.Stamp) {
	return n.v.catalog.takeChanged(force, all)
}

func (n indexNotes) Version(p string) (string, bool) {
	e := n.v.entry(p, false)
	if e == nil {
		return "", false
	}
	return stampVersion(e), true
}

// Scopes gives each note its scope with the projects now. A note's scope
// is its folder's (but for a file right under people/ or banks/, named as
// its scope is): the function returned remembers it once per folder, so
// it is for one goroutine. The key names every project's folder and
// handle, what a scope depends on.
func (n indexNotes) Scopes() (indexing.ScopeFunc, string) {
	ps := n.v.projectSet()
	type scoped struct{ scope, project string }
	byDir := map[string]scoped{}
	of := func(p string) (string, string, string) {
		dir := parentDir(p)
		if s, ok := byDir[dir]; ok {
			return s.scope, s.project, ""
		}
		scope, project, owner := scopeIn(ps, p)
		if owner == "" && dir != PeopleDir && dir != BanksDir {
			byDir[dir] = scoped{scope, project}
		}
		return scope, project, owner
	}
	return of, ps.key
}

// isLarge says whether a catalog entry is indexed in the lane.
func isLarge(e *catEntry) bool { return e != nil && e.Size > indexing.LargeNoteBytes }

// scanDoc is the note at p, whose file holds data, as the index would
// see it, less its sequence and context (nil when it is gone).
func (v *Vault) scanDoc(p string, data []byte) *search.Doc {
	fi, err := os.Lstat(v.abs(p))
	if err != nil {
		return nil
	}
	d, _ := v.docOf(p, data, stampOfInfo(fi))
	return d
}

func stampVersion(e *catEntry) string {
	return fmt.Sprintf("%d:%d", e.Size, e.Mtime.UnixNano())
}

// scopeOf is what decides access to a note (see roleAt): its owner's
// personal domain, its innermost project, or the vault root (the owner's).
func (v *Vault) scopeOf(p string) (scope, project, owner string) {
	return scopeIn(v.projectSet(), p)
}

// scopeIn is scopeOf with the projects ps.
func scopeIn(ps *projectSet, p string) (scope, project, owner string) {
	if who, _, ok := personalPath(p); ok {
		return "u:" + who, "", who
	}
	if bank, _, ok := bankPath(p); ok {
		return "b:" + bank, "", ""
	}
	if pr := ps.of(p); pr != nil {
		return "p:" + pr.Dir, pr.Handle, ""
	}
	return "root", "", ""
}

// readableScopes are the scopes c may read, narrowed to one project (and
// its sub-projects) when pr is set.
func (v *Vault) readableScopes(c access.Caller, pr *Project, withPrivate bool) ([]string, error) {
	a, err := v.accessNow()
	if err != nil {
		return nil, err
	}
	var out []string
	if withPrivate && c.Principal != "" {
		out = append(out, "u:"+c.Principal)
	}
	if pr == nil && c.Principal == a.Owner && c.Projects == nil {
		out = append(out, "root")
	}
	for _, p := range v.projectSet().list {
		if pr != nil && !pr.holds(p.Dir) {
			continue
		}
		if v.projectRole(c, a, p) >= access.RoleRead {
			out = append(out, "p:"+p.Dir)
		}
	}
	return out, nil
}

// searchDoc reads one note as the index sees it: its file read relative
// to the vault's folder (readNote), its version and date from the size
// and mtime of the bytes read.
func (v *Vault) searchDoc(p string) (*search.Doc, error) {
	var d *search.Doc
	err := v.withNoteBytes(p, func(data []byte, st fileStamp) {
		// Neither d nor anything it holds keeps a part of data (docOf
		// copies the body; the frontmatter's values are strings made
		// apart). n does, and is dropped here.
		var n *note.Note
		d, n = v.docOf(p, data, st)
		d.Sequence = v.sequenceOf(p, n)
		d.Context = v.contextOf(d.Sequence)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// docOf is the note at p, its file's bytes data and its file's size and
// mtime st, as the index sees it, less its sequence and its context. The
// note is only read (note.ParseRead): neither is written back. The note
// returned holds parts of data; the Doc does not.
func (v *Vault) docOf(p string, data []byte, st fileStamp) (*search.Doc, *note.Note) {
	n := note.ParseRead(p, data)
	e := &catEntry{Size: st.Size, Mtime: st.Mtime}
	scope, project, owner := v.scopeOf(p)
	d := &search.Doc{
		Path: p, Version: stampVersion(e), ID: n.ID, Title: n.Title, Aliases: n.Aliases,
		Tags: n.Tags, Type: n.Type, Class: classOf(p), Project: project, Owner: owner,
		Scope: scope, Body: string(n.Body),
	}
	d.Date, d.Meta = noteDateAndMeta(n, st.Mtime)
	d.Who = whoOf(n)
	return d, n
}

// dateKeys are the frontmatter keys that give a note its own date, in
// order of preference; without one, a note's date is its file's mtime.
var dateKeys = []string{"date", "occurred_at", "event_date", "created", "captured_at"}

// skipMeta are frontmatter keys indexed elsewhere or not worth finding.
var skipMeta = map[string]bool{"id": true, "type": true, "tags": true, "aliases": true, "links": true, "pinned": true, "title": true, "fact_type": true, "explanation": true}

func noteDateAndMeta(n *note.Note, mtime time.Time) (time.Time, []string) {
	date := mtime
	var meta []string
	fm := n.FrontmatterNode()
	if fm == nil {
		return date, nil
	}
	found := map[string]time.Time{}
	for i := 0; i+1 < len(fm.Content); i += 2 {
		k, val := fm.Content[i].Value, fm.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			continue
		}
		if t, ok := ParseDate(val.Value); ok {
			found[k] = t
			continue
		}
		if !skipMeta[k] && len(val.Value) <= 200 && strings.TrimSpace(val.Value) != "" {
			meta = append(meta, val.Value)
		}
	}
	for _, k := range dateKeys {
		if t, ok := found[k]; ok {
			return t, meta
		}
	}
	return date, meta
}

// ParseDate reads the dates people and agents write: RFC 3339, or a day
// (2026-11-29), or a day and a time without a zone (taken as UTC).
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if !yearFirst(s) {
		// Every layout starts with a year of four digits and "-": no
		// time.Parse of the seven can succeed, and each failure makes an
		// error (an id and a type were fourteen a note in an index build).
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// yearFirst says whether s starts with four digits and "-", as each of
// ParseDate's layouts does.
func yearFirst(s string) bool {
	if len(s) < 5 || s[4] != '-' {
		return false
	}
	for _, c := range []byte(s[:4]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// searchEmbedder makes the embedder this machine's settings choose
// (ChooseEmbedder). A broken setting turns semantic search off with a
// notice (every search then gives it) rather than failing: lexical search
// goes on. A shared setting set aside is said on stderr, not in searches:
// it is for the people running the server, and vectors still work.
func (v *Vault) searchEmbedder() (search.Embedder, string) {
	ch, err := ChooseEmbedder(v.root)
	var emb search.Embedder
	if err == nil {
		if ch.Refused != "" {
			SearchLog("%s", ch.Refused)
		}
		emb, err = ch.Open()
	}
	if err != nil {
		notice := fmt.Sprintf("semantic search is off: %v", err)
		SearchLog("%s", notice)
		return nil, notice
	}
	return emb, ""
}
