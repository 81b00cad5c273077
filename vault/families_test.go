package vault_test

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/vaulttest"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/hindsight"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/vault/recall"
	"github.com/cairn-dev/cairn/vault/treaisure"
	"gopkg.in/yaml.v3"
)

// Where the kernel and the memory families meet: tests of the vault as a
// whole that write facts (vault/hindsight) and thoughts (vault/treaisure)
// beside notes. They live in package vault_test, since the families
// import vault; what they need of vault's insides, export_test.go gives
// them.

var (
	owner   = vaulttest.Owner
	camille = vaulttest.Camille
	sam     = vaulttest.Sam
)

func sampleVault(t testing.TB) (*vault.Vault, string) { return vaulttest.Sample(t) }

// A search made during the first build, before a single note is indexed
// (a fresh clone's first search), finds the notes holding its words by
// reading them, says the answer is partial, and never shows a note the
// caller may not read. So do recall, treaisure_search_memory and
// hindsight_search, which search the same way.
func TestSearchDuringFirstBuildReadsTheNotesNotIndexed(t *testing.T) {
	v, dir := sampleVault(t)
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
	seen, err := v.CreateNote(owner, vault.CreateArgs{Project: "acme/platform", Body: "# Moorland survey\n\nThe quillwort beds by the reservoir are thriving.\n"})
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := v.CreateNote(owner, vault.CreateArgs{Project: "acme/launch", Body: "# Launch flora\n\nQuillwort samples go in the launch kit.\n"})
	if err != nil {
		t.Fatal(err)
	}
	samThought, err := treaisure.Of(v).Capture(sam, treaisure.CaptureArgs{Text: "I found quillwort growing in the pond.", Space: "personal", Confirmed: true})
	if err != nil || samThought.Path == "" {
		t.Fatalf("capture: %+v, %v", samThought, err)
	}
	if c, err := treaisure.Of(v).Capture(camille, treaisure.CaptureArgs{Text: "Quillwort is my favourite fern ally.", Space: "personal", Confirmed: true}); err != nil || c.Path == "" {
		t.Fatalf("capture: %+v, %v", c, err)
	}
	if err := hindsight.Of(v).Grant(human, "sam", "b1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := hindsight.Of(v).Put(owner, "b1", "Quillwort grows under water.", "botany", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := hindsight.Of(v).Put(owner, "b2", "Quillwort spores are tiny.", "botany", ""); err != nil {
		t.Fatal(err)
	}
	v.Close()
	if err := os.RemoveAll(vault.IndexDir(v)); err != nil { // a fresh clone's first build
		t.Fatal(err)
	}
	v2, release := vault.HoldFirstBuild(t, dir)
	if building, done, indexed := vault.FirstBuildState(v2); !building || done != 0 || indexed != 0 {
		t.Fatal("the build is not held before its first note")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a search that waited for the build fails
	defer cancel()

	check := func(when string, partial bool) {
		t.Helper()
		r, err := v2.Search(ctx, sam, vault.SearchArgs{Query: "quillwort"})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		got := vault.ResultPaths(r)
		if !slices.Contains(got, seen.Path) || slices.Contains(got, hidden.Path) {
			t.Errorf("%s: sam's search finds %v: want %s, never %s", when, got, seen.Path, hidden.Path)
		}
		for _, p := range got {
			if vault.RoleAt(v2, sam, p) < access.RoleRead {
				t.Errorf("%s: sam is shown %s", when, p)
			}
		}
		if partial != (r.IndexPending > 0) || partial != strings.Contains(r.Notice, "still being built") {
			t.Errorf("%s: indexPending %d, notice %q", when, r.IndexPending, r.Notice)
		}
		if r = vault.SearchT(t, v2, owner, vault.SearchArgs{Query: "quillwort", Mode: "lexical"}); !slices.Contains(vault.ResultPaths(r), hidden.Path) {
			t.Errorf("%s: the owner, who reads every project, does not find %s: %v", when, hidden.Path, vault.ResultPaths(r))
		}
		rec, err := recall.Recall(ctx, v2, sam, "quillwort", "", 2000)
		if err != nil {
			t.Fatalf("%s: recall: %v", when, err)
		}
		var recalled []string
		for _, it := range rec.Items {
			recalled = append(recalled, it.Path)
		}
		if !slices.Contains(recalled, seen.Path) || slices.Contains(recalled, hidden.Path) || !strings.Contains(rec.Context, "quillwort") {
			t.Errorf("%s: sam recalls %v", when, recalled)
		}
		d, err := treaisure.Of(v2).Search(ctx, sam, "quillwort", "personal", 0)
		if err != nil || len(d.Items) != 1 || d.Items[0].Path != samThought.Path || d.Items[0].Level != treaisure.LevelDirect {
			t.Errorf("%s: sam's memory: %+v, %v", when, d, err)
		}
		facts, err := hindsight.Of(v2).Search(ctx, sam, "b1", "quillwort", 0)
		if err != nil || len(facts) != 1 || facts[0].Text != "Quillwort grows under water." {
			t.Errorf("%s: bank b1: %+v, %v", when, facts, err)
		}
		if _, err := hindsight.Of(v2).Search(ctx, sam, "b2", "quillwort", 0); !errors.Is(err, hindsight.ErrBankNotFound) {
			t.Errorf("%s: sam reaches bank b2: %v", when, err)
		}
	}
	check("before any note is indexed", true)
	// A note written meanwhile waits for the build's end to be indexed:
	// it is read too.
	late, err := v2.CreateNote(owner, vault.CreateArgs{Project: "acme/platform", Body: "# Pond survey\n\nBladderwort floats in the pond.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := v2.Search(ctx, sam, vault.SearchArgs{Query: "bladderwort", Mode: "lexical"}); err != nil || len(r.Results) != 1 || r.Results[0].Path != late.Path {
		t.Errorf("a note written during the build: %+v, %v", r, err)
	}
	if building, _, indexed := vault.FirstBuildState(v2); !building || indexed != 0 {
		t.Fatal("the searches were not all made before the first note was indexed")
	}
	release()
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	check("once indexed", false)
}

// Thoughts and facts are named after their first words, which are the
// user's own and never refused: a name Windows would take for a device,
// or one of only invisible characters, falls back to "note".
func TestFilesNamedAfterFirstWordsAreSafe(t *testing.T) {
	v, dir := sampleVault(t)
	for _, text := range []string{"con.txt is where I keep my lists", "AUX cable for the car", "\u202e\u200b ...", "Invoice \u202efdp.exe arrived"} {
		c, err := treaisure.Of(v).Capture(owner, treaisure.CaptureArgs{Text: text, Space: "personal", Confirmed: true})
		if err != nil || c.Status != treaisure.CaptureCreated {
			t.Fatalf("%q: %v %+v", text, err, c)
		}
		name := path.Base(c.Path)
		if err := vault.SafeNewName(name); err != nil || strings.ContainsRune(name, '\u202e') {
			t.Fatalf("%q made the file %q: %v", text, name, err)
		}
		w, err := hindsight.Of(v).Put(owner, "u1", text, "misc", "")
		if err != nil {
			t.Fatalf("fact %q: %v", text, err)
		}
		if err := vault.SafeNewName(path.Base(w.Path)); err != nil {
			t.Fatalf("fact %q made the file %q: %v", text, path.Base(w.Path), err)
		}
	}
	vaulttest.CleanAndSound(t, dir)
}

// obsidianType is the Obsidian property type a frontmatter value has
// ("" for an empty value, which fits any), or what makes it none.
func obsidianType(v *yaml.Node) string {
	switch v.Kind {
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return "a list of more than text"
			}
		}
		return "list"
	case yaml.MappingNode:
		return "a map"
	}
	switch v.ShortTag() {
	case "!!null":
		return ""
	case "!!bool":
		return "checkbox"
	case "!!int", "!!float":
		return "number"
	}
	switch {
	case regexp.MustCompile(`^\d{4}-\d\d-\d\d$`).MatchString(v.Value):
		return "date"
	case regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`).MatchString(v.Value):
		return "datetime"
	}
	return "text"
}

// vaultPropertyTypes walks every note of a vault and says, per property
// name, which Obsidian types its values have.
func vaultPropertyTypes(t *testing.T, dir string) map[string]map[string][]string {
	t.Helper()
	types := map[string]map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || (d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir) {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		fm := note.Parse(p, []byte(vaulttest.ReadFile(t, p))).FrontmatterNode()
		if fm == nil {
			return nil
		}
		for i := 0; i+1 < len(fm.Content); i += 2 {
			k, typ := fm.Content[i].Value, obsidianType(fm.Content[i+1])
			if typ == "" {
				continue
			}
			if types[k] == nil {
				types[k] = map[string][]string{}
			}
			rel, _ := filepath.Rel(dir, p)
			types[k][typ] = append(types[k][typ], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return types
}

// Every property of the sample vault, and every one cairn's writes add to
// it (a note with links, typed links, a fact and its follow-up, a thought,
// remembered observations, a rename), is an Obsidian property type, and
// one type per name across the vault, as Obsidian types properties.
func TestEveryPropertyHasOneObsidianTypeVaultWide(t *testing.T) {
	v, dir := sampleVault(t)
	if _, err := v.CreateNote(owner, vault.CreateArgs{Project: "acme/launch", Body: "# Typed\n", Type: "decision", Tags: []string{"x"},
		Links: []vault.LinkSpec{{Type: "supersedes", ToTitle: "Pricing"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.LinkMany(owner, []vault.LinkArgs{{From: "[[Launch plan]]", ToTitle: "Typed", Type: "related"}, {From: "[[Pricing]]", ToTitle: "Typed", Type: "depends_on"}}, ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"User met Sam on 8 May, 2023", "User likes tea"} {
		if _, err := hindsight.Of(v).Put(owner, "b1", f, "chat", "said in chat"); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := treaisure.Of(v).Capture(owner, treaisure.CaptureArgs{Text: "We launch with twenty pilots.", Space: "professional", OccurredAt: "2026-11-02T10:00:00+01:00", Confirmed: true}); err != nil || c.Status != treaisure.CaptureCreated {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := v.RememberAboutProject(owner, "acme/launch", "pricing", "Pilots pay half."); err != nil {
		t.Fatal(err)
	}
	if _, err := v.RenameNote(owner, "[[Typed]]", "Typed decision", "", false); err != nil {
		t.Fatal(err)
	}
	types := vaultPropertyTypes(t, dir)
	for _, k := range []string{"created", "captured_at", "occurred_at", "event_date", "follows", "supersedes", "related", "depends_on", "aliases"} {
		if types[k] == nil {
			t.Errorf("no note has %s", k)
		}
	}
	for k, byType := range types {
		if len(byType) > 1 {
			t.Errorf("property %s has %d types: %v", k, len(byType), byType)
		}
		for typ, notes := range byType {
			if typ != "text" && typ != "list" && typ != "number" && typ != "checkbox" && typ != "date" && typ != "datetime" {
				t.Errorf("property %s is %s in %v", k, typ, notes)
			}
		}
	}
	if d := types["created"]["datetime"]; len(d) < 60 {
		t.Errorf("created is a date-time in %d notes only", len(d))
	}
}

// Recall over notes that are long, hostile or both (indexlane_test.go's,
// indexed in the lane) keeps its budget and finds them.
func TestRecallOverPathologicalNotes(t *testing.T) {
	v, dir := sampleVault(t)
	if _, err := v.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	vault.WriteByHand(t, v, dir, vault.Pathological())
	if err := v.Rescan(); err != nil {
		t.Fatal(err)
	}
	vault.WaitLaneT(t, v)
	rec, err := recall.Recall(t.Context(), v, owner, "markerword markerheadings", "", 2000)
	if err != nil || rec.UsedTokens > 2000+recall.Overhead || len(rec.Items) == 0 {
		t.Fatalf("recall over the long notes: %+v, %v", rec, err)
	}
}
