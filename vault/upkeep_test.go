package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

// byHand writes files as a person would and commits them with git, then
// lets the vault notice the new head.
func byHand(t *testing.T, v *Vault, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "by hand")
	if err := v.syncHead(); err != nil {
		t.Fatal(err)
	}
}

// trailers are the values of one trailer key in the last commit.
func trailers(t *testing.T, dir, key string) string {
	return gitOut(t, dir, "log", "-1", "--format=%(trailers:key="+key+",valueonly)")
}

// Sam writes acme/platform and reads nothing else. His new "Pricing" would
// make every [[Pricing]] of acme and of people's private memory ambiguous:
// he is told nothing of them, and each keeps naming acme/launch/Pricing.
func TestCreateKeepsLinksTheCallerCannotSee(t *testing.T) {
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{"acme/handbook/Price forms.md": "---\nlinks:\n  - {type: relates_to, to: Pricing}\n---\n" +
		"# Price forms\n\n[[Pricing]], [[pricing]], [[Pricing#Plans]], [[Pricing|the grid]], ![[Pricing]], `[[Pricing]]`\n\n" +
		"| plan | see |\n|---|---|\n| team | [[Pricing]] |\n"})
	before := resolvedLinks(v)
	w, err := v.CreateNote(sam, CreateArgs{Project: "acme/platform", Body: "# Pricing\n\nOur own price list.\n"})
	if err != nil {
		t.Fatalf("sam's create: %v", err)
	}
	out, _ := json.Marshal(w)
	if len(w.LinksRewrittenIn) != 0 || strings.Contains(string(out), "acme/launch") || strings.Contains(string(out), "people/") {
		t.Fatalf("sam is told about notes he cannot read: %s", out)
	}
	sameResolution(t, before, resolvedLinks(v), "after sam's create")
	got := readFile(t, filepath.Join(dir, "acme/handbook/Price forms.md"))
	for _, want := range []string{
		"---\nrelates_to:\n  - \"[[acme/launch/Pricing|Pricing]]\"\n---\n", // moved out of links: by the write
		"[[acme/launch/Pricing|Pricing]], [[acme/launch/Pricing|pricing]], [[acme/launch/Pricing#Plans|Pricing > Plans]], " +
			"[[acme/launch/Pricing|the grid]], ![[acme/launch/Pricing]], `[[Pricing]]`",
		`| team | [[acme/launch/Pricing\|Pricing]] |`,
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("Price forms lacks %q:\n%s", want, got)
		}
	}
	kept := trailers(t, dir, "Cairn-Link-Upkeep")
	for _, p := range []string{"people/camille/memory/Mémoire - messages de lancement.md", "people/owner/memory/Memory - launch pricing context.md", "Welcome.md", "acme/handbook/Price forms.md"} {
		if !strings.Contains(kept, p) {
			t.Fatalf("the commit does not name %s among the notes kept:\n%s", p, kept)
		}
	}
	if left := trailers(t, dir, "Cairn-Link-Left"); left != "" {
		t.Fatalf("links left: %s", left)
	}
	// Each principal still reads [[Pricing]] as before in its own notes.
	n, err := v.GetNote(camille, "people/camille/memory/Mémoire - messages de lancement.md", true, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range n.Links.Outgoing {
		if strings.HasPrefix(l.Target, "acme/launch/Pricing") && (l.To == nil || l.To.Path != "acme/launch/Pricing.md") {
			t.Fatalf("camille's link: %+v", l)
		}
	}
	cleanAndSound(t, dir)
}

// A refusal counts and shows only links in notes the caller may change:
// camille writes acme/launch and her own memory, reads acme, and nothing
// else.
func TestRefusalsCountOnlyLinksTheCallerCanChange(t *testing.T) {
	v, dir := sampleVault(t)
	// Pricing moves one folder down: a new acme/launch/Pricing.md, at a
	// shorter path, would then take over every [[Pricing]] (as Obsidian
	// resolves them).
	if _, err := v.MoveNote(owner, "[[Pricing]]", "acme/launch/decisions", ""); err != nil {
		t.Fatal(err)
	}
	head := gitOut(t, dir, "rev-parse", "HEAD")
	_, err := v.CreateNote(camille, CreateArgs{Project: "acme/launch", Body: "# Pricing\n"})
	var ae *ArgError
	// Launch plan, Go-no-go, the three specs (Billing integration spec once
	// for its body and typed links alike), the design review's
	// [[Pricing|Pricing model]] and her memory; not the two decisions,
	// whose folder now holds Pricing (their own folder first).
	if !errors.As(err, &ae) || ae.Arg != "body" || !strings.Contains(err.Error(), "would change what 7 link(s)") {
		t.Fatalf("camille's create: %v", err)
	}
	for _, hidden := range []string{"Welcome.md", "people/owner", "Roadmap", "handbook"} {
		if strings.Contains(err.Error(), hidden) {
			t.Fatalf("the refusal names %s: %v", hidden, err)
		}
	}
	// The owner, who may change all of them but not camille's memory, is told of more.
	_, err = v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Pricing\n"})
	if !errors.As(err, &ae) || ae.Arg != "body" || !strings.Contains(err.Error(), "would change what 13 link(s)") {
		t.Fatalf("owner's create: %v", err)
	}
	unchanged(t, dir, head)
}

