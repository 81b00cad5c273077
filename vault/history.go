package vault

import (
	"path"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
)

// historyFold turns first-parent history, read newest first, into one
// entry per note as a caller may see it: a note's older paths (before a
// rename) are the same note; a path the caller may not see is never shown,
// not even as the "from" of a rename.
//
// In delta mode (start_session), an entry says what happened to the note
// over the whole window: added if it was added in it (whatever followed),
// renamed (from its path at the start of the window) if it moved in it,
// else its latest change. Otherwise (recent_activity) an entry is the
// note's latest change.
//
// A sync's merge commit names each path it found changed on both sides in
// a Cairn-Conflict trailer: that note gets a "conflict" entry naming the
// conflict copy the commit added beside it. In delta mode a conflict in
// the window stays on the note's entry (its conflictCopy; and "conflict"
// rather than "modified"), so the next session hears of it.
type historyFold struct {
	canSee  func(path string) bool
	delta   bool
	entries []Activity
	entryOf map[string]int // a path, current or older, → its note's entry
}

func newHistoryFold(canSee func(string) bool, delta bool) *historyFold {
	return &historyFold{canSee: canSee, delta: delta, entryOf: map[string]int{}}
}

func (f *historyFold) commit(info gitstore.CommitInfo, changes []gitstore.FileChange) {
	prov := provenanceOf(info)
	conflicts := syncConflicts(info, changes)
	for _, c := range conflicts {
		f.conflict(c[0], c[1], prov, info.Hash)
	}
	for _, ch := range changes {
		if conflictIn(conflicts, ch.Path) {
			continue // the conflict entry says what happened to it
		}
		if i, ok := f.entryOf[ch.Path]; ok {
			f.older(i, ch)
			continue
		}
		if !f.canSee(ch.Path) {
			continue
		}
		a := Activity{Path: ch.Path, Change: ch.Kind, From: ch.From, By: prov.UpdatedBy, Actor: prov.Actor, Tool: prov.Tool, At: prov.UpdatedAt, Commit: info.Hash}
		if ch.Kind == gitstore.Renamed && !f.canSee(ch.From) {
			a.Change, a.From = gitstore.Added, "" // it came from where the caller cannot look
		}
		f.entries = append(f.entries, a)
		i := len(f.entries) - 1
		f.entryOf[ch.Path] = i
		if a.From != "" {
			f.entryOf[a.From] = i
		}
	}
}

// conflict folds a sync conflict on p, the other version kept in
// copyPath ("" when none).
func (f *historyFold) conflict(p, copyPath string, prov *Provenance, commit string) {
	if copyPath != "" && !f.canSee(copyPath) {
		copyPath = ""
	}
	if i, ok := f.entryOf[p]; ok {
		e := &f.entries[i]
		if f.delta && e.ConflictCopy == "" {
			e.ConflictCopy = copyPath
			if e.Change == gitstore.Modified {
				e.Change = ChangeConflict
			}
		}
		return
	}
	if !f.canSee(p) {
		return
	}
	f.entries = append(f.entries, Activity{Path: p, Change: ChangeConflict, ConflictCopy: copyPath,
		By: prov.UpdatedBy, Actor: prov.Actor, Tool: prov.Tool, At: prov.UpdatedAt, Commit: commit})
	f.entryOf[p] = len(f.entries) - 1
}

// syncConflicts are the paths a commit's Cairn-Conflict trailers name,
// each with the conflict copy the commit added beside it ("" when none):
// teamsync names it "<name> (conflict <date> <time>)<ext>".
func syncConflicts(info gitstore.CommitInfo, changes []gitstore.FileChange) [][2]string {
	raw := info.Trailers["Cairn-Conflict"]
	if raw == "" {
		return nil
	}
	var out [][2]string
	for _, p := range strings.Split(raw, "\n") {
		ext := path.Ext(p)
		stem := strings.TrimSuffix(p, ext) + " (conflict "
		c := [2]string{p, ""}
		for _, ch := range changes {
			if ch.Kind == gitstore.Added && strings.HasPrefix(ch.Path, stem) && strings.HasSuffix(ch.Path, ")"+ext) {
				c[1] = ch.Path
				break
			}
		}
		out = append(out, c)
	}
	return out
}

func conflictIn(conflicts [][2]string, p string) bool {
	for _, c := range conflicts {
		if c[0] == p {
			return true
		}
	}
	return false
}

// older folds an older change of a note that already has an entry.
func (f *historyFold) older(i int, ch gitstore.FileChange) {
	e := &f.entries[i]
	switch ch.Kind {
	case gitstore.Renamed:
		visible := f.canSee(ch.From)
		if visible {
			f.entryOf[ch.From] = i
		}
		if f.delta && e.Change != gitstore.Added {
			if visible {
				e.Change, e.From = gitstore.Renamed, ch.From
			} else {
				e.Change, e.From = gitstore.Added, ""
			}
		}
	case gitstore.Added:
		if f.delta {
			e.Change, e.From = gitstore.Added, ""
		}
	}
}

// counts are the entries by kind.
func (f *historyFold) counts() map[string]int {
	out := map[string]int{}
	for _, e := range f.entries {
		out[e.Change]++
	}
	return out
}
