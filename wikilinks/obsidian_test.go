package wikilinks

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/wikilinks/obsidianref"
	"gopkg.in/yaml.v3"
)

// testVault is wikilinks/testdata/obsidian: every link form, notes with
// one file name in several folders, attachments, nested folders.
const testVault = "testdata/obsidian"

// vaultFiles lists the test vault's files as Obsidian loads them (dot
// folders aside), in path order.
func vaultFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != root {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// testNote reads a note of the test vault as the vault would: its title
// (the H1, else the file name), aliases, body links, and the links of its
// frontmatter properties ("[[…]]" values, typed by the property's name).
// It returns the lines before the body too.
func testNote(t *testing.T, path string, data []byte) (Note, int) {
	t.Helper()
	body, fmLines := data, 0
	var props map[string]any
	if bytes.HasPrefix(data, []byte("---\n")) {
		end := bytes.Index(data[4:], []byte("\n---\n"))
		if end < 0 {
			t.Fatalf("%s: frontmatter not closed", path)
		}
		if err := yaml.Unmarshal(data[4:4+end], &props); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		body = data[4+end+5:]
		fmLines = bytes.Count(data[:len(data)-len(body)], []byte("\n"))
	}
	n := Note{ID: path, Path: path, Title: strings.TrimSuffix(fileName(path), ".md"), Links: Parse(body)}
	if first, _, _ := strings.Cut(string(body), "\n"); strings.HasPrefix(first, "# ") {
		n.Title = strings.TrimSpace(first[2:])
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals := []any{props[k]}
		if list, ok := props[k].([]any); ok {
			vals = list
		}
		for _, v := range vals {
			s, _ := v.(string)
			if k == "aliases" {
				n.Aliases = append(n.Aliases, s)
				continue
			}
			if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
				target, frag := ParseRef(s)
				n.Links = append(n.Links, Link{Target: target, Fragment: frag, Type: k, Typed: true, Offset: -1})
			}
		}
	}
	return n, fmLines
}

// loadTestVault builds the graph of a vault folder: its notes, and its
// other files as attachments.
func loadTestVault(t *testing.T, root string) (*Graph, []string, map[string][]byte, map[string]int) {
	t.Helper()
	files := vaultFiles(t, root)
	g := New()
	contents := map[string][]byte{}
	before := map[string]int{}
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			g.SetFile(f)
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		n, fmLines := testNote(t, f, data)
		g.Set(n)
		contents[f], before[f] = data, fmLines
	}
	return g, files, contents, before
}

// linkKey matches a link of cairn's with the reference's: where it is
// written and what it says.
func linkKey(line int, embed bool, property, path, sub string) string {
	return fmt.Sprintf("%d|%v|%s|%s|%s", line, embed, property, path, sub)
}

// Every link of the test vault resolves in cairn's graph to the file the
// reference resolver (Obsidian's rules, written apart) opens, and a link
// Obsidian leaves unresolved is never said to resolve in Obsidian: cairn
// resolves it by its own ways (said so: obsidian unresolved) or not at
// all. The one tie in the vault ([[Tie]], x/Tie.md and y/Tie.md) is
// reported ambiguous, the reference's pick among its candidates.
func TestGraphMatchesObsidianOnTheTestVault(t *testing.T) {
	c := compareWithReference(t, testVault)
	if c.total < 90 || c.ties != 1 {
		t.Errorf("%d links compared, %d ties", c.total, c.ties)
	}
	if got := strings.Join(c.cairnOnly, ", "); got != "Launch memo title→notes/Odd file.md, Start alias→Home.md, ecole folded→notes/École.md" {
		t.Errorf("links only cairn resolves: %s", got)
	}
	if got := strings.Join(c.unresolvedBoth, ", "); got != "/sub/Deep note, Later note.md, Not yet written, pic" {
		t.Errorf("links unresolved in both: %s", got)
	}
}

// The sample vault a newcomer meets: no difference either.
func TestGraphMatchesObsidianOnTheSampleVault(t *testing.T) {
	if c := compareWithReference(t, "../sample-vault"); c.total < 100 {
		t.Errorf("%d links compared", c.total)
	}
}

type comparison struct {
	total, ties               int
	cairnOnly, unresolvedBoth []string
}