// A link in a note the caller may read but not change does not block its
// move: it is kept, and the caller is told (it can read that note).
func TestReadOnlyLinksAreKeptNotBlocking(t *testing.T) {
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{"acme/handbook/Price list.md": "# Price list\n\nSee [[acme/launch/Pricing]] and [[launch/Pricing#Plans|plans]].\n"})
	before := resolvedLinks(v)
	m, err := v.MoveNote(camille, "[[Pricing]]", "acme/launch/decisions", "")
	if err != nil {
		t.Fatalf("camille's move: %v", err)
	}
	if !strings.Contains(strings.Join(m.Rewritten, ","), "acme/handbook/Price list.md") {
		t.Fatalf("rewritten: %v", m.Rewritten)
	}
	sameResolution(t, before, resolvedLinks(v), "after camille's move")
	// Each link keeps its style: the full path stays full, the trailing
	// part stays a trailing part.
	if got := readFile(t, filepath.Join(dir, "acme/handbook/Price list.md")); !strings.Contains(got,
		"See [[acme/launch/decisions/Pricing]] and [[decisions/Pricing#Plans|plans]].") {
		t.Fatalf("Price list:\n%s", got)
	}
	cleanAndSound(t, dir)
}

// Camille's private memory links to sam's note by path. She may read
// acme/platform, so sam's move and rename rewrite her link (sam is told
// nothing), and it still names his note.
func TestOwnMoveIsNotBlockedByAnotherPrincipalsLink(t *testing.T) {
	v, dir := sampleVault(t)
	mem := "people/camille/memory/Rate notes.md"
	byHand(t, v, dir, map[string]string{
		AccessFile: "owner: owner\nmembers:\n  camille:\n    acme: read\n    acme/launch: write\n    acme/platform: read\n  sam:\n    acme/platform: write\n",
		mem:        "# Rate notes\n\n[[acme/infra/specs/Rate limiting spec]] and [[specs/Rate limiting spec#Limits|limits]]\n",
	})
	before := resolvedLinks(v)
	m, err := v.MoveNote(sam, "[[Rate limiting spec]]", "acme/infra/runbooks", "")
	if err != nil {
		t.Fatalf("sam's move: %v", err)
	}
	for _, p := range m.Rewritten {
		if !strings.HasPrefix(p, "acme/infra/") {
			t.Fatalf("sam is told about %s", p)
		}
	}
	sameResolution(t, before, resolvedLinks(v), "after sam's move")
	if got := readFile(t, filepath.Join(dir, mem)); !strings.Contains(got,
		"[[acme/infra/runbooks/Rate limiting spec]] and [[runbooks/Rate limiting spec#Limits|limits]]") {
		t.Fatalf("camille's note:\n%s", got)
	}
	if kept := trailers(t, dir, "Cairn-Link-Upkeep"); !strings.Contains(kept, mem) || !strings.Contains(kept, "acme/launch/specs/Billing integration spec.md") {
		t.Fatalf("kept: %s", kept)
	}
	if _, err := v.RenameNote(sam, m.ID, "Webhook rate limiting", "", false); err != nil {
		t.Fatalf("sam's rename: %v", err)
	}
	sameResolution(t, before, resolvedLinks(v), "after sam's rename")
	if got := readFile(t, filepath.Join(dir, mem)); !strings.Contains(got, "[[acme/infra/runbooks/Webhook rate limiting]]") {
		t.Fatalf("camille's note after the rename:\n%s", got)
	}
	cleanAndSound(t, dir)
}

