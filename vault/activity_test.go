package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

func TestRecentActivityWhoHowWhereWhen(t *testing.T) {
	v, dir := sampleVault(t)
	w, _ := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Fresh\n"})
	n, _ := v.GetNote(owner, "[[Pricing]]", false, "")
	v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpAppend, Content: str("agent line")})
	// A person edits a note in an editor and commits by hand.
	p := filepath.Join(dir, "acme/launch/Launch plan.md")
	os.WriteFile(p, []byte(readFile(t, p)+"\nA person's line.\n"), 0o644)
	gitOut(t, dir, "-c", "user.name=Jordan", "-c", "user.email=j@x", "commit", "-qam", "my edit")
	v.MoveNote(owner, w.ID, "acme/launch/specs", "")
	v.RememberAboutUser(owner, "work", "Private fact that others never see")

	page, err := v.RecentActivity(owner, "", "", 5, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range page.Activity {
		got = append(got, a.Change+" "+a.Path+" by "+a.By+" ("+a.Actor+", "+a.Tool+")")
	}
	want := []string{
		"modified people/owner/profile.md by owner (agent, test)",
		"renamed acme/launch/specs/Fresh.md by owner (agent, test)",
		"modified acme/launch/Launch plan.md by Jordan (human, git)",
		"modified acme/launch/Pricing.md by owner (agent, test)",
	}
	if strings.Join(got[:4], "\n") != strings.Join(want, "\n") {
		t.Fatalf("activity:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if page.Activity[1].From != "acme/launch/Fresh.md" || page.NextCursor == "" {
		t.Fatalf("rename from / cursor: %+v %q", page.Activity[1], page.NextCursor)
	}
	next, err := v.RecentActivity(owner, "", "", 5, page.NextCursor)
	if err != nil || len(next.Activity) != 5 || next.Activity[0].Path == page.Activity[4].Path {
		t.Fatalf("next page: %+v %v", next, err)
	}
	// camille sees neither the owner's profile nor the platform project.
	cam, _ := v.RecentActivity(camille, "", "", 100, "")
	for _, a := range cam.Activity {
		if (strings.HasPrefix(a.Path, "people/") && !strings.HasPrefix(a.Path, "people/camille/")) || strings.HasPrefix(a.Path, "acme/infra/") {
			t.Fatalf("camille sees %s", a.Path)
		}
	}
	// A project narrows it.
	pl, _ := v.RecentActivity(owner, "acme/platform", "", 100, "")
	for _, a := range pl.Activity {
		if !strings.HasPrefix(a.Path, "acme/infra/") {
			t.Fatalf("project filter let through %s", a.Path)
		}
	}
	if _, err := v.RecentActivity(owner, "", "yesterday", 5, ""); err == nil || !strings.Contains(err.Error(), "argument since") {
		t.Fatalf("bad since: %v", err)
	}
}

func TestDetailedProvenanceListsRevisions(t *testing.T) {
	v, _ := sampleVault(t)
	n, _ := v.GetNote(owner, "[[Pricing]]", false, "")
	e1, _ := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpAppend, Content: str("one")})
	e2, _ := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: e1.VersionToken, Operation: OpAppend, Content: str("two")})
	d, err := v.GetNote(owner, n.ID, true, "")
	if err != nil {
		t.Fatal(err)
	}
	revs := d.Provenance.Revisions
	if len(revs) != 3 || revs[0].Commit != e2.VersionToken || revs[1].Commit != e1.VersionToken || revs[2].Commit != n.VersionToken || revs[0].Tool != "test" {
		t.Fatalf("revisions: %+v", revs)
	}
	old, err := v.GetNote(owner, n.ID, false, revs[1].Commit)
	if err != nil || strings.Contains(old.Content, "two") || !strings.Contains(old.Content, "one") {
		t.Fatalf("reading a listed revision: %v", err)
	}
}

