package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

func TestGetNoteDetailedListsLinksBothWays(t *testing.T) {
	v, _ := sampleVault(t)
	n, err := v.GetNote(owner, "[[Pricing]]", true, "")
	if err != nil {
		t.Fatal(err)
	}
	var out, typed, in []string
	for _, l := range n.Links.Outgoing {
		if l.Status == "resolved" {
			out = append(out, l.To.Title)
		}
		if l.Typed {
			typed = append(typed, l.Type+">"+l.Target)
		}
	}
	for _, l := range n.Links.Incoming {
		in = append(in, l.From.Title)
	}
	if len(out) == 0 || len(typed) == 0 || len(in) < 3 {
		t.Fatalf("pricing links: out %v typed %v in %v", out, typed, in)
	}
	if !strings.Contains(strings.Join(typed, ","), "depends_on>Décision tarification") {
		t.Fatalf("typed links: %v", typed)
	}
	// The roadmap's deliberate forward references are unresolved.
	r, _ := v.GetNote(owner, "[[Roadmap 2027]]", true, "")
	var fwd []string
	for _, l := range r.Links.Outgoing {
		if l.Status == "unresolved" {
			fwd = append(fwd, l.Target)
		}
	}
	if strings.Join(fwd, ",") != "Partner program,Tarifs 2028" {
		t.Fatalf("forward references: %v", fwd)
	}
	// Creating the missing note resolves them.
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "# Partner program\n"})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := v.GetNote(owner, w.ID, true, "")
	if len(p.Links.Incoming) != 1 || p.Links.Incoming[0].From.Title != "Roadmap 2027" {
		t.Fatalf("incoming after create: %+v", p.Links.Incoming)
	}
}

func TestLinksFromPrivateOrForbiddenNotesStayHidden(t *testing.T) {
	v, _ := sampleVault(t)
	// camille reads acme but not acme/platform (folder acme/infra).
	n, err := v.GetNote(camille, "[[Launch plan]]", true, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range n.Links.Outgoing {
		if l.To != nil && strings.HasPrefix(l.To.Path, "acme/infra/") {
			t.Fatalf("camille sees a link into acme/infra: %+v", l)
		}
	}
	for _, l := range n.Links.Incoming {
		if strings.HasPrefix(l.From.Path, "acme/infra/") || strings.HasPrefix(l.From.Path, "people/") {
			t.Fatalf("camille sees a link from %s", l.From.Path)
		}
	}
	// The owner's private memories link to shared notes; nobody else sees those edges.
	fromMemory := func(c access.Caller) int {
		p, _ := v.GetNote(c, "[[Pricing]]", true, "")
		n := 0
		for _, l := range p.Links.Incoming {
			if strings.HasPrefix(l.From.Path, "people/owner/") {
				n++
			}
		}
		return n
	}
	if fromMemory(owner) == 0 {
		t.Fatal("the owner should see their own memory linking to Pricing")
	}
	if fromMemory(camille) != 0 {
		t.Fatal("camille sees the owner's memory linking to Pricing")
	}
}

// The sample vault is written as an Obsidian user would (every link form,
// aliases, block refs, table-cell links, fake links in code). Every link in
// it must resolve, except the two deliberate forward references; and what
// Obsidian keeps in .obsidian/ is never a note.
func TestSampleVaultLinksResolveLikeObsidian(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".obsidian", "plugins", "p"), 0o755)
	os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte(`{"alwaysUpdateLinks":true}`), 0o644)
	os.WriteFile(filepath.Join(dir, ".obsidian", "plugins", "p", "Plugin notes.md"), []byte("# Plugin notes\n[[Pricing]]\n"), 0o644)
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var unresolved []string
	total := 0
	for _, e := range v.graph().Unresolved() {
		unresolved = append(unresolved, e.Target+" ("+e.Status+")")
	}
	paths := v.catalog.paths()
	for _, p := range paths {
		e := v.entry(p, false)
		total += len(e.Links)
		for _, l := range e.Links {
			if strings.Contains(l.Target, "Not a link") || strings.Contains(l.Target, "Not either") {
				t.Errorf("a link inside code was parsed: %+v", l)
			}
		}
	}
	for _, p := range paths {
		if strings.HasPrefix(p, ".obsidian") {
			t.Errorf(".obsidian file indexed: %s", p)
		}
	}
	if strings.Join(unresolved, ", ") != "Partner program (unresolved), Tarifs 2028 (unresolved)" {
		t.Fatalf("unresolved links: %v", unresolved)
	}
	if total < 250 {
		t.Fatalf("only %d links parsed in the sample vault", total)
	}
	if _, err := v.GetNote(owner, "Plugin notes", false, ""); !IsNotFound(err) {
		t.Fatalf("a note under .obsidian/ is reachable: %v", err)
	}
}

// Copying a note file copies its id. Both copies stay reachable; the copy
// gets an id of its own, saved at its first change.
func TestACopiedNoteFileDoesNotHideTheOriginal(t *testing.T) {
	v, dir := sampleVault(t)
	orig, _ := v.GetNote(owner, "acme/launch/Pricing.md", false, "")
	data := readFile(t, filepath.Join(dir, "acme/launch/Pricing.md"))
	copyPath := "acme/launch/decisions/Pricing copy.md"
	os.WriteFile(filepath.Join(dir, copyPath), []byte(strings.Replace(data, "# Pricing", "# Pricing copy", 1)), 0o644)
	v.rescan()
	a, err := v.GetNote(owner, "acme/launch/Pricing.md", false, "")
	if err != nil || a.ID != orig.ID {
		t.Fatalf("the original: %v %+v", err, a)
	}
	b, err := v.GetNote(owner, copyPath, false, "")
	if err != nil || b.ID == orig.ID || b.Warning == "" {
		t.Fatalf("the copy: %v id=%s warning=%q", err, b.ID, b.Warning)
	}
	if _, err := v.GetNote(owner, b.ID, false, ""); err != nil {
		t.Fatalf("the copy by its own id: %v", err)
	}
	w, err := v.EditNote(owner, EditArgs{Ref: b.ID, VersionToken: b.VersionToken, Operation: OpAppend, Content: str("copied")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, copyPath)), "id: "+b.ID) || w.ID != b.ID {
		t.Fatal("the copy's own id was not saved at its first change")
	}
	if again, _ := v.GetNote(owner, copyPath, false, ""); again.Warning != "" || again.ID != b.ID {
		t.Fatalf("after the change: %+v", again)
	}
}
