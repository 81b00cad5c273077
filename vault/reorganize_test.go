package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/wikilinks"
)

// resolvedLinks maps "source id #i" → target id for every link that resolves.
func resolvedLinks(v *Vault) map[string]string {
	out := map[string]string{}
	var ids []string
	for _, p := range v.catalog.paths() {
		ids = append(ids, v.entry(p, false).ID)
	}
	for _, id := range ids {
		for i, e := range v.graph().Outgoing(id, nil) {
			if e.Status == wikilinks.Resolved {
				out[fmt.Sprintf("%s #%d", id, i)] = e.ID
			}
		}
	}
	return out
}

func sameResolution(t *testing.T, before, after map[string]string, what string) {
	t.Helper()
	for k, id := range before {
		if after[k] != id {
			t.Fatalf("%s: link %s resolved to %s, now to %q", what, k, id, after[k])
		}
	}
}

func TestMoveAndRenameKeepEveryLink(t *testing.T) {
	v, dir := sampleVault(t)
	before := resolvedLinks(v)
	spec, _ := v.GetNote(owner, "[[Billing integration spec]]", false, "")
	m, err := v.MoveNote(owner, spec.ID, "acme/launch/decisions", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.To != "acme/launch/decisions/Billing integration spec.md" || m.ID != spec.ID || len(m.Rewritten) == 0 {
		t.Fatalf("move: %+v", m)
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "acme/launch/Pricing.md")), "[[acme/launch/decisions/Billing integration spec]]") {
		t.Fatal("the path-form link in Pricing was not rewritten")
	}
	sameResolution(t, before, resolvedLinks(v), "after move_note")

	r, err := v.RenameNote(owner, "[[Pricing]]", "Pricing model 2027", "", false)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := v.GetNote(owner, r.ID, false, "")
	if n.Title != "Pricing model 2027" || !strings.Contains(n.Content, "# Pricing model 2027\n") || n.Path != "acme/launch/Pricing model 2027.md" {
		t.Fatalf("renamed note: %s %s", n.Title, n.Path)
	}
	if fmt.Sprint(n.Aliases) != "[Pricing model Tarifs]" {
		t.Fatalf("aliases: %v (the old title is added only on request)", n.Aliases)
	}
	sameResolution(t, before, resolvedLinks(v), "after rename_note")

	// With keepAlias the old title joins the aliases; links are rewritten
	// all the same (Obsidian does not resolve aliases).
	lp, _ := v.GetNote(owner, "[[Launch plan]]", true, "")
	incoming := len(lp.Links.Incoming)
	r2, err := v.RenameNote(owner, lp.ID, "Launch playbook", "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Rewritten) == 0 {
		t.Fatal("the rename rewrote nothing")
	}
	if lp2, _ := v.GetNote(owner, lp.ID, false, ""); !slices.Contains(lp2.Aliases, "Launch plan") {
		t.Fatalf("keepAlias: aliases %v", lp2.Aliases)
	}
	for _, p := range r2.Rewritten {
		if strings.Contains(readFile(t, filepath.Join(dir, p)), "[[Launch plan") {
			t.Fatalf("%s still says [[Launch plan", p)
		}
	}
	lp2, _ := v.GetNote(owner, lp.ID, true, "")
	if len(lp2.Links.Incoming) != incoming {
		t.Fatalf("incoming links %d → %d", incoming, len(lp2.Links.Incoming))
	}
	sameResolution(t, before, resolvedLinks(v), "after rename_note with keepAlias")

	// A folder move and a project folder rename: ids and handle stay.
	if _, err := v.MoveFolder(owner, "acme/launch", "acme/launch/specs", "acme/launch/decisions"); err != nil {
		t.Fatal(err)
	}
	sameResolution(t, before, resolvedLinks(v), "after move_folder")
	if _, err := v.RenameFolder(owner, "", "acme/infra", "platform-infra"); err != nil {
		t.Fatal(err)
	}
	sameResolution(t, before, resolvedLinks(v), "after rename_folder")
	ps, _ := v.Projects(owner)
	found := false
	for _, p := range ps {
		if p.Handle == "acme/platform" && p.Folder == "acme/platform-infra" {
			found = true
		}
	}
	if !found {
		t.Fatalf("project handle did not survive the folder rename: %+v", ps)
	}
	// Project rename: the old handle keeps working.
	if _, err := v.RenameProject(owner, "acme/platform", "acme/ops", "Ops"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.CreateNote(owner, CreateArgs{Project: "acme/platform", Body: "# Via the old handle"}); err != nil {
		t.Fatalf("old handle after rename_project: %v", err)
	}
	cleanAndSound(t, dir)
}