// compareWithReference compares every link of the vault at root, as
// cairn's graph resolves it and as the reference does; a difference is
// an error.
func compareWithReference(t *testing.T, root string) comparison {
	t.Helper()
	g, files, contents, before := loadTestVault(t, root)
	var c comparison
	for _, path := range sortedKeys(keysOf(contents)) {
		want := map[string][]obsidianref.Target{}
		for _, r := range obsidianref.Targets(files, path, contents[path]) {
			k := linkKey(r.Line, r.Embed, r.Property, r.Path, r.Subpath)
			want[k] = append(want[k], r)
		}
		for _, e := range g.Outgoing(path, nil) {
			line, prop := 0, ""
			if e.Typed {
				prop = e.Type
			} else {
				line = before[path] + e.Line
			}
			k := linkKey(line, e.Type == TypeEmbeds, prop, e.Target, e.Fragment)
			if len(want[k]) == 0 {
				t.Errorf("%s: cairn reads a link the reference does not: %s (%+v)", path, k, e.Link)
				continue
			}
			r := want[k][0]
			want[k] = want[k][1:]
			c.total++
			what := fmt.Sprintf("%s: %s", path, k)
			switch {
			case r.OK && e.Status == Ambiguous:
				if e.Obsidian != ObsidianAmbiguous || !slices.Contains(append(e.Candidates, e.Files...), r.To) {
					t.Errorf("%s: ambiguous %+v, Obsidian opens %s", what, e.Resolution, r.To)
				}
				c.ties++
			case r.OK:
				if e.Status != Resolved || e.Path != r.To || e.Obsidian != ObsidianSame {
					t.Errorf("%s: cairn %+v, Obsidian opens %s", what, e.Resolution, r.To)
				}
			case e.Obsidian != ObsidianUnresolved:
				t.Errorf("%s: Obsidian leaves it unresolved, cairn says %+v", what, e.Resolution)
			case e.Status == Resolved:
				c.cairnOnly = append(c.cairnOnly, fmt.Sprintf("%s %s→%s", e.Target, e.How, e.Path))
			default:
				c.unresolvedBoth = append(c.unresolvedBoth, e.Target)
			}
		}
		for k, rs := range want {
			if len(rs) > 0 {
				t.Errorf("%s: the reference reads a link cairn does not: %s", path, k)
			}
		}
	}
	sort.Strings(c.cairnOnly)
	sort.Strings(c.unresolvedBoth)
	return c
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// The reference reads the forms the test vault's links are written in as
// Obsidian's documentation says; a few of them, pinned, so that the
// comparison above compares what it should.
func TestReferenceReadsTheTestVault(t *testing.T) {
	files := vaultFiles(t, testVault)
	data, err := os.ReadFile(filepath.Join(testVault, "Home.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range obsidianref.Targets(files, "Home.md", data) {
		k := r.Path
		if r.Subpath != "" {
			k += "#" + r.Subpath
		}
		got[k] = r.To
	}
	for link, to := range map[string]string{
		"Meeting notes#Agenda#Budget": "notes/Meeting notes.md",
		"ta/Spec":                     "projects/beta/Spec.md",
		"Spec":                        "archive/old/Spec.md",
		"pic.png":                     "notes/pic.png",
		"Folder/My Note.md":           "Folder/My Note.md",
		"/notes/My Note":              "notes/My Note.md",
		"/sub/Deep note":              "",
		"école":                       "notes/École.md",
		"Report.pdf":                  "Report.pdf",
		"notes/sub/Deep note":         "notes/sub/Deep note.md",
		"#Wikilinks":                  "Home.md",
	} {
		if got[link] != to {
			t.Errorf("[[%s]] opens %q, want %q", link, got[link], to)
		}
	}
	for _, hidden := range []string{"In code", "Two ticks", "Fenced", "Indented code", "Inline comment", "Block comment", "Hidden.md", "Code.md", "https://example.com/Spec.md"} {
		if _, ok := got[hidden]; ok {
			t.Errorf("%s is read as a link", hidden)
		}
	}
	for from, to := range map[string]string{"projects/alpha/Plan.md": "projects/alpha/Spec.md", "projects/a/Ref.md": "projects/alpha/Spec.md",
		"projects/Index.md": "projects/beta/Spec.md", "notes/Meeting notes.md": "archive/old/Spec.md"} {
		if r, _ := obsidianref.Resolve(files, from, "Spec"); r != to {
			t.Errorf("[[Spec]] from %s opens %s, want %s", from, r, to)
		}
	}
}
