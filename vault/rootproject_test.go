package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

// A folder of notes adopted with RootProject is one project, whole: the
// owner's agent writes in it with no further step, a member granted it
// reads every shared note in it, and people/, banks/ and a sub-project
// granted on its own stay out of the member's reach.
func TestAFolderAdoptedWholeIsOneProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My Notes")
	for p, body := range map[string]string{
		"Inbox.md":           "# Inbox\n\nThe launch plan is in [[Plans/Launch]].\n",
		"Plans/Launch.md":    "# Launch\n\nTwenty pilot customers first.\n",
		"Private/Diary.md":   "# Diary\n\nNothing to share about the launch.\n",
		".obsidian/app.json": "{}\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Init(dir, InitOptions{RootProject: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Project == nil || res.Project.Handle != "my-notes" {
		t.Fatalf("project: %+v", res.Project)
	}
	if got := gitOut(t, dir, "ls-files", ProjectMarker); got != ProjectMarker {
		t.Fatalf("the root marker is not committed: %q", got)
	}
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()

	// The owner's agent writes with no project and no path, and into a folder.
	w, err := v.CreateNote(owner, CreateArgs{Body: "# Decision\n\nWe launch with twenty pilot customers.\n"})
	if err != nil {
		t.Fatalf("create_note with no project: %v", err)
	}
	if w.Path != "Decision.md" {
		t.Fatalf("written at %s", w.Path)
	}
	if w, err = v.CreateNote(owner, CreateArgs{Project: "my-notes", Path: "Plans", Body: "# Budget\n\nSmall.\n"}); err != nil || w.Path != "Plans/Budget.md" {
		t.Fatalf("create_note in Plans: %v %+v", err, w)
	}
	ps, err := v.Projects(owner)
	if err != nil || len(ps) != 1 || ps[0].Access != "write" || ps[0].Folder != "" {
		t.Fatalf("projects: %+v %v", ps, err)
	}

	// A sub-project, granted on its own; the member gets the root project.
	if _, err := v.CreateProject(owner, "diary", "", "Private"); err != nil {
		t.Fatal(err)
	}
	if err := v.Grant(owner, "camille", "my-notes", access.RoleRead); err != nil {
		t.Fatal(err)
	}
	rem, err := v.RememberAboutUser(owner, "preferences", "likes short notes about the launch")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rem.Path, "people/owner/") {
		t.Fatalf("the profile is at %s", rem.Path)
	}
	if _, err := v.GetNote(owner, "Private/Diary.md", false, ""); err != nil {
		t.Fatalf("the owner cannot read the sub-project: %v", err)
	}
	if _, err := v.GetNote(camille, "Plans/Launch.md", false, ""); err != nil {
		t.Fatalf("the member cannot read a note of the root project: %v", err)
	}
	for _, p := range []string{"Private/Diary.md", rem.Path} {
		if _, err := v.GetNote(camille, p, false, ""); err == nil {
			t.Fatalf("the member reads %s", p)
		}
	}
	if _, err := v.CreateNote(camille, CreateArgs{Body: "# Mine\n"}); err == nil {
		t.Fatal("a reader wrote in the root project")
	}
	res2, err := v.Search(context.Background(), camille, SearchArgs{Query: "launch", Mode: "lexical"})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, h := range res2.Results {
		seen = append(seen, h.Path)
	}
	if !strings.Contains(strings.Join(seen, " "), "Plans/Launch.md") || strings.Contains(strings.Join(seen, " "), "Diary") {
		t.Fatalf("the member's search: %v", seen)
	}
	s, err := v.StartSession(camille, "my-notes")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Project.Folders {
		if f == "Private" || f == "people" || strings.HasPrefix(f, ".") || strings.HasPrefix(f, "/") {
			t.Fatalf("start_session lists folder %q: %v", f, s.Project.Folders)
		}
	}
	if !strings.Contains(strings.Join(s.Project.Folders, " "), "Plans") {
		t.Fatalf("start_session folders: %v", s.Project.Folders)
	}
}

// A vault with projects gets no root project; a bad handle changes nothing.
func TestInitRootProjectRefusals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	_, err := Init(dir, InitOptions{Project: "Not A Handle"})
	wantArgErr(t, "a bad handle", err, "project", "valid handle")
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("a refused init made the folder")
	}
	res, err := Init(dir, InitOptions{From: "../sample-vault", RootProject: true})
	if err != nil || res.Project != nil {
		t.Fatalf("the sample vault has projects: %+v %v", res.Project, err)
	}
	_, err = Init(filepath.Join(t.TempDir(), "w"), InitOptions{From: "../sample-vault", Project: "mine"})
	wantArgErr(t, "--project on a vault with projects", err, "project", "has projects already")
	for name, want := range map[string]string{"My Obsidian Vault": "my-obsidian-vault", "Notes (2026)": "notes-2026", "___": "notes", "Été 2026": "ete-2026"} {
		if got := handleFromName(name); got != want {
			t.Errorf("handleFromName(%q) = %q, want %q", name, got, want)
		}
	}
}