func TestReorganizationRefusalsChangeNothing(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	spec, _ := v.GetNote(owner, "[[Billing integration spec]]", false, "")
	os.MkdirAll(filepath.Join(dir, "acme/launch/decisions"), 0o755)
	cases := []struct {
		name, arg string
		run       func() error
	}{
		{"onto an existing note", "title", func() error {
			_, err := v.RenameNote(owner, spec.ID, "Onboarding flow spec", "", false)
			return err
		}},
		{"into another project", "toPath", func() error {
			_, err := v.MoveNote(owner, spec.ID, "acme/infra/specs", "")
			return err
		}},
		{"into the trash", "toPath", func() error {
			_, err := v.MoveNote(owner, spec.ID, ".trash", "")
			return err
		}},
		{"outside the vault", "toPath", func() error {
			_, err := v.MoveNote(owner, spec.ID, "../elsewhere", "")
			return err
		}},
		{"folder onto an existing folder", "toParent", func() error {
			_, err := v.MoveFolder(owner, "", "acme/infra/specs", "acme/infra/specs/..")
			return err
		}},
		{"folder into itself", "toParent", func() error {
			_, err := v.MoveFolder(owner, "", "acme/launch/specs", "acme/launch/specs")
			return err
		}},
		{"folder rename onto a sibling", "name", func() error {
			_, err := v.RenameFolder(owner, "", "acme/launch/specs", "meetings")
			return err
		}},
		{"a space root moved", "path", func() error {
			_, err := v.MoveFolder(owner, "", "acme", "acme/launch")
			return err
		}},
		{"project handle taken", "handle", func() error {
			_, err := v.RenameProject(owner, "acme/launch", "acme/platform", "")
			return err
		}},
		{"project into another space", "handle", func() error {
			_, err := v.RenameProject(owner, "acme/launch", "other/launch", "")
			return err
		}},
		{"link across spaces", "to", func() error {
			_, err := v.Link(owner, LinkArgs{From: "[[Pricing]]", To: "people/owner/profile.md", Type: "relates_to"})
			return err
		}},
		{"bad link type", "type", func() error {
			_, err := v.Link(owner, LinkArgs{From: "[[Pricing]]", ToTitle: "X", Type: "Bad Type"})
			return err
		}},
	}
	for _, c := range cases {
		err := c.run()
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != c.arg {
			t.Errorf("%s: want an error naming %q, got %v", c.name, c.arg, err)
		}
	}
	// camille may read acme but not reorganize it.
	if _, err := v.MoveFolder(camille, "", "acme/handbook", "acme/people"); !errors.Is(err, ErrForbidden) {
		t.Errorf("camille moving acme/handbook: %v", err)
	}
	unchanged(t, dir, head)
}

