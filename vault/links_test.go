package vault

import (
	"strings"
	"testing"
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
	fromMemory := func(c Caller) int {
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
