package vault

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
	"gopkg.in/yaml.v3"
)

// The link guard. A change of names (a new note, a new title, a new path)
// can alter what links of other notes point to. Refusing every such change
// would tell the caller about notes it cannot read (a probe for which
// titles exist) and let anyone's link block anyone's move; allowing it
// silently would break links. So, link by link (docs/links.md, "The
// link guard"):
//
//   - a link the caller sees shift, in a note it may write, refuses the
//     change: the caller can choose another name or fix the link;
//   - any other link that would stop naming its note, as the vault resolves
//     it with nothing hidden, is rewritten in the same commit to the note's
//     full path (label, fragment and embed kept), provided everyone who may
//     read the link's note may read its target: the rewrite then shows
//     nobody anything new;
//   - otherwise the rewrite would show someone where a note they may not
//     read lives. The change is refused if the caller sees that link shift
//     (it sees both ends: nothing leaks), else the link is left as written
//     (for those who cannot read its target it never named it) and the
//     commit's trailers say so.
//
// Responses name only notes the caller may read; the commit names every
// note the guard rewrote (Cairn-Link-Upkeep) or left (Cairn-Link-Left), so
// `git log` explains why someone else's note changed.

// guard applies the rule to the notes e changes plus extra (new notes):
// refuses with an error naming arg, or records in e the links it keeps
// and leaves. what says what the caller asked ("the title "X""), instead
// what to choose instead ("title"). With mayRefuse false (private memory
// whose names the caller does not choose) nothing is refused.
func (e *edits) guard(arg, what, instead string, extra []wikilinks.Note, mayRefuse bool) error {
	v := e.v
	set := append(e.planned(), extra...)
	refuse, sees := e.seenShifts(set)
	if mayRefuse && len(refuse) > 0 {
		return v.refusal(arg, what, instead, refuse)
	}
	refuse = nil
	dest := map[string]string{} // id → path once the change is made
	for _, n := range set {
		dest[n.ID] = n.Path
	}
	keep := map[string]map[string]keptAs{} // source path → target as written → how to rewrite it
	readers := v.newReaderCheck()
	for _, sh := range v.graph().WhatIfMoved(set, nil, e.files, nil) {
		src := v.pathOf(sh.From)
		if src == "" {
			continue
		}
		to := dest[sh.Before.ID]
		switch {
		case sh.Before.ID == "":
			to = orDefault(e.files[sh.Before.Path], sh.Before.Path)
		case to == "":
			to = v.pathOf(sh.Before.ID)
		}
		ok := sh.Keep != "" && readers.allMayRead(src, to)
		if ok {
			if _, err := e.note(src); err != nil {
				if v.roleAt(e.c, src) >= access.RoleRead {
					return fmt.Errorf("keep the links of %s naming their notes: %w", src, err)
				}
				ok = false // never said: the caller may not know the note
			}
		}
		switch {
		case !ok && mayRefuse && sees[[2]string{sh.From, sh.Target}]:
			refuse = append(refuse, sh)
		case !ok:
			e.left[src] = true
		default:
			if keep[src] == nil {
				keep[src] = map[string]keptAs{}
			}
			// A link to what moved shows its new name, as a rename by hand
			// would; one whose note stays put keeps showing the old text.
			keep[src][sh.Target] = keptAs{target: sh.Keep, label: !sh.Moved && sh.Before.How != wikilinks.ByPath}
			e.keptShifts = append(e.keptShifts, sh)
		}
	}
	if len(refuse) > 0 {
		return v.refusal(arg, what, instead, refuse)
	}
	if len(keep) == 0 {
		return nil
	}
	set = e.keepAll(set, keep)
	// What a rewrite could not reach (a link written so that its text
	// cannot be found again) is left, and said, like the rest.
	for _, sh := range v.graph().WhatIfMoved(set, nil, e.files, nil) {
		if src := v.pathOf(sh.From); src != "" && !e.left[src] {
			if mayRefuse && sees[[2]string{sh.From, sh.Target}] {
				return v.refusal(arg, what, instead, []wikilinks.Shift{sh})
			}
			e.left[src] = true
		}
	}
	return nil
}

// seenShifts are the shifts the caller sees, as it sees the vault (sees,
// by source and target), and among them those in notes it may write.
func (e *edits) seenShifts(set []wikilinks.Note) (inWritable []wikilinks.Shift, sees map[[2]string]bool) {
	sees = map[[2]string]bool{}
	for _, sh := range e.v.graph().WhatIfMoved(set, nil, e.files, e.v.visibleTo(e.c)) {
		sees[[2]string{sh.From, sh.Target}] = true
		if e.v.roleAt(e.c, e.v.pathOf(sh.From)) >= access.RoleWrite {
			inWritable = append(inWritable, sh)
		}
	}
	return inWritable, sees
}

// keepAll rewrites the links in keep and returns set with the rewritten
// notes as the graph will see them.
func (e *edits) keepAll(set []wikilinks.Note, keep map[string]map[string]keptAs) []wikilinks.Note {
	at := map[string]int{} // id → index in set
	for i, n := range set {
		at[n.ID] = i
	}
	for src, m := range keep {
		n := e.notes[src]
		keepLinks(n, m)
		e.kept[src] = true
		if i, ok := at[n.ID]; ok {
			set[i].Links = n.Links()
		} else {
			set = append(set, wikilinks.Note{ID: n.ID, Path: src, Title: n.Title, Aliases: n.Aliases, Links: n.Links()})
		}
	}
	return set
}

