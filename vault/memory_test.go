package vault

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

func TestRememberAboutUserAppendsOnceAndParsesBack(t *testing.T) {
	v, dir := sampleVault(t)
	r, err := v.RememberAboutUser(owner, "preferences", "Likes tables   for comparisons.")
	if err != nil || r.Status != "added" || r.Path != "people/owner/profile.md" {
		t.Fatalf("remember: %+v %v", r, err)
	}
	body := readFile(t, filepath.Join(dir, r.Path))
	obs := ParseObservations([]byte(body))
	last := obs[len(obs)-1]
	if last.Category != "preferences" || last.Text != "Likes tables for comparisons." || last.Date == "" {
		t.Fatalf("last observation: %+v", last)
	}
	// It went at the end of the Observations list, before the next section.
	if i, j := strings.Index(body, "Likes tables"), strings.Index(body, "## Notes for agents"); i < 0 || j < 0 || i > j {
		t.Fatalf("placement:\n%s", body)
	}
	head := gitOut(t, dir, "rev-parse", "HEAD")
	again, err := v.RememberAboutUser(owner, "Preferences", "likes tables for comparisons")
	if err != nil || again.Status != "already_known" {
		t.Fatalf("near-identical: %+v %v", again, err)
	}
	unchanged(t, dir, head)
	// A principal with no profile yet gets one, private to it.
	s, err := v.RememberAboutUser(sam, "work", "On call the first week of each month")
	if err != nil || s.Path != "people/sam/profile.md" {
		t.Fatalf("sam: %+v %v", s, err)
	}
	n, _ := v.GetNote(sam, s.ID, false, "")
	if n.Class != ClassUserProfile {
		t.Fatalf("class %s", n.Class)
	}
	if _, err := v.GetNote(owner, s.ID, false, ""); !IsNotFound(err) {
		t.Fatalf("the owner reads sam's profile: %v", err)
	}
	for _, bad := range [][2]string{{"", "x y z"}, {"ok", "no"}, {"[x]", "fine text"}, {"ok", strings.Repeat("a", 1001)}} {
		_, err := v.RememberAboutUser(owner, bad[0], bad[1])
		var ae *ArgError
		if !errors.As(err, &ae) {
			t.Errorf("%q/%q: want an argument error, got %v", bad[0], bad[1], err)
		}
	}
	fsck(t, dir)
}

func TestRememberAboutProjectIsPrivateMemory(t *testing.T) {
	v, dir := sampleVault(t)
	r, err := v.RememberAboutProject(camille, "acme/launch", "", "The launch copy is reviewed on Thursdays")
	if err != nil || r.Status != "added" || !strings.HasPrefix(r.Path, "people/camille/memory/") {
		t.Fatalf("remember: %+v %v", r, err)
	}
	n, err := v.GetNote(camille, r.ID, false, "")
	if err != nil || n.Class != ClassAgentMemory || n.Frontmatter["project"] != "acme/launch" {
		t.Fatalf("memory note: %+v %v", n, err)
	}
	if !strings.Contains(n.Content, "- [general] The launch copy is reviewed on Thursdays (") {
		t.Fatalf("content:\n%s", n.Content)
	}
	if _, err := v.GetNote(owner, r.ID, false, ""); !IsNotFound(err) {
		t.Fatalf("the owner reads camille's memory: %v", err)
	}
	if _, err := v.RememberAboutProject(camille, "acme/platform", "x", "not a member here"); err == nil {
		t.Fatal("camille remembered about a project she cannot see")
	}
	readOnly := camille
	readOnly.Ceiling = access.RoleRead
	if _, err := v.RememberAboutProject(readOnly, "acme/launch", "x", "read token"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a read token wrote memory: %v", err)
	}
	if l, _ := v.ListNotes(camille, ListArgs{Project: "acme/launch"}); strings.Contains(strings.Join(func() []string {
		var s []string
		for _, e := range l.Entries {
			s = append(s, e.Path)
		}
		return s
	}(), ","), "people/") {
		t.Fatal("memory shows in list_notes")
	}
	fsck(t, dir)
}
