package vault

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/note"
)

// typedEdges lists a note's typed outgoing edges as "type → target id".
func typedEdges(t *testing.T, v *Vault, ref string) []string {
	t.Helper()
	n, err := v.GetNote(owner, ref, true, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range n.Links.Outgoing {
		if l.Typed {
			to := l.Target + " (" + l.Status + ")"
			if l.To != nil {
				to = l.To.ID
			}
			out = append(out, l.Type+" → "+to)
		}
	}
	sort.Strings(out)
	return out
}

// link writes each typed link as a link in a list property named after its
// type, as an Obsidian user writes typed relations; a second link of the
// same type joins the list, keeping how it was written (here one item a
// line); the same link again changes nothing.
func TestLinkWritesListProperties(t *testing.T) {
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{"acme/launch/Review.md": "---\ntags:\n  - review\nrelated:\n  - \"[[Pricing]]\" # the grid\nstatus: open\n---\n# Review\n"})
	out, err := v.LinkMany(owner, []LinkArgs{
		{From: "[[Review]]", ToTitle: "Launch plan", Type: "related"},
		{From: "[[Review]]", To: "[[Décision tarification]]", Type: "supersedes"},
		{From: "[[Review]]", ToTitle: "Pricing", Type: "related"},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(out.Results[0].Status, out.Results[1].Status, out.Results[2].Status); s != "createdcreatedunchanged" {
		t.Fatalf("statuses %s: %+v", s, out.Results)
	}
	got := readFile(t, filepath.Join(dir, "acme/launch/Review.md"))
	want := "tags:\n  - review\nrelated:\n  - \"[[Pricing]]\" # the grid\n  - \"[[Launch plan]]\"\nstatus: open\nsupersedes:\n  - \"[[Décision tarification]]\"\n---\n# Review\n"
	if !strings.HasSuffix(got, want) || !regexp.MustCompile(`^---\nid: [0-9A-Z]{26}\n`).MatchString(got) {
		t.Fatalf("got:\n%s\nwant it to end with:\n%s", got, want)
	}
	edges := typedEdges(t, v, "[[Review]]")
	if len(edges) != 3 || !strings.HasPrefix(edges[2], "supersedes → ") {
		t.Fatalf("edges %q", edges)
	}
	cleanAndSound(t, dir)
}

// A type that is a property with another meaning, or one the vault's
// Obsidian settings type otherwise, or a property of the note holding
// text that is not a link, is refused naming type, and nothing is written.
func TestLinkTypesMustBeLinkProperties(t *testing.T) {
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{
		".obsidian/types.json":  `{"types": {"due": "date", "see_also": "multitext"}}`,
		"acme/launch/Review.md": "---\nowner_team: infra\n---\n# Review\n",
	})
	head := gitOut(t, dir, "rev-parse", "HEAD")
	for _, c := range []struct{ typ, says string }{
		{"tags", "another meaning"}, {"created", "another meaning"}, {"conflicts", "another meaning"},
		{"links", "another meaning"}, {"Depends On", "lower-case word"}, {"due", ".obsidian/types.json"},
		{"owner_team", "holds text that is not a link"},
	} {
		_, err := v.Link(owner, LinkArgs{From: "[[Review]]", ToTitle: "Pricing", Type: c.typ})
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != "type" || !strings.Contains(err.Error(), c.says) {
			t.Errorf("type %q: %v", c.typ, err)
		}
	}
	unchanged(t, dir, head)
	if _, err := v.Link(owner, LinkArgs{From: "[[Review]]", ToTitle: "Pricing", Type: "see_also"}); err != nil {
		t.Fatal(err)
	}
	_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# New\n", Links: []LinkSpec{{Type: "aliases", ToTitle: "Pricing"}}})
	if err == nil || !strings.Contains(err.Error(), "argument links[0].type") {
		t.Fatalf("create_note: %v", err)
	}
}

// legacyNote holds typed links in the old links: list: two that move, one
// whose type has become a property with another meaning, and one with a
// key besides type and to, which stay.
const legacyNote = "---\n" +
	"id: 01KB2ZJ5N3V7M1YB4E8W0QXR6T\n" +
	"type: decision   # kept as written\n" +
	"tags: [pricing]\n" +
	"links:\n" +
	"  - {type: depends_on, to: \"[[Pricing#Plans|the grid]]\"}\n" +
	"  - {type: relates_to, to: Launch plan}\n" +
	"  - {type: status, to: \"[[Decision launch date]]\"}\n" +
	"  - {type: owned_by, to: \"[[Jordan Lee]]\", since: 2026}\n" +
	"created: \"2026-09-20\"\n" +
	"---\n# Old links\n\nBody.\n"

// A note with the legacy list reads the same typed edges as ever; the
// next write of it by cairn (here edit_note) moves the entries it can into
// properties, in the same commit, where the list was, and the edges stay
// exactly the same. An edit that changes nothing changes nothing.
func TestLegacyLinksReadAsBeforeAndMoveOnTheNextWrite(t *testing.T) {
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{"acme/launch/Old links.md": legacyNote})
	before := typedEdges(t, v, "[[Old links]]")
	if len(before) != 4 {
		t.Fatalf("legacy edges: %q", before)
	}
	n, _ := v.GetNote(owner, "[[Old links]]", false, "")
	w, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpFindReplace, Find: "Body.", Content: str("Body.")})
	if err != nil || !w.Unchanged {
		t.Fatalf("a no-op edit: %+v %v", w, err)
	}
	if got := readFile(t, filepath.Join(dir, "acme/launch/Old links.md")); got != legacyNote {
		t.Fatalf("a no-op edit rewrote the note:\n%s", got)
	}
	count := commitCount(t, dir)
	if _, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpAppend, Content: str("More.")}); err != nil {
		t.Fatal(err)
	}
	want := "type: decision   # kept as written\n" +
		"tags: [pricing]\n" +
		"depends_on: [\"[[Pricing#Plans|the grid]]\"]\n" +
		"relates_to: [\"[[Launch plan]]\"]\n" +
		"links:\n" +
		"  - {type: status, to: \"[[Decision launch date]]\"}\n" +
		"  - {type: owned_by, to: \"[[Jordan Lee]]\", since: 2026}\n" +
		"created: \"2026-09-20\"\n" +
		"---\n# Old links\n\nBody.\n\nMore.\n"
	if got := readFile(t, filepath.Join(dir, "acme/launch/Old links.md")); !strings.HasSuffix(got, want) {
		t.Fatalf("after the edit:\n%s\nwant the end:\n%s", got, want)
	}
	if n := commitCount(t, dir); n != fmt.Sprint(atoi(count)+1) {
		t.Fatalf("commits %s → %s: one expected", count, n)
	}
	if after := typedEdges(t, v, "[[Old links]]"); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("edges changed:\n%q\n%q", before, after)
	}
	cleanAndSound(t, dir)
}