// refusal is the error for shifts the caller sees: their count and the
// first as an example, all from notes it may read.
func (v *Vault) refusal(arg, what, instead string, shifts []wikilinks.Shift) error {
	sh := shifts[0]
	change := "stop resolving"
	switch {
	case sh.After.Status == wikilinks.Ambiguous:
		change = "become ambiguous"
	case sh.After.Status == wikilinks.Resolved:
		change = "point to another note"
	}
	return argErr(arg, "%s would change what %d link(s) in other notes point to (for example [[%s]] in %s would %s); choose another %s",
		what, len(shifts), sh.Target, v.pathOf(sh.From), change, instead)
}

// readerCheck answers whether everyone who may read one note may read
// another, per pair of scopes (roles depend on nothing finer).
type readerCheck struct {
	v    *Vault
	memo map[[2]string]bool
}

func (v *Vault) newReaderCheck() *readerCheck {
	return &readerCheck{v: v, memo: map[[2]string]bool{}}
}

// allMayRead: every principal who may read src may read dst. A private
// note's only reader is its owner; a shared note's are the principals
// access.yaml names (no one else holds a role).
func (r *readerCheck) allMayRead(src, dst string) bool {
	k := [2]string{r.v.scope(src), r.v.scope(dst)}
	if ok, seen := r.memo[k]; seen {
		return ok
	}
	ok := true
	var readers []string
	if owner, _, personal := personalPath(src); personal {
		readers = []string{owner}
	} else if a, err := r.v.accessNow(); err == nil {
		readers = a.Principals()
	} else {
		ok = false
	}
	for _, p := range readers {
		pc := access.Caller{Principal: p, Ceiling: access.RoleWrite}
		if r.v.roleAt(pc, src) >= access.RoleRead && r.v.roleAt(pc, dst) < access.RoleRead {
			ok = false
			break
		}
	}
	r.memo[k] = ok
	return ok
}

// keptAs is how the guard rewrites a link: to target, with the old text as
// label when the link named its note by title or alias (a link written as
// a path shows the new path, as a rename by hand would).
type keptAs struct {
	target string
	label  bool
}

// keepLinks rewrites the links of n written with a target in m, keeping
// what a reader sees: a label when asked and the link has none (the old
// text, as Obsidian shows it: "Title > Heading"; written \| in a table),
// but never on an embed (it would read as a size); a fragment and an
// existing label stay; a Markdown link keeps its text and its style
// (writtenAs). Typed links in the frontmatter get the same.
func keepLinks(n *note.Note, m map[string]keptAs) {
	links := wikilinks.Parse(n.Body)
	body := n.Body
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		k, ok := m[l.Target]
		if l.Offset < 0 || !ok {
			continue
		}
		end := l.Offset + l.Len
		tail := ""
		if j := strings.Index(string(body[end:]), "]]"); k.label && l.Form == wikilinks.FormWiki && j >= 0 && !strings.Contains(string(body[end:end+j]), "|") && l.Type != wikilinks.TypeEmbeds {
			pipe := "|"
			if l.InTable {
				pipe = `\|`
			}
			// The label goes where the link's text ends, after any fragment.
			tail = string(body[end:end+j]) + pipe + shown(l.Target, l.Fragment)
			end += j
		}
		body = append(append(append([]byte{}, body[:l.Offset]...), writtenAs(l, k.target)+tail...), body[end:]...)
	}
	n.Body = body
	n.RewriteTypedLinkValues(func(val *yaml.Node) bool {
		t, frag := wikilinks.ParseRef(val.Value)
		k, ok := m[t]
		if !ok {
			return false
		}
		val.Value = retargetRef(val.Value, k.target)
		if k.label && !strings.Contains(val.Value, "|") {
			val.Value = strings.TrimSuffix(val.Value, "]]") + "|" + shown(t, frag) + "]]"
		}
		val.Style = yaml.DoubleQuotedStyle
		return true
	})
}

// shown is how Obsidian displays a link without a label.
func shown(target, fragment string) string {
	if fragment == "" {
		return target
	}
	return target + " > " + fragment
}

// trailers record what the guard did, for `git log`: every note whose
// links it rewrote, and every note whose links it had to leave.
func (e *edits) trailers() []gitstore.Trailer {
	var out []gitstore.Trailer
	for _, set := range []struct {
		key   string
		paths map[string]bool
	}{{"Cairn-Link-Upkeep", e.kept}, {"Cairn-Link-Left", e.left}} {
		paths := make([]string, 0, len(set.paths))
		for p := range set.paths {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			out = append(out, gitstore.Trailer{Key: set.key, Value: p})
		}
	}
	return out
}

// otherConflict is the error for a commit that failed because a note the
// guard rewrote (not own, the note the caller writes) changed meanwhile:
// a plain retry, naming nothing the caller may not know. nil for any
// other error.
func otherConflict(err error, own ...string) error {
	var ce *gitstore.ConflictError
	var de *gitstore.DirtyError
	path := ""
	switch {
	case errors.As(err, &ce):
		path = ce.Path
	case errors.As(err, &de):
		path = de.Path
	default:
		return nil
	}
	if slices.Contains(own, path) {
		return nil
	}
	return &ConflictError{Reason: "a note this change touches was changed at the same moment; try again"}
}

// rewritten lists the notes e changes besides the ones it moves, that the
// caller may read: its own rewrites and the guard's upkeep it can see.
func (e *edits) rewritten() []string {
	var out []string
	for p := range e.notes {
		if _, moved := e.moves[p]; !moved && e.v.roleAt(e.c, p) >= access.RoleRead {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
