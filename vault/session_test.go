package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartSessionProfileIndexAndDelta(t *testing.T) {
	v, dir := sampleVault(t)
	first, err := v.StartSession(owner, "acme/launch")
	if err != nil {
		t.Fatal(err)
	}
	if first.Profile == nil || len(first.Profile.Observations) < 6 || first.Profile.Path != "people/owner/profile.md" {
		t.Fatalf("profile: %+v", first.Profile)
	}
	pj := first.Project
	if pj == nil || !pj.Delta.FirstVisit || len(pj.Delta.Changes) == 0 || pj.NoteCount < 20 {
		t.Fatalf("first visit: %+v", pj)
	}
	if strings.Join(pj.Folders, ",") != "acme/launch/decisions,acme/launch/meetings,acme/launch/specs" {
		t.Fatalf("folders: %v", pj.Folders)
	}
	if pj.KnownValues.Tags["launch"] == 0 || pj.KnownValues.Types["decision"] == 0 {
		t.Fatalf("known values: %+v", pj.KnownValues)
	}
	// Twice in a row: an empty delta.
	second, _ := v.StartSession(owner, "acme/launch")
	if second.Project.Delta.FirstVisit || len(second.Project.Delta.Changes) != 0 {
		t.Fatalf("second call: %+v", second.Project.Delta)
	}
	// Changes by an agent and by a person show, with who and how; a rename is a rename.
	w, _ := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Delta note\n"})
	v.MoveNote(owner, w.ID, "acme/launch/specs", "")
	p := filepath.Join(dir, "acme/launch/Pricing.md")
	os.WriteFile(p, []byte(readFile(t, p)+"\nBy hand.\n"), 0o644)
	gitOut(t, dir, "-c", "user.name=Jordan", "-c", "user.email=j@x", "commit", "-qam", "hand")
	os.MkdirAll(filepath.Join(dir, "acme/launch/decisions"), 0o755)
	// A pinned note is always included.
	pin := filepath.Join(dir, "acme/launch/Launch plan.md")
	os.WriteFile(pin, []byte(strings.Replace(readFile(t, pin), "---\n", "---\npinned: true\n", 1)), 0o644)
	gitOut(t, dir, "-c", "user.name=Jordan", "-c", "user.email=j@x", "commit", "-qam", "pin")
	third, err := v.StartSession(owner, "acme/launch")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range third.Project.Delta.Changes {
		got = append(got, a.Change+" "+a.Path+" "+a.Actor)
	}
	want := "modified acme/launch/Launch plan.md human,modified acme/launch/Pricing.md human,added acme/launch/specs/Delta note.md agent"
	if strings.Join(got, ",") != want {
		t.Fatalf("delta:\n%s\nwant\n%s", strings.Join(got, ","), want)
	}
	if third.Project.Delta.Counts["added"] != 1 || third.Project.Delta.Counts["renamed"] != 0 || len(third.Project.Pinned) != 1 || third.Project.Pinned[0].Title != "Launch plan" {
		t.Fatalf("counts / pinned: %+v %+v", third.Project.Delta.Counts, third.Project.Pinned)
	}
	// A note that existed before the last visit and was moved since is a rename.
	pricing, _ := v.GetNote(owner, "[[Pricing]]", false, "")
	if _, err := v.MoveNote(owner, pricing.ID, "acme/launch/decisions", ""); err != nil {
		t.Fatal(err)
	}
	fourth, _ := v.StartSession(owner, "acme/launch")
	var moved []Activity
	for _, a := range fourth.Project.Delta.Changes {
		if a.ID == pricing.ID {
			moved = append(moved, a)
		}
	}
	if len(moved) != 1 || moved[0].Change != "renamed" || moved[0].From != "acme/launch/Pricing.md" {
		t.Fatalf("the move: %+v (all: %+v)", moved, fourth.Project.Delta.Changes)
	}
	// A renamed note (new title, new file, content changed) is a rename too.
	r, err := v.RenameNote(owner, pricing.ID, "Pricing 2027", "", false)
	if err != nil {
		t.Fatal(err)
	}
	fifth, _ := v.StartSession(owner, "acme/launch")
	var ren []Activity
	for _, a := range fifth.Project.Delta.Changes {
		if a.ID == pricing.ID {
			ren = append(ren, a)
		}
	}
	if len(ren) != 1 || ren[0].Change != "renamed" || ren[0].From != "acme/launch/decisions/Pricing.md" || ren[0].Path != r.To {
		t.Fatalf("the rename: %+v", fifth.Project.Delta.Changes)
	}
	// Another principal: its own profile, its own marks.
	cam, err := v.StartSession(camille, "acme/launch")
	if err != nil || cam.Profile.Path != "people/camille/profile.md" || !cam.Project.Delta.FirstVisit {
		t.Fatalf("camille: %+v %v", cam, err)
	}
	if _, err := v.StartSession(camille, "acme/platform"); err == nil {
		t.Fatal("camille started a session on a project she cannot see")
	}
}
