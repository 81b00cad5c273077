package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
