package doctor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// legacyNote holds typed links in the old links: list: two that move, one
// whose type has become a property with another meaning, and one with a
// key besides type and to, which stay (as in package vault's tests).
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

// obsidianTestVault is a vault made from the link test vault: every link
// form, notes with one file name in several folders, attachments.
func obsidianTestVault(t *testing.T) (*vault.Vault, string) {
	t.Helper()
	return openFrom(t, "../../wikilinks/testdata/obsidian")
}

// newLinkVault is the sample vault with one file name in four folders
// (the root, outside the space links are written in, among them), a note whose title is not its file name, and the
// notes links are written from.
func newLinkVault(t *testing.T) (*vault.Vault, string) {
	t.Helper()
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{
		"Spec.md":                 "# Spec\n",
		"acme/Spec.md":            "# Spec\n",
		"acme/launch/Spec.md":     "# Spec\n",
		"acme/infra/Spec.md":      "# Spec\n",
		"acme/launch/Odd name.md": "# Shown title\n",
		"acme/launch/From A.md":   "# From A\n",
		"acme/infra/From B.md":    "# From B\n",
	})
	return v, dir
}

// setAppJSON writes the vault's Obsidian settings file, committed as a
// person's Obsidian settings are.
func setAppJSON(t *testing.T, v *vault.Vault, dir, content string) {
	t.Helper()
	byHand(t, v, dir, map[string]string{vault.ObsidianAppFile: content})
}

// cairn doctor says which notes keep typed links in the legacy list, and
// doctor --fix moves them all in one commit, the edges unchanged; an
// entry that cannot move is not reported again.
func TestDoctorFixMovesLegacyLinks(t *testing.T) {
	v, dir := sampleVault(t)
	byHand(t, v, dir, map[string]string{
		"acme/launch/Old links.md": legacyNote,
		"acme/launch/Old too.md":   "---\nlinks:\n  - {type: relates_to, to: \"[[Pricing]]\"}\n---\n# Old too\n",
	})
	before := resolvedLinks(v)
	finding := func() string {
		for _, f := range Check(v) {
			if f.Check == "typed links" {
				return f.Message
			}
		}
		return ""
	}
	if f := finding(); !strings.HasPrefix(f, "2 note(s) keep typed links in the old links: list") {
		t.Fatalf("finding: %q", f)
	}
	count := atoi(commitCount(t, dir))
	did, err := Repair(v)
	if err != nil || !strings.Contains(strings.Join(did, "\n"), "moved the typed links of 2 note(s)") {
		t.Fatalf("%v %q", err, did)
	}
	if n := atoi(commitCount(t, dir)); n != count+1 {
		t.Fatalf("%d commits, want one", n-count)
	}
	if got := readFile(t, filepath.Join(dir, "acme/launch/Old too.md")); got != "---\nrelates_to:\n  - \"[[Pricing]]\"\n---\n# Old too\n" {
		t.Fatalf("%q", got)
	}
	sameResolution(t, before, resolvedLinks(v), "after doctor --fix")
	if f := finding(); f != "" {
		t.Fatalf("still reported: %q", f)
	}
	cleanAndSound(t, dir)
}

// cairn doctor names the links only cairn resolves, where they are
// written and what to write instead, and the tie Obsidian breaks by the
// order it loaded the files; attachments that exist are not forward
// references.
func TestDoctorNamesLinksOnlyCairnResolves(t *testing.T) {
	v, _ := obsidianTestVault(t)
	var msgs []string
	for _, f := range Check(v) {
		msgs = append(msgs, f.Level+" "+f.Check+": "+f.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"warning obsidian links: [[Launch memo]] in Home.md line 22 resolves only in cairn (by title, to notes/Odd file.md); Obsidian shows it unresolved: write [[Odd file]] instead",
		"warning obsidian links: [[Start]] in Home.md line 22 resolves only in cairn (by alias, to Home.md); Obsidian shows it unresolved: write [[Home]] instead",
		"warning obsidian links: [[ecole]] in Home.md line 17 resolves only in cairn (by folded, to notes/École.md)",
		"warning links: [[Tie]] in Home.md line 15 is ambiguous: Obsidian opens whichever of x/Tie.md, y/Tie.md it loaded first; write [[x/Tie]] instead",
		"ok links: 4 links resolve to no note yet (forward references), 1 are ambiguous, 3 resolve only in cairn (not in Obsidian)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("doctor lacks %q:\n%s", want, all)
		}
	}
}

// Obsidian settings cairn cannot read (not JSON, a key of the wrong kind)
// never stop a write: links are written in Obsidian's defaults, and cairn
// doctor says why. Typed links are wikilinks even when the vault writes
// Markdown links; doctor's suggestion keeps a Markdown link one.
func TestObsidianSettingsCairnCannotReadAreDefaults(t *testing.T) {
	for _, app := range []string{`{"newLinkFormat": "absolute"`, `{"newLinkFormat": 3}`, `{"newLinkFormat": "nearest"}`, `[]`} {
		v, dir := newLinkVault(t)
		setAppJSON(t, v, dir, app)
		if _, err := v.Link(owner, vault.LinkArgs{From: "acme/infra/From B.md", To: "acme/launch/Odd name.md", Type: "related"}); err != nil {
			t.Fatalf("%s: %v", app, err)
		}
		if got := readFile(t, filepath.Join(dir, "acme/infra/From B.md")); !strings.Contains(got, `"[[Odd name]]"`) {
			t.Fatalf("%s: not the default format:\n%s", app, got)
		}
		if !doctorSays(v, "warning obsidian settings: "+vault.ObsidianAppFile) {
			t.Errorf("%s: doctor does not say the settings are unreadable", app)
		}
		cleanAndSound(t, dir)
	}
	v, dir := newLinkVault(t)
	setAppJSON(t, v, dir, `{"newLinkFormat": "relative", "useMarkdownLinks": true}`)
	byHand(t, v, dir, map[string]string{"acme/infra/From B.md": "# From B\n\nSee [the odd one](Shown%20title).\n"})
	if _, err := v.Link(owner, vault.LinkArgs{From: "acme/infra/From B.md", To: "acme/launch/Odd name.md", Type: "related"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "acme/infra/From B.md")); !strings.Contains(got, `"[[../launch/Odd name]]"`) {
		t.Fatalf("a typed link is a wikilink:\n%s", got)
	}
	for _, want := range []string{
		"ok obsidian settings: cairn writes new links as the vault's Obsidian does: relative path, Markdown links in bodies, wikilinks in properties",
		"[the odd one](Shown%20title) in acme/infra/From B.md line 7 resolves only in cairn (by title, to acme/launch/Odd name.md); Obsidian shows it unresolved: write [the odd one](../launch/Odd%20name.md) instead",
	} {
		if !doctorSays(v, want) {
			t.Errorf("doctor lacks %q:\n%v", want, Check(v))
		}
	}
}

// doctorSays: one of cairn doctor's lines ("level check: message")
// contains s.
func doctorSays(v *vault.Vault, s string) bool {
	for _, f := range Check(v) {
		if strings.Contains(f.Level+" "+f.Check+": "+f.Message, s) {
			return true
		}
	}
	return false
}