// A note whose every legacy entry moves loses the list; a rename that
// rewrites its links is the write that moves them, and the rewritten link
// is in its property.
func TestRenameRewritesLinkPropertiesAndMovesLegacyLinks(t *testing.T) {
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{
		"acme/launch/Props.md": "---\nup: \"[[acme/launch/Pricing]]\"\nsee:\n- \"[[acme/launch/Pricing#Plans]]\"\n- \"[[Launch plan]]\"\n---\n# Props\n",
		"acme/launch/Legacy.md": "---\nlinks:\n  - {type: depends_on, to: \"[[acme/launch/Pricing]]\"}\n" +
			"  - {type: relates_to, to: \"[[Launch plan]]\"}\n---\n# Legacy\n",
	})
	before := resolvedLinks(v)
	if _, err := v.MoveNote(owner, "[[Pricing]]", "acme/launch/decisions", ""); err != nil {
		t.Fatal(err)
	}
	sameResolution(t, before, resolvedLinks(v), "after move_note")
	props := readFile(t, filepath.Join(dir, "acme/launch/Props.md"))
	if !strings.Contains(props, "up: \"[[acme/launch/decisions/Pricing]]\"\nsee:\n- \"[[acme/launch/decisions/Pricing#Plans]]\"\n- \"[[Launch plan]]\"\n---\n") {
		t.Fatalf("Props:\n%s", props)
	}
	legacy := readFile(t, filepath.Join(dir, "acme/launch/Legacy.md"))
	if !strings.Contains(legacy, "depends_on:\n  - \"[[acme/launch/decisions/Pricing]]\"\nrelates_to:\n  - \"[[Launch plan]]\"\n---\n") || strings.Contains(legacy, "links:") {
		t.Fatalf("Legacy:\n%s", legacy)
	}
	cleanAndSound(t, dir)
}

