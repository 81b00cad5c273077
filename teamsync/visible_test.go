package teamsync

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/doctor"
	"github.com/cairn-dev/cairn/vault/note"
)

const flags = "acme/infra/decisions/Decision feature flags service.md"

// sameLine makes a note's first heading line say something of one side's.
func sameLine(title, says string) func(string) string {
	return func(s string) string { return strings.Replace(s, "# "+title, "# "+title+"\n\nStatus: "+says, 1) }
}

func caller(v *vault.Vault, principal string) access.Caller {
	return access.Caller{Principal: principal, Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
}

// conflictEntry is the "conflict" entry of p in an activity list.
func conflictEntry(list []vault.Activity, p string) *vault.Activity {
	for i := range list {
		if list[i].Path == p && list[i].Change == vault.ChangeConflict {
			return &list[i]
		}
	}
	return nil
}

func conflictFindings(v *vault.Vault) []string {
	var out []string
	for _, f := range doctor.Check(v) {
		if f.Check == "conflicts" {
			out = append(out, f.Level+": "+f.Message)
		}
	}
	return out
}

// Two notes changed on the same line on both sides: on both clones each
// conflict is in recent_activity (naming its copy), in the next
// start_session delta of the owner (and not of camille, who cannot see
// the project), and in cairn doctor, until it is resolved: one copy
// deleted, the other kept as a note of its own (conflict_from removed).
func TestASyncConflictStaysVisibleUntilResolved(t *testing.T) {
	a, b := team(t)
	owner := caller(a, a.Owner())
	camille := caller(a, "camille")
	if _, err := b.StartSession(owner, "acme/platform"); err != nil { // b's mark: before anything
		t.Fatal(err)
	}
	edit(t, a, cdn, sameLine("Decision CDN provider", "Alice says yes."))
	edit(t, a, flags, sameLine("Decision feature flags service", "Alice says build."))
	// a's mark after its own edits: the merge b makes puts them on its
	// second side, off a's first-parent history once a fast-forwards.
	if _, err := a.StartSession(owner, "acme/platform"); err != nil {
		t.Fatal(err)
	}
	edit(t, b, cdn, sameLine("Decision CDN provider", "Bob says no."))
	edit(t, b, flags, sameLine("Decision feature flags service", "Bob says buy."))
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 2 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	copies := map[string]string{}
	for _, c := range rep.Conflicts {
		copies[c.Path] = c.Copy
	}
	settled(t, a, b)
	// The note kept in place links to its copy.
	for p, cp := range copies {
		link := "[[./" + strings.TrimSuffix(filepath.Base(cp), ".md") + "]]" // beside it, in its folder
		if !strings.Contains(cp, "/") {
			link = "[[" + strings.TrimPrefix(link, "[[./")
		}
		n := note.Parse(p, []byte(read(t, a, p)))
		if k := n.KeyNode(note.ConflictsKey); k == nil || len(k.Content) != 1 || k.Content[0].Value != link {
			t.Fatalf("%s does not list its copy %s under conflicts:\n%s", p, link, read(t, a, p))
		}
	}

	for _, v := range []*vault.Vault{a, b} {
		side := v.Root()
		page, err := v.RecentActivity(owner, "", "", 20, "")
		if err != nil {
			t.Fatal(err)
		}
		s, err := v.StartSession(owner, "acme/platform")
		if err != nil {
			t.Fatal(err)
		}
		d := s.Project.Delta
		if d.FirstVisit || d.Truncated {
			t.Fatalf("%s: the delta since the last visit is cut or a first visit: %+v", side, d)
		}
		for p, cp := range copies {
			if e := conflictEntry(page.Activity, p); e == nil || e.ConflictCopy != cp || e.Tool != "cairn sync" {
				t.Fatalf("%s: recent_activity has no conflict entry for %s naming %s: %+v", side, p, cp, page.Activity)
			}
			if e := conflictEntry(d.Changes, p); e == nil || e.ConflictCopy != cp {
				t.Fatalf("%s: the delta has no conflict entry for %s naming %s: %+v", side, p, cp, d.Changes)
			}
		}
		// Only what happened since the mark: the two conflicts and their
		// copies (b's own edits are folded into the conflicts).
		if fmt.Sprint(d.Counts) != "map[added:2 conflict:2]" {
			t.Fatalf("%s: delta counts %v: %+v", side, d.Counts, d.Changes)
		}
		cam, err := v.RecentActivity(camille, "", "", 100, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range cam.Activity {
			if e.Change == vault.ChangeConflict || strings.Contains(e.Path, "(conflict ") {
				t.Fatalf("%s: camille, who cannot see acme/infra, sees %+v", side, e)
			}
		}
		found := conflictFindings(v)
		if len(found) != 2 {
			t.Fatalf("%s: doctor: %q", side, found)
		}
		for p, cp := range copies {
			if !strings.Contains(strings.Join(found, "\n"), cp+" is the other version of "+p) {
				t.Fatalf("%s: doctor does not name %s and %s: %q", side, cp, p, found)
			}
		}
	}

	// Resolved: on a the cdn copy is deleted, on b the flags copy is kept
	// as a note of its own (its conflict_from key removed).
	edit(t, a, copies[cdn], nil)
	edit(t, b, copies[flags], func(s string) string {
		n := note.Parse(copies[flags], []byte(s))
		if err := n.DeleteKey("conflict_from"); err != nil {
			t.Fatal(err)
		}
		return string(n.Render())
	})
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if found := conflictFindings(v); len(found) != 0 {
			t.Fatalf("%s: resolved conflicts still reported: %q", v.Root(), found)
		}
	}
	// The link to the deleted copy is said, and doctor --fix removes it;
	// the link to the copy kept as a note stays.
	said := ""
	for _, f := range doctor.Check(a) {
		if f.Check == "conflict links" {
			said += f.Message
		}
	}
	if !strings.Contains(said, cdn+" still lists [[./"+strings.TrimSuffix(filepath.Base(copies[cdn]), ".md")+"]]") {
		t.Fatalf("doctor does not say the link to the deleted copy: %q", said)
	}
	if _, err := doctor.Repair(a); err != nil {
		t.Fatal(err)
	}
	if n := note.Parse(cdn, []byte(read(t, a, cdn))); n.KeyNode(note.ConflictsKey) != nil {
		t.Fatalf("doctor --fix left the link to the deleted copy:\n%s", read(t, a, cdn))
	}
	if n := note.Parse(flags, []byte(read(t, a, flags))); n.KeyNode(note.ConflictsKey) == nil {
		t.Fatalf("doctor --fix removed the link to the copy kept as a note:\n%s", read(t, a, flags))
	}
	settled(t, a, b)
}
