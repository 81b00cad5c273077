package doctor

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
)

// leftoverFindings reports what crashed processes left (an interrupted
// commit, git locks, temporary files) and notes changed on disk and not
// committed.
func leftoverFindings(v *vault.Vault) []Finding {
	var out report
	left, err := v.Store().Leftovers()
	if err != nil {
		out.add("problem", "leftovers", "%v", err)
	}
	live := 0
	for _, l := range left {
		fix := "doctor --fix removes it"
		if !l.Safe {
			fix = "left alone"
		}
		if l.Live {
			live++ // a write under way, cairn's or git's: nothing was left
			continue
		}
		switch l.What {
		case "interrupted commit":
			out.add("problem", "crash", "%s (%s; doctor --fix now)", l.Why, l.Path)
		case "git lock":
			// A lock stops cairn's writes and git's alike.
			out.add("problem", "git lock", "%s (%s): %s; nothing can update what it locks while it exists", l.Path, fix, l.Why)
		default:
			out.add("warning", "temp file", "%s: %s (%s)", l.Path, l.Why, fix)
		}
	}
	if live > 0 {
		out.add("info", "leftovers", "%d lock or temporary file(s) of a write under way now (cairn's or git's): in use, not left behind", live)
	}
	if len(left) == live && err == nil {
		out.add("ok", "leftovers", "no interrupted commit, stale lock or temporary file")
	}
	changed, err := v.Uncommitted()
	switch {
	case err != nil:
		out.add("problem", "uncommitted", "%v", err)
	case len(changed) > 0:
		out.add("warning", "uncommitted", "%d note(s) changed on disk and not committed: %s (cairn serve commits them once quiet; doctor --fix does now)",
			len(changed), abbreviate(changed, 5))
	default:
		out.add("ok", "uncommitted", "every note is committed")
	}
	return out
}

// strandedFindings are the lines for the writes a git operation left off
// the vault's branch (gitstore.Stranded), which Repair brings back.
func strandedFindings(v *vault.Vault) []Finding {
	list, err := v.Store().Stranded()
	if err != nil {
		return []Finding{{Level: "warning", Check: "stranded", Message: fmt.Sprintf("could not look for writes left off the branch: %v", err)}}
	}
	var out []Finding
	for _, st := range list {
		out = append(out, Finding{Level: "problem", Check: "stranded", Message: fmt.Sprintf(
			"%s (%s, %s: %q, %s) is not on the vault's branch: a git operation left it in the %s reflog (a reset, a rebase --abort, a write on another branch); cairn doctor --fix brings it back",
			short(st.Commit), st.When.Format("2006-01-02 15:04"), st.Author.Name, st.Subject, strings.Join(quoteAll(st.Paths), ", "), st.Reflog)})
	}
	return out
}

// quoteAll quotes each path as git does (gitstore.QuotePath).
func quoteAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = gitstore.QuotePath(p)
	}
	return out
}
