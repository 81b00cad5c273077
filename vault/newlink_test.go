package vault

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/wikilinks/obsidianref"
)

// newLinkVault is the sample vault with one file name in four folders
// (the root, outside the space links are written in, among them), a note whose title is not its file name, and the
// notes links are written from.
func newLinkVault(t *testing.T) (*Vault, string) {
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

// The notes linked to, by the link type that names each.
var linkedAs = map[string]string{
	"to_acme": "acme/Spec.md", "to_launch": "acme/launch/Spec.md", "to_infra": "acme/infra/Spec.md", "to_odd": "acme/launch/Odd name.md",
}

// setAppJSON writes the vault's Obsidian settings file, committed as a
// person's Obsidian settings are.
func setAppJSON(t *testing.T, v *Vault, dir, content string) {
	t.Helper()
	byHand(t, v, dir, map[string]string{ObsidianAppFile: content})
}

// propertyTargets is what Obsidian opens for each typed link of the note
// at p, by property: the reference resolver over the vault's files.
func propertyTargets(t *testing.T, dir, p string) map[string][]string {
	t.Helper()
	data := []byte(readFile(t, filepath.Join(dir, filepath.FromSlash(p))))
	out := map[string][]string{}
	for _, r := range obsidianref.Targets(filesOf(t, dir), p, data) {
		if r.Property != "" {
			out[r.Property] = append(out[r.Property], r.To)
		}
	}
	return out
}

// Links written by link (from either side of the duplicated names) and
// by create_note open, in Obsidian, the note each was meant for, in every
// link format the vault's settings may choose; the text is the format's;
// a note whose title is not its file name is linked by its file name.
func TestLinksCairnWritesOpenTheNoteMeantInEveryFormat(t *testing.T) {
	for _, c := range []struct {
		app  string // .obsidian/app.json; "" for none
		want map[string]string
	}{
		{"", map[string]string{"to_acme": "acme/Spec", "to_launch": "acme/launch/Spec", "to_infra": "acme/infra/Spec", "to_odd": "Odd name"}},
		{`{"newLinkFormat": "shortest", "useMarkdownLinks": true}`, map[string]string{"to_launch": "acme/launch/Spec", "to_odd": "Odd name"}},
		{`{"newLinkFormat": "relative"}`, map[string]string{"to_acme": "../Spec", "to_launch": "./Spec", "to_infra": "../infra/Spec", "to_odd": "Odd name"}},
		{`{"newLinkFormat": "absolute", "alwaysUpdateLinks": true}`, map[string]string{"to_acme": "acme/Spec", "to_launch": "acme/launch/Spec", "to_odd": "acme/launch/Odd name"}},
	} {
		t.Run(fmt.Sprintf("app.json %s", c.app), func(t *testing.T) {
			v, dir := newLinkVault(t)
			if c.app != "" {
				setAppJSON(t, v, dir, c.app)
			}
			var links []LinkArgs
			var specs []LinkSpec
			for _, from := range []string{"acme/launch/From A.md", "acme/infra/From B.md"} {
				for typ, to := range linkedAs {
					links = append(links, LinkArgs{From: from, To: to, Type: typ})
				}
			}
			for typ, to := range linkedAs {
				specs = append(specs, LinkSpec{Type: typ, To: to})
			}
			out, err := v.LinkMany(owner, links, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range out.Results {
				if r.Status != "created" {
					t.Fatalf("%+v", r)
				}
			}
			w, err := v.CreateNote(owner, CreateArgs{Project: "acme", Path: "infra", Body: "# New note\n", Links: specs})
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []string{"acme/launch/From A.md", "acme/infra/From B.md", w.Path} {
				got := propertyTargets(t, dir, src)
				for typ, to := range linkedAs {
					if len(got[typ]) != 1 || got[typ][0] != to {
						t.Errorf("%s: %s opens %q in Obsidian, want %s\n%s", src, typ, got[typ], to, readFile(t, filepath.Join(dir, src)))
					}
				}
			}
			from := readFile(t, filepath.Join(dir, "acme/launch/From A.md"))
			for typ, text := range c.want {
				if !strings.Contains(from, typ+":\n  - \"[["+text+"]]\"\n") && !strings.Contains(from, typ+": [\"[["+text+"]]\"]\n") {
					t.Errorf("%s written as %q? From A:\n%s", typ, text, from)
				}
			}
			cleanAndSound(t, dir)
		})
	}
}

// A note created with the file name of the note it links to: the link
// counts the new note, so it names the other one by its path rather than
// opening the new note itself. So does a batch whose notes share a name
// with a target.
func TestCreateLinksCountTheNotesBeingCreated(t *testing.T) {
	v, dir := newLinkVault(t)
	byHand(t, v, dir, map[string]string{"acme/launch/Unique thing.md": "# Unique thing\n"})
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme", Path: "infra", Body: "# Unique thing\n", Links: []LinkSpec{{Type: "related", To: "acme/launch/Unique thing.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := propertyTargets(t, dir, w.Path)["related"]; len(got) != 1 || got[0] != "acme/launch/Unique thing.md" {
		t.Fatalf("%s opens %q:\n%s", w.Path, got, readFile(t, filepath.Join(dir, w.Path)))
	}
	byHand(t, v, dir, map[string]string{"acme/launch/Only one.md": "# Only one\n"})
	res, err := v.CreateNotes(owner, "acme", []CreateArgs{
		{Path: "infra", Body: "# Linker\n", Links: []LinkSpec{{Type: "related", To: "acme/launch/Only one.md"}}},
		{Path: "handbook", Body: "# Only one\n"},
	})
	if err != nil || res[0].Status != "ok" || res[1].Status != "ok" {
		t.Fatalf("%+v %v", res, err)
	}
	if got := readFile(t, filepath.Join(dir, res[0].Path)); !strings.Contains(got, `"[[acme/launch/Only one]]"`) {
		t.Fatalf("the batch's own Only one makes the name shared:\n%s", got)
	}
	cleanAndSound(t, dir)
}