// New notes say when they were made as an Obsidian date-time, in UTC
// without a zone; search reads it, the old form with Z, and a date, on one
// clock: date filters keep their order across the three.
func TestCreatedIsADateTimeInUTC(t *testing.T) {
	v, dir := sampleVault(t)
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Fresh\n\nzebra words\n"})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\ncreated: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\n`).FindStringSubmatch(readFile(t, filepath.Join(dir, w.Path)))
	if m == nil {
		t.Fatalf("no date-time:\n%s", readFile(t, filepath.Join(dir, w.Path)))
	}
	at, _ := time.Parse(note.DateTimeLayout, m[1])
	if d := time.Since(at); d < -time.Minute || d > time.Hour {
		t.Fatalf("created %s is not now in UTC (%v off)", m[1], d)
	}
	byHand(t, v, dir, map[string]string{
		"acme/launch/Zebra old.md":  "---\ncreated: \"2026-01-10T10:00:00Z\"\n---\n# Zebra old\nzebra words\n",
		"acme/launch/Zebra new.md":  "---\ncreated: 2026-01-10T11:00:00\n---\n# Zebra new\nzebra words\n",
		"acme/launch/Zebra date.md": "---\ncreated: 2026-01-11\n---\n# Zebra date\nzebra words\n",
	})
	for _, c := range []struct{ after, before, want string }{
		{"2026-01-10T10:30:00Z", "2026-01-10T23:00:00Z", "Zebra new"},
		{"2026-01-10T09:00:00Z", "2026-01-10T10:30:00Z", "Zebra old"},
		{"2026-01-10T11:30:00", "2026-01-12", "Zebra date"},
	} {
		r, err := v.Search(context.Background(), owner, SearchArgs{Query: "zebra", After: c.after, Before: c.before})
		if err != nil {
			t.Fatal(err)
		}
		if got := resultPaths(r); len(got) != 1 || !strings.HasSuffix(got[0], c.want+".md") {
			t.Errorf("after %s before %s: %v, want %s", c.after, c.before, got, c.want)
		}
	}
}

// A thought's occurred_at is written as an Obsidian date or a UTC
// date-time, whatever ISO 8601 form it was given in.
func TestOccurredAtIsAnObsidianDate(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-29":                "2026-11-29",
		"2026-11-29T10:00:00+02:00": "2026-11-29T08:00:00",
		"2026-11-29T10:00:00Z":      "2026-11-29T10:00:00",
		"2026-11-29 10:00":          "2026-11-29T10:00:00",
	} {
		tm, ok := ParseDate(in)
		if got := note.PropertyDate(in, tm); !ok || got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// Typed links are read from every property holding a link or a list of
// them, type = the property's name, in the order written; the legacy list
// too. Text around a link, two links in one value, Obsidian's own lists
// (aliases, tags, cssclasses) and nested maps are not typed links.
func TestTypedLinksReadFromProperties(t *testing.T) {
	n := note.Parse("x.md", []byte("---\n"+
		"up: \"[[Home]]\"\n"+
		"author: \"[[Sam Okafor|Sam]]\"\n"+
		"who: [\"[[people/Priya]]\", Jonas]\n"+
		"related:\n  - \"[[Pricing#Plans]]\"\n  - not a link\n  - \"[[A]] and [[B]]\"\n"+
		"conflicts: [\"[[Note (conflict 2026-12-01 101500)]]\"]\n"+
		"aliases: [\"[[Alias]]\"]\ntags: [\"[[t]]\"]\ncssclasses: [\"[[c]]\"]\n"+
		"note: \"see [[Home]]\"\nnested: {to: \"[[Deep]]\"}\nheading: \"[[#access.Local]]\"\n"+
		"links:\n  - {type: depends_on, to: \"[[Old]]\"}\n  - \"[[Plain]]\"\n"+
		"---\n# X\nBody [[Home]]\n"))
	var got []string
	for _, l := range n.TypedLinks() {
		got = append(got, l.Type+":"+l.Target+"#"+l.Fragment)
	}
	want := "up:Home# author:Sam Okafor# who:people/Priya# related:Pricing#Plans conflicts:Note (conflict 2026-12-01 101500)# links:Old# links:Plain#"
	want = strings.Replace(want, "links:Old#", "depends_on:Old#", 1)
	if strings.Join(got, " ") != want {
		t.Fatalf("typed links\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if who := strings.Join(whoOf(n), ","); who != "Sam Okafor,people/Priya,Jonas" {
		t.Fatalf("who: %s", who)
	}
	if l := n.Links(); len(l) != 8 || l[0].Type != "links_to" || l[0].Offset < 0 || l[1].Offset != -1 {
		t.Fatalf("links: %+v", l)
	}
}
