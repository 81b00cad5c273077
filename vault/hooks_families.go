package vault

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
)

// Hooks for the memory families, packages vault/hindsight (memory banks)
// and vault/treaisure (captured thoughts): the few things they need of the
// vault beyond its public operations. None of them checks the caller's
// access: the family decides who reaches what (a bank's grants, a
// principal's own thoughts) before it calls one.

// Attached is the value of type T that v holds under key, made by newT at
// its first use: one per open vault, shared by everything that uses that
// vault (every MCP session of a server, the command line, a benchmark).
// A memory family keeps its state there (hindsight's lock and the last
// fact of each context, treaisure's lock), so that the Vault type knows
// nothing of the families and package vault imports none of them, while
// whoever opens a vault need not make and carry a family's state beside
// it. key should be a value of an unexported type of the family's
// package, so that no two packages share one. Two first uses at once may
// both call newT; one value is kept, so newT must do nothing but make it.
func Attached[T any](v *Vault, key any, newT func() *T) *T {
	if x, ok := v.attached.Load(key); ok {
		return x.(*T)
	}
	x, _ := v.attached.LoadOrStore(key, newT())
	return x.(*T)
}

// Commit records changes as one commit by c, with cairn's provenance
// trailers (naming noteID when it is not ""), and brings the catalog up
// to date with the touched paths: the step every write of the vault ends
// with. It returns the commit's hash. hindsight commits a fact with it,
// treaisure a thought.
func (v *Vault) Commit(c access.Caller, msg, noteID string, changes []gitstore.Change) (string, error) {
	return v.commit(c, msg, noteID, changes)
}

// EditAccess changes the committed access file (.cairn/access.yaml as
// committed: this machine's local owner is never written into it) with
// edit, and commits the result as c with message msg. An error from edit
// is returned with nothing written; an edit that changes nothing commits
// nothing. hindsight grants and revokes a principal's banks with it, once
// it has checked that c owns the vault.
func (v *Vault) EditAccess(c access.Caller, msg string, edit func(a *access.Access) error) error {
	a, err := loadAccess(v.root)
	if err != nil {
		return err
	}
	if err := edit(a); err != nil {
		return err
	}
	data, err := a.Marshal()
	if err != nil {
		return err
	}
	_, err = v.commit(c, msg, "", []gitstore.Change{{Path: AccessFile, Content: data}})
	if err == gitstore.ErrNothingToCommit {
		return nil
	}
	return err
}

// SearchQuery runs q on the search index as every search of the vault
// does (brought up to date first; during a first build, answered from the
// notes indexed so far and the others read from disk), and returns the
// index it ran on, for analysing text only (Snippet, MatchesIn). It
// checks no access: q's Filter.Scopes decide what it reaches. hindsight
// searches one bank's scope with it, treaisure one principal's.
func (v *Vault) SearchQuery(ctx context.Context, q search.Query) (*search.Index, *search.Result, error) {
	return v.runSearch(ctx, q)
}

// ReadNoteFile reads the file at rel (a path in the vault) as the vault
// reads a note: never through a symbolic link, and only a regular file of
// bounded size. hindsight reads its facts back with it, treaisure its
// thoughts, recall its excerpts, doctor the notes it checks.
func (v *Vault) ReadNoteFile(rel string) ([]byte, error) {
	return readFileNoFollow(v.abs(rel))
}

// NoteID is the id the catalog knows the note at rel by, and whether it
// knows that path at all (a note's id is the catalog's when a copy
// repeats another's). The families give it in their answers.
func (v *Vault) NoteID(rel string) (string, bool) {
	e := v.entry(rel, false)
	if e == nil {
		return "", false
	}
	return e.ID, true
}

// IDsUnder maps each note path the catalog knows under prefix (a folder
// with its trailing slash) to its id. hindsight finds a context's last
// fact in a bank with it, treaisure a thought already captured (in the
// order of the paths, sorted).
func (v *Vault) IDsUnder(prefix string) map[string]string {
	return v.catalog.idsUnder(prefix)
}

// LinkedPaths is the paths of the notes the note at rel links to (its
// links that resolve) and then of those that link to it, in the shared
// link graph, whoever may read them (none when the catalog does not know
// rel). treaisure reaches the thoughts around a direct item with it.
func (v *Vault) LinkedPaths(rel string) []string {
	var out []string
	for _, n := range v.linksAround(rel, nil) {
		out = append(out, n.Path)
	}
	return out
}

// NoSymlinks refuses (as an ArgError on arg) a path in the vault any
// existing component of which is a symbolic link: a write there could
// leave the vault. The families check the path of a new note with it.
func (v *Vault) NoSymlinks(arg, rel string) error {
	return v.noSymlinks(arg, rel)
}

// ValidText refuses (as an ArgError on arg) text that is not valid UTF-8
// or holds a NUL byte: text meant for a note. The families check their
// arguments with it, as every write does.
func ValidText(arg, s string) error {
	return validText(arg, s)
}

// SafeNewName checks one name (a folder or a file) that a write would
// create: one every operating system accepts. Its errors say what is
// wrong, without the argument. hindsight checks a bank id with it, which
// names a folder.
func SafeNewName(name string) error {
	return safeNewName(name)
}

// FileNameFrom names a note after the first words of text, with the
// tail of its id to keep two that start alike apart: always a safe name,
// "note" and the tail when the words leave nothing a file name may hold.
// hindsight names a fact with it, treaisure a thought.
func FileNameFrom(text, id string) string {
	words := strings.Fields(text)
	title := strings.Join(words[:min(8, len(words))], " ")
	for len(title) > 60 {
		_, size := utf8.DecodeLastRuneInString(title)
		title = title[:len(title)-size]
	}
	tail := " " + strings.ToLower(id[len(id)-6:])
	name := fileStem(title)
	if name == "" || windowsReserved(name+tail) { // "con.txt was..." is CON to Windows
		name = "note"
	}
	return name + tail + ".md"
}
