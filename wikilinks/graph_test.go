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
	for _, e := range g.Outgoing("A1", nil) {
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
	in := g.Incoming("P1", nil)
	if len(in) != 6 {
		t.Fatalf("incoming to P1: %d %+v", len(in), in)
	}
	// Renamed with its old title as an alias: every link still resolves.
	g.Set(note("P1", "acme/launch/Pricing 2027.md", "Pricing 2027", []string{"Tarifs", "Pricing"}, ""))
	if len(g.Incoming("P1", nil)) != 4 { // the two path forms no longer match (rename_note rewrites them)
		t.Fatalf("after rename: %+v", g.Incoming("P1", nil))
	}
	g.Remove("N1")
	if r := g.Resolve("Partner program"); r.Status != Unresolved {
		t.Fatalf("after removal: %+v", r)
	}
	if len(g.Unresolved()) < 2 {
		t.Fatalf("unresolved: %+v", g.Unresolved())
	}
}

func TestVisibilityHidesNotesEverywhere(t *testing.T) {
	g := New()
	g.Set(note("S1", "secret/Plan.md", "Plan", nil, "[[Plan]] of the secret side"))
	g.Set(note("O1", "open/Plan.md", "Plan", nil, ""))
	g.Set(note("O2", "open/Src.md", "Src", nil, "[[Plan]]"))
	open := func(id, path string) bool { return id != "S1" }
	if r := g.Resolve("Plan"); r.Status != Ambiguous {
		t.Fatalf("without a filter: %+v", r)
	}
	if r := g.ResolveFor("Plan", open); r.ID != "O1" {
		t.Fatalf("as seen from open: %+v", r)
	}
	if in := g.Incoming("O1", open); len(in) != 1 || in[0].From != "O2" {
		t.Fatalf("incoming as seen from open: %+v", in)
	}
	if r := g.ResolveFor("S1", open); r.Status != Unresolved {
		t.Fatalf("an invisible id must look absent: %+v", r)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"École": "ecole", " Décision Prix ": "decision prix", "PLAIN": "plain", "çà": "ca"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWhatIfFindsLinksAChangeWouldBreak(t *testing.T) {
	g := New()
	g.Set(note("F1", "s/a/Foo.md", "Foo", nil, ""))
	g.Set(note("R1", "s/Roadmap.md", "Roadmap plan", []string{"Roadmap"}, ""))
	g.Set(note("B1", "s/b/Bar.md", "Bar", nil, ""))
	g.Set(note("X1", "s/Src.md", "Src", nil, "[[Foo]] [[Roadmap]] [[a/Foo]] [[Later]]"))
	// Renaming Bar to "Foo" makes [[Foo]] ambiguous.
	sh := g.WhatIf([]Note{{ID: "B1", Path: "s/b/Foo.md", Title: "Foo", Aliases: []string{"Bar"}}}, nil, nil)
	if len(sh) != 1 || sh[0].Target != "Foo" || sh[0].After.Status != Ambiguous {
		t.Fatalf("rename onto a title: %+v", sh)
	}
	// Renaming Bar to another note's alias takes its links over.
	sh = g.WhatIf([]Note{{ID: "B1", Path: "s/b/Roadmap.md", Title: "Roadmap", Aliases: []string{"Bar"}}}, nil, nil)
	if len(sh) != 1 || sh[0].Target != "Roadmap" || sh[0].After.ID != "B1" {
		t.Fatalf("rename onto an alias: %+v", sh)
	}
	// A new note with a new title breaks nothing, and a forward reference that starts resolving is fine.
	if sh := g.WhatIf([]Note{{ID: "N1", Path: "s/Later.md", Title: "Later"}}, nil, nil); len(sh) != 0 {
		t.Fatalf("new note: %+v", sh)
	}
	// Removing Foo: [[Foo]] and [[a/Foo]] stop resolving.
	if sh := g.WhatIf(nil, []string{"F1"}, nil); len(sh) != 2 {
		t.Fatalf("removal: %+v", sh)
	}
	// The real graph is untouched.
	if r := g.Resolve("Foo"); r.ID != "F1" {
		t.Fatalf("WhatIf changed the graph: %+v", r)
	}
}

// WhatIf as someone who sees only some notes, the target that keeps a
// shifted link naming its note, and the links of a rewritten note.
func TestWhatIfAsSeenAndWhatKeepsALink(t *testing.T) {
	g := New()
	g.Set(note("P1", "acme/launch/Pricing.md", "Pricing", nil, ""))
	g.Set(note("S1", "acme/launch/Plan.md", "Plan", nil, "[[Pricing]] [[Pricing#Tiers|tiers]]"))
	g.Set(note("M1", "people/alice/memory/Mine.md", "Mine", nil, "[[Pricing]]"))
	newPricing := []Note{{ID: "B1", Path: "bob/Pricing.md", Title: "Pricing"}}
	all := g.WhatIf(newPricing, nil, nil)
	if len(all) != 2 || all[0].From != "M1" || all[1].From != "S1" || all[0].After.Status != Ambiguous {
		t.Fatalf("vault-wide: %+v", all)
	}
	for _, sh := range all {
		if sh.Keep != "acme/launch/Pricing" || sh.Before.ID != "P1" {
			t.Fatalf("keep: %+v", sh)
		}
	}
	// Bob sees only his own notes: [[Pricing]] named nothing he can see.
	bob := func(id, path string) bool { return strings.HasPrefix(path, "bob/") }
	if sh := g.WhatIf(newPricing, nil, bob); len(sh) != 0 {
		t.Fatalf("as bob: %+v", sh)
	}
	// Someone who sees acme but not bob's note sees nothing shift either.
	acme := func(id, path string) bool { return strings.HasPrefix(path, "acme/") }
	if sh := g.WhatIf(newPricing, nil, acme); len(sh) != 0 {
		t.Fatalf("as acme: %+v", sh)
	}
	// When a title spelled like the path would take the path over, the id keeps the link.
	g.Set(note("T1", "x/Odd.md", "acme/launch/Pricing", nil, ""))
	if sh := g.WhatIf(newPricing, nil, nil); len(sh) == 0 || sh[0].Keep != "P1" {
		t.Fatalf("keep with a path-like title: %+v", sh)
	}
	g.Remove("T1")
	// A note the change rewrites is compared link by link with what it was:
	// rewriting [[Pricing]] to the path keeps it; to another note's title does not.
	kept := note("S1", "acme/launch/Plan.md", "Plan", nil, "[[acme/launch/Pricing|Pricing]] [[Pricing#Tiers|tiers]]")
	if sh := g.WhatIf([]Note{kept}, nil, nil); len(sh) != 0 {
		t.Fatalf("a faithful rewrite: %+v", sh)
	}
	wrong := note("S1", "acme/launch/Plan.md", "Plan", nil, "[[Mine]] [[Pricing#Tiers|tiers]]")
	if sh := g.WhatIf([]Note{wrong}, nil, nil); len(sh) != 1 || sh[0].From != "S1" || sh[0].Target != "Pricing" || sh[0].After.ID != "M1" {
		t.Fatalf("an unfaithful rewrite: %+v", sh)
	}
}
