package wikilinks

import (
	"strings"
	"testing"
)

func note(id, path, title string, aliases []string, body string) Note {
	return Note{ID: id, Path: path, Title: title, Aliases: aliases, Links: Parse([]byte(body))}
}

func TestResolutionOrderAmbiguityAndForwardReferences(t *testing.T) {
	g := New()
	g.Set(note("P1", "acme/launch/Pricing.md", "Pricing", []string{"Tarifs"}, ""))
	g.Set(note("E1", "acme/handbook/École.md", "École", nil, ""))
	g.Set(note("S1", "acme/launch/specs/Spec.md", "Spec", nil, ""))
	g.Set(note("S2", "acme/infra/specs/Spec.md", "Spec", nil, ""))
	g.Set(note("A1", "a/Src.md", "Src", nil, "[[Pricing]] [[Tarifs]] [[acme/launch/Pricing]] [[launch/Pricing.md]] [[pricing]] [[ecole]] [[P1]] [[Spec]] [[launch/specs/Spec]] [[Partner program]]"))
	want := []string{"P1 title", "P1 alias", "P1 path", "P1 path", "P1 folded", "E1 folded", "P1 id", "ambiguous", "S1 path", "unresolved"}
	var got []string
	for _, e := range g.Outgoing("A1") {
		switch e.Status {
		case Resolved:
			got = append(got, e.ID+" "+e.How)
		default:
			got = append(got, e.Status)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if r := g.Resolve("Spec"); strings.Join(r.Candidates, ",") != "S1,S2" {
		t.Fatalf("ambiguity candidates: %+v", r)
	}
	// The forward reference resolves as soon as the note exists.
	g.Set(note("N1", "acme/Partner program.md", "Partner program", nil, ""))
	if r := g.Resolve("Partner program"); r.ID != "N1" {
		t.Fatalf("forward reference: %+v", r)
	}
	in := g.Incoming("P1")
	if len(in) != 6 {
		t.Fatalf("incoming to P1: %d %+v", len(in), in)
	}
	// Renamed with its old title as an alias: every link still resolves.
	g.Set(note("P1", "acme/launch/Pricing 2027.md", "Pricing 2027", []string{"Tarifs", "Pricing"}, ""))
	if len(g.Incoming("P1")) != 4 { // the two path forms no longer match (rename_note rewrites them)
		t.Fatalf("after rename: %+v", g.Incoming("P1"))
	}
	g.Remove("N1")
	if r := g.Resolve("Partner program"); r.Status != Unresolved {
		t.Fatalf("after removal: %+v", r)
	}
	if len(g.Unresolved()) < 2 {
		t.Fatalf("unresolved: %+v", g.Unresolved())
	}
}