// Without read access to acme/platform, camille's link never named sam's
// note as she sees it; rewriting it would tell her where it went. It is left
// as written, the move goes through, and the commit says so.
func TestLinksWhoseRewriteWouldRevealANoteAreLeft(t *testing.T) {
	v, dir := sampleVault(t)
	mem := "people/camille/memory/Rate notes.md"
	text := "# Rate notes\n\n[[acme/infra/specs/Rate limiting spec]]\n"
	byHand(t, v, dir, map[string]string{mem: text})
	spec := readFile(t, filepath.Join(dir, "acme/launch/specs/Billing integration spec.md"))
	m, err := v.MoveNote(sam, "[[Rate limiting spec]]", "acme/infra/runbooks", "")
	if err != nil {
		t.Fatalf("sam's move: %v", err)
	}
	out, _ := json.Marshal(m)
	if strings.Contains(string(out), "people/") || strings.Contains(string(out), "acme/launch") {
		t.Fatalf("sam is told about notes he cannot read: %s", out)
	}
	if readFile(t, filepath.Join(dir, mem)) != text || readFile(t, filepath.Join(dir, "acme/launch/specs/Billing integration spec.md")) != spec {
		t.Fatal("a link whose rewrite would reveal a note was rewritten")
	}
	if left := trailers(t, dir, "Cairn-Link-Left"); !strings.Contains(left, mem) || !strings.Contains(left, "Billing integration spec.md") {
		t.Fatalf("left: %s", left)
	}
	n, err := v.GetNote(camille, mem, true, "")
	if err != nil || n.Links.Outgoing[0].Status != "unresolved" {
		t.Fatalf("camille's view of her link: %+v %v", n, err)
	}
	cleanAndSound(t, dir)
}

// smallVault: projects s, s/a and s/b; camille writes s/a and reads s, dana
// reads s only, erin writes s/b only. s/Src.md links [[Target]], which is
// s/a/sub/Target.md: a Target.md at a shorter path (s/a/Target.md,
// s/b/Target.md) would take the link over, as Obsidian resolves it.
func smallVault(t *testing.T, access string) (*Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "v")
	if _, err := Init(dir, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	byHand(t, v, dir, map[string]string{
		AccessFile:             access,
		"s/" + ProjectMarker:   "handle: s\n",
		"s/a/" + ProjectMarker: "handle: s/a\n",
		"s/b/" + ProjectMarker: "handle: s/b\n",
		"s/a/sub/Target.md":    "# Target\n",
		"s/Src.md":             "# Src\n\n[[Target]]\n",
	})
	return v, dir
}

var (
	camilleS = "owner: owner\nmembers:\n  camille:\n    s: read\n    s/a: write\n"
	dana     = "  dana:\n    s: read\n"
	erin     = "  erin:\n    s/b: write\n"
)

func TestWhenARewriteWouldRevealANote(t *testing.T) {
	ca := access.Caller{Principal: "camille", Ceiling: access.RoleWrite, Tool: "test"}
	er := access.Caller{Principal: "erin", Ceiling: access.RoleWrite, Tool: "test"}
	// Dana reads s/Src.md but not s/a: its [[Target]] cannot be rewritten to
	// s/a/sub/Target. Camille sees that link shift (she reads both ends), so
	// her create is refused: nothing she does not know is said.
	v, dir := smallVault(t, camilleS+dana+erin)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	_, err := v.CreateNote(ca, CreateArgs{Project: "s/a", Body: "# Target\n"})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "body" || !strings.Contains(err.Error(), "[[Target]] in s/Src.md would point to another note") {
		t.Fatalf("camille's create: %v", err)
	}
	unchanged(t, dir, head)
	// Erin reads neither end: her create goes through, the link is left.
	// (s/b/Target.md is shorter than s/a/sub/Target.md: it takes the link.)
	if _, err := v.CreateNote(er, CreateArgs{Project: "s/b", Body: "# Target\n"}); err != nil {
		t.Fatalf("erin's create: %v", err)
	}
	if readFile(t, filepath.Join(dir, "s/Src.md")) != "# Src\n\n[[Target]]\n" || trailers(t, dir, "Cairn-Link-Left") != "s/Src.md" {
		t.Fatalf("Src.md was rewritten, or the commit does not say it was left")
	}
	// Without dana, everyone who reads s/Src.md reads s/a/sub/Target.md: the
	// link is kept, and camille, who can read it, is told.
	v, dir = smallVault(t, camilleS+erin)
	w, err := v.CreateNote(ca, CreateArgs{Project: "s/a", Body: "# Target\n"})
	if err != nil || strings.Join(w.LinksRewrittenIn, ",") != "s/Src.md" {
		t.Fatalf("camille's create without dana: %+v %v", w, err)
	}
	if got := readFile(t, filepath.Join(dir, "s/Src.md")); got != "# Src\n\n[[s/a/sub/Target|Target]]\n" {
		t.Fatalf("Src.md: %q", got)
	}
	cleanAndSound(t, dir)
}