// Review cases: a rename never shows a path the caller cannot see; a note
// moved then edited (or moved twice) is one entry; pages stay stable when
// commits land between them.
func TestActivityFoldsRenamesAndHidesInvisiblePaths(t *testing.T) {
	v, dir := sampleVault(t)
	// Moved with git from acme/infra (camille cannot read it) into acme/launch.
	gitOut(t, dir, "mv", "acme/infra/specs/Observability spec.md", "acme/launch/Observability spec.md")
	gitOut(t, dir, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-qm", "move across projects")
	for _, c := range []access.Caller{camille} {
		page, _ := v.RecentActivity(c, "", "", 100, "")
		for _, a := range page.Activity {
			if strings.Contains(a.From, "acme/infra") {
				t.Fatalf("%s sees a hidden path as from: %+v", c.Principal, a)
			}
		}
		s, _ := v.StartSession(c, "acme/launch") // first visit
		_ = s
	}
	// Move then edit: one entry (its latest change), in activity.
	pr, _ := v.GetNote(owner, "[[Pricing]]", false, "")
	m, _ := v.MoveNote(owner, pr.ID, "acme/launch/specs", "")
	if _, err := v.EditNote(owner, EditArgs{Ref: pr.ID, VersionToken: m.VersionToken, Operation: OpAppend, Content: str("later")}); err != nil {
		t.Fatal(err)
	}
	page, _ := v.RecentActivity(owner, "acme/launch", "", 100, "")
	n := 0
	for _, a := range page.Activity {
		if a.Path == "acme/launch/Pricing.md" || a.Path == "acme/launch/specs/Pricing.md" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the moved-then-edited note has %d entries", n)
	}
	// Pages: a commit between two pages does not repeat or skip entries.
	p1, _ := v.RecentActivity(owner, "", "", 3, "")
	v.CreateNote(owner, CreateArgs{Project: "acme", Body: "# Between pages\n"})
	p2, err := v.RecentActivity(owner, "", "", 3, p1.NextCursor)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range p2.Activity {
		for _, b := range p1.Activity {
			if a.Path == b.Path {
				t.Fatalf("%s on both pages", a.Path)
			}
		}
		if a.Path == "acme/Between pages.md" {
			t.Fatal("a note made after the first page appears on the second")
		}
	}
	if _, err := v.RecentActivity(owner, "acme", "", 3, p1.NextCursor); err == nil {
		t.Fatal("a cursor used with other filters was accepted")
	}
}

func TestDeltaCountsAMovedTwiceNewNoteAsOneAdd(t *testing.T) {
	v, _ := sampleVault(t)
	v.StartSession(owner, "acme/launch")
	w, _ := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Twice\n"})
	v.MoveNote(owner, w.ID, "acme/launch/specs", "")
	m, _ := v.MoveNote(owner, w.ID, "acme/launch/meetings", "")
	v.EditNote(owner, EditArgs{Ref: w.ID, VersionToken: m.VersionToken, Operation: OpAppend, Content: str("edited")})
	s, _ := v.StartSession(owner, "acme/launch")
	if len(s.Project.Delta.Changes) != 1 || s.Project.Delta.Changes[0].Change != "added" || s.Project.Delta.Counts["added"] != 1 || len(s.Project.Delta.Counts) != 1 {
		t.Fatalf("delta: %+v counts %v", s.Project.Delta.Changes, s.Project.Delta.Counts)
	}
}

func TestRememberKeepsDistinctFactsFencesAndCRLF(t *testing.T) {
	v, dir := sampleVault(t)
	if r, _ := v.RememberAboutUser(owner, "tools", "Likes C++"); r.Status != "added" {
		t.Fatal(r)
	}
	if r, _ := v.RememberAboutUser(owner, "tools", "Likes C#"); r == nil || r.Status != "added" {
		t.Fatalf("C# merged into C++: %+v", r)
	}
	p := filepath.Join(dir, "people/sam/profile.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("---\r\ntype: profile\r\n---\r\n# Profile\r\n\r\n```\r\n## Observations\r\n```\r\n\r\n## Observations\r\n\r\n- [work] First (2026-01-01)\r\n"), 0o644)
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-qm", "sam")
	if _, err := v.RememberAboutUser(sam, "work", "Second"); err != nil {
		t.Fatal(err)
	}
	body := readFile(t, p)
	if strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\n") {
		t.Fatalf("mixed line endings:\n%q", body)
	}
	if !strings.Contains(body, "- [work] First (2026-01-01)\r\n- [work] Second (") {
		t.Fatalf("placement:\n%q", body)
	}
}
