package wikilinks

import (
	"strings"
	"testing"
)

func note(id, path, title string, aliases []string, body string) Note {
	return Note{ID: id, Path: path, Title: title, Aliases: aliases, Links: Parse([]byte(body))}
}

func TestResolutionObsidianFirstThenCairnsOwnWays(t *testing.T) {
	g := New()
	g.Set(note("P1", "acme/launch/Pricing.md", "Pricing", []string{"Tarifs"}, ""))
	g.Set(note("E1", "acme/handbook/École.md", "École", nil, ""))
	g.Set(note("S1", "acme/launch/specs/Spec.md", "Spec", nil, ""))
	g.Set(note("S2", "acme/infra/specs/Spec.md", "Spec", nil, ""))
	g.Set(note("H1", "acme/Odd name.md", "Launch memo", nil, ""))
	g.Set(note("A1", "a/Src.md", "Src", nil, "[[Pricing]] [[Tarifs]] [[acme/launch/Pricing]] [[launch/Pricing.md]] [[pricing]] [[ecole]] [[P1]] [[Spec]] [[launch/specs/Spec]] [[Launch memo]] [[Partner program]]"))
	want := []string{"P1 name same", "P1 alias unresolved", "P1 path same", "P1 path same", "P1 name same", "E1 folded unresolved",
		"P1 id unresolved", "S2 name same", "S1 path same", "H1 title unresolved", "unresolved unresolved"}
	var got []string
	for _, e := range g.Outgoing("A1", nil) {
		switch e.Status {
		case Resolved:
			got = append(got, e.ID+" "+e.How+" "+e.Obsidian)
		default:
			got = append(got, e.Status+" "+e.Obsidian)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	// Same folder (or under it) first: from acme/launch, [[Spec]] is the launch one.
	if r := g.ResolveFrom("acme/launch/Plan.md", "Spec", nil); r.ID != "S1" {
		t.Fatalf("same folder first: %+v", r)
	}
	// A ref is resolved as a link at the vault's root: the shortest path.
	if r := g.Resolve("Spec"); r.ID != "S2" {
		t.Fatalf("ref: %+v", r)
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
	// Renamed with its old title as an alias: the file name no longer
	// matches; [[Pricing]] resolves in cairn only (by alias), [[pricing]]
	// folded, and the two path forms not at all.
	g.Set(note("P1", "acme/launch/Pricing 2027.md", "Pricing 2027", []string{"Tarifs", "Pricing"}, ""))
	in = g.Incoming("P1", nil)
	if len(in) != 4 {
		t.Fatalf("after rename: %+v", in)
	}
	for _, e := range in {
		if e.Obsidian != ObsidianUnresolved {
			t.Fatalf("after rename, %q resolves in Obsidian: %+v", e.Target, e)
		}
	}
	g.Remove("N1")
	if r := g.Resolve("Partner program"); r.Status != Unresolved {
		t.Fatalf("after removal: %+v", r)
	}
	if len(g.Unresolved()) < 2 {
		t.Fatalf("unresolved: %+v", g.Unresolved())
	}
}

// Two notes of one file name at paths of one length, neither in the
// linking note's folder: Obsidian's pick depends on the order it loaded
// them, so cairn reports both. Two notes with one H1 and different file
// names are ambiguous in cairn's own ways.
func TestTiesAreReportedNotGuessed(t *testing.T) {
	g := New()
	g.Set(note("X", "x/Spec.md", "Spec", nil, ""))
	g.Set(note("Y", "y/Spec.md", "Spec", nil, ""))
	g.Set(note("T1", "t/One.md", "Plan", nil, ""))
	g.Set(note("T2", "t/Two.md", "Plan", nil, ""))
	g.Set(note("S", "z/Src.md", "Src", nil, "[[Spec]] [[Plan]] [[x/Spec]]"))
	out := g.Outgoing("S", nil)
	if out[0].Status != Ambiguous || out[0].Obsidian != ObsidianAmbiguous || strings.Join(out[0].Candidates, ",") != "X,Y" {
		t.Fatalf("tie: %+v", out[0])
	}
	if out[1].Status != Ambiguous || out[1].Obsidian != ObsidianUnresolved || out[1].How != ByTitle {
		t.Fatalf("two H1s: %+v", out[1])
	}
	if out[2].ID != "X" {
		t.Fatalf("a path breaks the tie: %+v", out[2])
	}
	// From one of the folders, its own note.
	if r := g.ResolveFrom("y/Other.md", "Spec", nil); r.ID != "Y" {
		t.Fatalf("from y: %+v", r)
	}
}

// Attachments are link targets (not notes): embeds and Markdown links
// resolve to them when they exist, and stop when they go.
func TestAttachmentsResolve(t *testing.T) {
	g := New()
	g.SetFile("assets/pic.png")
	g.SetFile("docs/a.pdf")
	g.Set(note("S", "notes/Src.md", "Src", nil, "![[pic.png]] ![](../docs/a.pdf) [[pic]] ![[Pic.PNG]]"))
	out := g.Outgoing("S", nil)
	got := []string{}
	for _, e := range out {
		got = append(got, e.Status+":"+e.Path+":"+e.ID)
	}
	if strings.Join(got, ",") != "resolved:assets/pic.png:,resolved:docs/a.pdf:,unresolved::,resolved:assets/pic.png:" {
		t.Fatalf("got %v", got)
	}
	if r := g.Resolve("pic.png"); r.Status != Unresolved {
		t.Fatalf("a ref names a note, never an attachment: %+v", r)
	}
	g.RemoveFile("assets/pic.png")
	if r := g.ResolveFrom("notes/Src.md", "pic.png", nil); r.Status != Unresolved {
		t.Fatalf("removed: %+v", r)
	}
}

func TestLinkTextIsTheShortestUniqueTarget(t *testing.T) {
	g := New()
	g.Set(note("A", "a/Spec.md", "Spec", nil, ""))
	g.Set(note("U", "a/Unique.md", "Unique", nil, ""))
	g.SetFile("a/pic.png")
	if got := g.LinkText("a/Unique.md", "b/Src.md"); got != "Unique" {
		t.Fatalf("unique: %q", got)
	}
	if got := g.LinkText("a/pic.png", "b/Src.md"); got != "pic.png" {
		t.Fatalf("attachment: %q", got)
	}
	g.Set(note("B", "b/Spec.md", "Spec", nil, ""))
	if got := g.LinkText("a/Spec.md", "b/Src.md"); got != "a/Spec" {
		t.Fatalf("shared name: %q", got)
	}
}

func TestVisibilityHidesNotesEverywhere(t *testing.T) {
	g := New()
	g.Set(note("S1", "s/Plan.md", "Plan", nil, "[[Plan]] of the secret side"))
	g.Set(note("O1", "open/Plan.md", "Plan", nil, ""))
	g.Set(note("O2", "open/Src.md", "Src", nil, "[[Plan]]"))
	g.Set(note("O3", "elsewhere/Src.md", "Src", nil, "[[Plan]]"))
	open := func(id, path string) bool { return id != "S1" }
	if r := g.Resolve("Plan"); r.ID != "S1" {
		t.Fatalf("without a filter, the shortest path: %+v", r)
	}
	if r := g.ResolveFor("Plan", open); r.ID != "O1" {
		t.Fatalf("as seen from open: %+v", r)
	}
	if in := g.Incoming("O1", open); len(in) != 2 || in[0].From != "O2" || in[1].From != "O3" {
		t.Fatalf("incoming as seen from open: %+v", in)
	}
	if in := g.Incoming("O1", nil); len(in) != 1 || in[0].From != "O2" {
		t.Fatalf("incoming with nothing hidden: %+v", in)
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
	g.Set(note("R1", "s/Roadmap plan.md", "Roadmap plan", []string{"Roadmap"}, ""))
	g.Set(note("B1", "s/b/Bar.md", "Bar", nil, ""))
	g.Set(note("X1", "s/Src.md", "Src", nil, "[[Foo]] [[Roadmap]] [[a/Foo]] [[Later]]"))
	// Renaming Bar to "Foo" in a folder like Foo's makes [[Foo]] a tie.
	sh := g.WhatIf([]Note{{ID: "B1", Path: "s/b/Foo.md", Title: "Foo", Aliases: []string{"Bar"}}}, nil, nil)
	if len(sh) != 1 || sh[0].Target != "Foo" || sh[0].After.Status != Ambiguous {
		t.Fatalf("rename onto a file name: %+v", sh)
	}
	// A file named like another note's alias takes its links over (Obsidian resolves it).
	sh = g.WhatIf([]Note{{ID: "B1", Path: "s/b/Roadmap.md", Title: "Roadmap", Aliases: []string{"Bar"}}}, nil, nil)
	if len(sh) != 1 || sh[0].Target != "Roadmap" || sh[0].After.ID != "B1" {
		t.Fatalf("rename onto an alias: %+v", sh)
	}
	// A new note with a new name breaks nothing, and a forward reference that starts resolving is fine.
	if sh := g.WhatIf([]Note{{ID: "N1", Path: "s/Later.md", Title: "Later"}}, nil, nil); len(sh) != 0 {
		t.Fatalf("new note: %+v", sh)
	}
	// Removing Foo: [[Foo]] and [[a/Foo]] stop resolving.
	if sh := g.WhatIf(nil, []string{"F1"}, nil); len(sh) != 2 {
		t.Fatalf("removal: %+v", sh)
	}
	// Moving the linking note changes what its links name from its new folder.
	g.Set(note("F2", "t/Foo.md", "Foo", nil, ""))
	moved := note("X1", "t/Src.md", "Src", nil, "[[Foo]] [[Roadmap]] [[a/Foo]] [[Later]]")
	if sh := g.WhatIf([]Note{moved}, nil, nil); len(sh) != 1 || sh[0].After.ID != "F2" || sh[0].Keep != "s/a/Foo" {
		t.Fatalf("moving the source: %+v", sh)
	}
	// The real graph is untouched.
	if r := g.ResolveFrom("s/Src.md", "Foo", nil); r.ID != "F1" {
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
	// A shorter path takes [[Pricing]] over where the linking note's own
	// folder has no Pricing: in alice's memory, not in acme/launch.
	all := g.WhatIf(newPricing, nil, nil)
	if len(all) != 1 || all[0].From != "M1" || all[0].After.ID != "B1" || all[0].Keep != "acme/launch/Pricing" || all[0].Before.ID != "P1" {
		t.Fatalf("vault-wide: %+v", all)
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
	// A title spelled like the path never takes the path over: Obsidian resolves paths.
	g.Set(note("T1", "x/Odd.md", "acme/launch/Pricing", nil, ""))
	if sh := g.WhatIf(newPricing, nil, nil); len(sh) != 1 || sh[0].Keep != "acme/launch/Pricing" {
		t.Fatalf("keep with a path-like title: %+v", sh)
	}
	g.Remove("T1")
	// A note the change rewrites is compared link by link with what it was:
	// rewriting [[Pricing]] to the path keeps it; to another note's name does not.
	kept := note("S1", "acme/launch/Plan.md", "Plan", nil, "[[acme/launch/Pricing|Pricing]] [[Pricing#Tiers|tiers]]")
	if sh := g.WhatIf([]Note{kept}, nil, nil); len(sh) != 0 {
		t.Fatalf("a faithful rewrite: %+v", sh)
	}
	wrong := note("S1", "acme/launch/Plan.md", "Plan", nil, "[[Mine]] [[Pricing#Tiers|tiers]]")
	if sh := g.WhatIf([]Note{wrong}, nil, nil); len(sh) != 1 || sh[0].From != "S1" || sh[0].Target != "Pricing" || sh[0].After.ID != "M1" {
		t.Fatalf("an unfaithful rewrite: %+v", sh)
	}
}

// Reserve sizes an empty graph's tables and leaves a filled one as it is:
// what was set before is still found, by name and by file.
func TestReserveKeepsAFilledGraph(t *testing.T) {
	g := New()
	g.Reserve(100)
	g.Set(note("P1", "acme/launch/Pricing.md", "Pricing", []string{"Tarifs"}, ""))
	g.Reserve(1000)
	if g.Len() != 1 {
		t.Fatalf("%d notes after a second Reserve, want 1", g.Len())
	}
	for _, target := range []string{"Pricing", "Tarifs", "acme/launch/Pricing"} {
		if r := g.Resolve(target); r.ID != "P1" {
			t.Errorf("%s: %+v", target, r)
		}
	}
}