func TestLinkIsIdempotentAndForwardReferencesResolve(t *testing.T) {
	v, dir := sampleVault(t)
	out, err := v.Link(owner, LinkArgs{From: "[[Launch plan]]", ToTitle: "Partner program", Type: "depends_on"})
	if err != nil || out.Results[0].Status != "created" || out.Commit == "" {
		t.Fatalf("link: %+v %v", out, err)
	}
	head := gitOut(t, dir, "rev-parse", "HEAD")
	again, err := v.Link(owner, LinkArgs{From: "[[Launch plan]]", ToTitle: "Partner program", Type: "depends_on"})
	if err != nil || again.Results[0].Status != "unchanged" || again.Commit != "" {
		t.Fatalf("second link: %+v %v", again, err)
	}
	unchanged(t, dir, head)
	res, err := v.CreateNotes(owner, "acme", []CreateArgs{
		{Body: "# Partner program\n\nSee [[Partner tiers]]."},
		{Body: "# Partner tiers\n\nBack to [[Partner program]]."},
		{Body: "no title"},
		{Body: "# Partner tiers\n\nsame title twice"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Status != "ok" || res[1].Status != "ok" || res[2].Status != "error" || res[3].Status != "error" || !strings.Contains(res[2].Error, "notes[2].body") {
		t.Fatalf("batch: %+v", res)
	}
	if gitOut(t, dir, "rev-list", "--count", head+"..HEAD") != "1" {
		t.Fatal("the batch should be one commit")
	}
	pp, _ := v.GetNote(owner, res[0].ID, true, "")
	var from []string
	for _, l := range pp.Links.Incoming {
		from = append(from, l.From.Title+":"+l.Type)
	}
	if !strings.Contains(strings.Join(from, ","), "Launch plan:depends_on") || !strings.Contains(strings.Join(from, ","), "Partner tiers:links_to") {
		t.Fatalf("incoming to the new note: %v", from)
	}
	many, err := v.LinkMany(owner, []LinkArgs{
		{From: "[[Pricing]]", To: "[[Launch plan]]", Type: "relates_to"},
		{From: "[[Pricing]]", To: "[[Launch plan]]", Type: "relates_to"},
		{From: "[[Nope]]", ToTitle: "X", Type: "relates_to"},
	}, "links")
	if err != nil {
		t.Fatal(err)
	}
	if many.Results[0].Status != "created" || many.Results[1].Status != "unchanged" || many.Results[2].Status != "error" || !strings.Contains(many.Results[2].Error, "links[2].from") {
		t.Fatalf("link_many: %+v", many.Results)
	}
	fsck(t, dir)
}

// A new note that would make another note's link ambiguous, or take it
// over, is refused (the review's cases S1-S5). A rename or move that would
// do the same keeps those links naming their notes instead, as it keeps
// the links to what it moves: the caller asked for that name or place.
func TestChangesThatWouldRedirectOtherLinksAreRefused(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Path: "specs", Body: "# Pricing\n"})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "body" || !strings.Contains(err.Error(), "link(s) in other notes") {
		t.Errorf("create with a linked title: want a refusal naming body, got %v", err)
	}
	unchanged(t, dir, head)

	// "Pricing model" is an alias of Pricing: a link by it, [[Pricing
	// model]], resolves only in cairn (the sample writes it in Obsidian's
	// form, so a person writes it here).
	review := "acme/launch/meetings/Design review 2026-10-20.md"
	rv, err := v.GetNote(owner, review, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.EditNote(owner, EditArgs{Ref: rv.ID, VersionToken: rv.VersionToken, Operation: OpFindReplace, Find: "[[Pricing|Pricing model]]", Content: str("[[Pricing model]]")}); err != nil {
		t.Fatal(err)
	}
	before := resolvedLinks(v)
	spec, _ := v.GetNote(owner, "[[Onboarding flow spec]]", false, "")
	// [[Pricing model]] would now open the spec in Obsidian; it is
	// rewritten to Pricing's file name, showing what it showed.
	m, err := v.RenameNote(owner, spec.ID, "Pricing model", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(m.Rewritten, review) {
		t.Fatalf("rename onto a linked alias: %+v", m)
	}
	if got := readFile(t, filepath.Join(dir, review)); !strings.Contains(got, "real prices from [[Pricing|Pricing model]]. Feedback:") {
		t.Fatalf("%s:\n%s", review, got)
	}
	sameResolution(t, before, resolvedLinks(v), "after the rename onto a linked alias")
	cleanAndSound(t, dir)
}

// Moving a note next to a same-named file elsewhere would make a
// path-tail link ([[specs/Spec]]) ambiguous: the link gets the longer
// path that still names its note, and nothing else changes.
func TestMoveThatWouldMakeAPathTailAmbiguousKeepsTheLink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	if _, err := Init(dir, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644)
	}
	write("s/"+ProjectMarker, "handle: s\n")
	write("s/a/specs/Spec.md", "# Spec\n")
	write("s/b/Spec.md", "# Spec b\n")
	write("s/Src.md", "# Src\n\n[[a/specs/Spec]] and [[specs/Spec]]\n")
	os.MkdirAll(filepath.Join(dir, "s/b/specs"), 0o755)
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "x")
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err = v.MoveNote(owner, "s/b/Spec.md", "s/b/specs", ""); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "s/Src.md")); got != "# Src\n\n[[a/specs/Spec]] and [[a/specs/Spec]]\n" {
		t.Fatalf("Src.md: %q", got)
	}
}