// A batch: two new notes taking the same link over are one rewrite, told to
// each note that took it over.
func TestCreateNotesKeepsLinksOnceForTheBatch(t *testing.T) {
	v, dir := smallVault(t, camilleS+erin)
	ca := access.Caller{Principal: "camille", Ceiling: access.RoleWrite, Tool: "test"}
	res, err := v.CreateNotes(ca, "s/a", []CreateArgs{{Body: "# Target\n"}, {Body: "# Other\n"}})
	if err != nil || res[0].Status != "ok" || res[1].Status != "ok" {
		t.Fatalf("batch: %+v %v", res, err)
	}
	if strings.Join(res[0].LinksRewrittenIn, ",") != "s/Src.md" || len(res[1].LinksRewrittenIn) != 0 {
		t.Fatalf("batch upkeep: %+v", res)
	}
	if got := readFile(t, filepath.Join(dir, "s/Src.md")); got != "# Src\n\n[[s/a/sub/Target|Target]]\n" {
		t.Fatalf("Src.md: %q", got)
	}
	cleanAndSound(t, dir)
}

// A new private memory note brings a title nobody chose: links it would
// take over are kept, never refused.
func TestRememberKeepsLinksItsNewNoteWouldTakeOver(t *testing.T) {
	v, dir := sampleVault(t)
	own := "people/owner/memory/Memory about acme platform.md"
	byHand(t, v, dir, map[string]string{
		own:                             "# Memory about acme/platform\n\nOn-call is weekly.\n",
		"people/owner/memory/Habits.md": "# Habits\n\nSee [[Memory about acme/platform]].\n",
	})
	before := resolvedLinks(v)
	if _, err := v.RememberAboutProject(sam, "acme/platform", "ops", "Deploys happen on Tuesdays"); err != nil {
		t.Fatal(err)
	}
	sameResolution(t, before, resolvedLinks(v), "after sam's first memory about acme/platform")
	// The link only cairn resolved (by title) now names its note by file
	// name, which Obsidian resolves from Habits' folder first.
	if got := readFile(t, filepath.Join(dir, "people/owner/memory/Habits.md")); !strings.Contains(got,
		"[[Memory about acme platform|Memory about acme/platform]]") {
		t.Fatalf("Habits:\n%s", got)
	}
	cleanAndSound(t, dir)
}

// BenchmarkMoveKeepingOthersLinks: bob moves a note that 500 notes link
// to by path. "upkeep": they are in alice's private memory (bob can
// neither read nor write them), so the guard rewrites them; "own": they
// are in bob's project, so the move rewrites them as his own edit. Either
// way one commit of 501 files; the difference is the guard's cost.
func BenchmarkMoveKeepingOthersLinks(b *testing.B) {
	for _, where := range []string{"upkeep", "own"} {
		b.Run(where, func(b *testing.B) { benchMoveWithLinks(b, where == "upkeep") })
	}
}

func benchMoveWithLinks(b *testing.B, private bool) {
	dir := filepath.Join(b.TempDir(), "v")
	if _, err := Init(dir, InitOptions{}); err != nil {
		b.Fatal(err)
	}
	write := func(p, s string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(s), 0o644)
	}
	write(AccessFile, "owner: owner\nmembers:\n  bob:\n    s: write\n  alice:\n    s: read\n")
	write("s/"+ProjectMarker, "handle: s\n")
	write("s/hub/Hub.md", "# Hub\n")
	os.MkdirAll(filepath.Join(dir, "s/other"), 0o755)
	folder := "s/notes"
	if private {
		folder = "people/alice/memory"
	}
	for i := 0; i < 500; i++ {
		write(fmt.Sprintf("%s/m%02d/Memory %03d.md", folder, i%20, i), fmt.Sprintf("# Memory %03d\n\nSee [[s/hub/Hub#Part|the hub]].\n", i))
	}
	gitOut(b, dir, "add", "-A")
	gitOut(b, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "x")
	v, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	bob := access.Caller{Principal: "bob", Ceiling: access.RoleWrite, Tool: "bench"}
	n, err := v.GetNote(bob, "[[Hub]]", false, "")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		to := []string{"s/other", "s/hub"}[i%2]
		m, err := v.MoveNote(bob, n.ID, to, "")
		if err != nil {
			b.Fatal(err)
		}
		if told := len(m.Rewritten); private && told != 0 || !private && told != 500 {
			b.Fatalf("bob is told of %d notes", told)
		}
	}
}
