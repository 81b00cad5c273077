package vault

import (
	"encoding/json"
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

// The profile's observations are listed once, in observations: content is
// the rest of the note (nothing of it lost, no empty heading left behind).
func TestStartSessionSaysEachObservationOnce(t *testing.T) {
	v, _ := sampleVault(t)
	if _, err := v.RememberAboutUser(owner, "tools", "Uses the terminal for git"); err != nil {
		t.Fatal(err)
	}
	s, err := v.StartSession(owner, "")
	if err != nil {
		t.Fatal(err)
	}
	pv := s.Profile
	if pv == nil || len(pv.Observations) < 9 {
		t.Fatalf("profile: %+v", pv)
	}
	reply, _ := json.Marshal(s)
	for _, o := range pv.Observations {
		if n := strings.Count(string(reply), o.Text); n != 1 {
			t.Errorf("%q is in the reply %d times", o.Text, n)
		}
	}
	for _, want := range []string{"# Profile", "## About", "Jordan leads the Beacon launch", "## Notes for agents", "list decisions and action items"} {
		if !strings.Contains(pv.Content, want) {
			t.Errorf("content lost %q:\n%s", want, pv.Content)
		}
	}
	if strings.Contains(pv.Content, "## Observations") || strings.Contains(pv.Content, "\n\n\n") {
		t.Errorf("content keeps an empty heading or blank runs:\n%s", pv.Content)
	}
}

func TestWithoutObservations(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"- [work] Ships on Fridays (2026-10-01)\n", ""},
		{"# P\n\n## Observations\n\n- [a] one (2026-01-01)\n- [b] two\n\n## Notes\n\nKeep me.\n", "# P\n\n## Notes\n\nKeep me.\n"},
		{"## Mixed\n\nIntro.\n\n- [a] one\n\nAfter.\n", "## Mixed\n\nIntro.\n\nAfter.\n"},
		{"#tag line\n- [a] one\n", "#tag line\n"},
	} {
		if got := withoutObservations(c.in); got != c.want {
			t.Errorf("withoutObservations(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
