package vault

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
	"github.com/cairn-dev/cairn/wikilinks/obsidianref"
)

const obsidianVault = "../wikilinks/testdata/obsidian"

// obsidianTestVault is a vault made from the link test vault: every link
// form, notes with one file name in several folders, attachments.
func obsidianTestVault(t *testing.T) (*Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: obsidianVault}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

// filesOf lists a folder's files as Obsidian sees them (dot folders aside).
func filesOf(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
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
	sort.Strings(files)
	return files
}

// Every link get_note lists, in every note of the test vault, names the
// file the reference resolver (Obsidian's rules) opens, attachments
// included, and says so (obsidian: same); a link Obsidian leaves
// unresolved is never said to resolve there. Links written in
// frontmatter properties count once the vault reads them as typed links.
func TestGetNoteLinksAreObsidians(t *testing.T) {
	v, dir := obsidianTestVault(t)
	src := filesOf(t, obsidianVault)
	compared := 0
	for _, p := range src {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		data := []byte(readFile(t, filepath.Join(dir, filepath.FromSlash(p))))
		before := bytes.Count(data[:len(data)-len(note.Parse(p, data).Body)], []byte("\n"))
		want := map[string][]obsidianref.Target{}
		for _, r := range obsidianref.Targets(src, p, data) {
			k := fmt.Sprintf("%d|%s|%s|%s", r.Line, r.Property, r.Path, r.Subpath)
			want[k] = append(want[k], r)
		}
		n, err := v.GetNote(owner, p, true, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range n.Links.Outgoing {
			line, prop := before+l.Line, ""
			if l.Typed {
				line, prop = 0, l.Type
			}
			k := fmt.Sprintf("%d|%s|%s|%s", line, prop, l.Target, l.Fragment)
			if len(want[k]) == 0 {
				t.Errorf("%s: get_note lists %s, which Obsidian does not read", p, k)
				continue
			}
			r := want[k][0]
			want[k] = want[k][1:]
			compared++
			got := ""
			switch {
			case l.To != nil:
				got = l.To.Path
			case l.Attachment != "":
				got = l.Attachment
			}
			switch {
			case r.OK && l.Status == wikilinks.Ambiguous:
				if l.Obsidian != wikilinks.ObsidianAmbiguous {
					t.Errorf("%s: %s: %+v", p, k, l)
				}
			case r.OK && (got != r.To || l.Obsidian != wikilinks.ObsidianSame):
				t.Errorf("%s: %s: get_note %q (%s), Obsidian %q", p, k, got, l.Obsidian, r.To)
			case !r.OK && l.Obsidian != wikilinks.ObsidianUnresolved:
				t.Errorf("%s: %s: Obsidian leaves it unresolved, get_note says %+v", p, k, l)
			}
		}
		for k, rs := range want {
			if len(rs) > 0 && rs[0].Property == "" {
				t.Errorf("%s: get_note misses %s", p, k)
			}
		}
	}
	if compared < 85 {
		t.Fatalf("%d links compared", compared)
	}
}

// Attachments come and go with the files on disk: an event the watcher
// sees, or a scan, and links to them resolve, move to the next candidate,
// or stop resolving.
func TestAttachmentLinksFollowTheDisk(t *testing.T) {
	v, dir := obsidianTestVault(t)
	target := func(linkTarget string) string {
		t.Helper()
		n, err := v.GetNote(owner, "Home.md", true, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range n.Links.Outgoing {
			if l.Target == linkTarget {
				if l.To != nil {
					return "note " + l.To.Path
				}
				return l.Status + " " + l.Attachment
			}
		}
		t.Fatalf("no link %q", linkTarget)
		return ""
	}
	if got := target("pic.png"); got != "resolved notes/pic.png" {
		t.Fatalf("pic.png: %s", got)
	}
	os.Remove(filepath.Join(dir, "notes", "pic.png"))
	v.lookAt(map[string]time.Time{"notes/pic.png": time.Now()}, func(string) {})
	if got := target("pic.png"); got != "resolved assets/pic.png" {
		t.Fatalf("after notes/pic.png went: %s", got)
	}
	os.RemoveAll(filepath.Join(dir, "assets"))
	v.lookAt(map[string]time.Time{"assets": time.Now()}, func(string) {})
	if got := target("pic.png"); got != "unresolved " {
		t.Fatalf("after assets/ went: %s", got)
	}
	if got := target("diagram.svg"); got != "unresolved " {
		t.Fatalf("diagram.svg after assets/ went: %s", got)
	}
	os.MkdirAll(filepath.Join(dir, "img"), 0o755)
	os.WriteFile(filepath.Join(dir, "img", "diagram.svg"), []byte("<svg/>"), 0o644)
	if _, err := v.Reconcile(); err != nil {
		t.Fatal(err)
	}
	if got := target("diagram.svg"); got != "resolved img/diagram.svg" {
		t.Fatalf("a new diagram.svg: %s", got)
	}
	// Attachments are not notes: no ref names one.
	if _, err := v.GetNote(owner, "img/diagram.svg", false, ""); err == nil {
		t.Fatal("an attachment read as a note")
	}
}

// obsidianTargets lists, per note, where each of its links leads in
// Obsidian (the reference), reading the vault on disk.
func obsidianTargets(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files := filesOf(t, dir)
	out := map[string][]string{}
	for _, p := range files {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		for _, r := range obsidianref.Targets(files, p, []byte(readFile(t, filepath.Join(dir, filepath.FromSlash(p))))) {
			out[p] = append(out[p], r.To)
		}
	}
	return out
}

// Moving a note that links of every form name (wikilinks by path, a
// Markdown link URL-encoded and without .md, a link by name) leaves every
// link of the vault leading where it led in Obsidian: a Markdown link
// stays a Markdown link, encoded as it was.
func TestMoveKeepsMarkdownLinksWorkingInObsidian(t *testing.T) {
	v, dir := obsidianTestVault(t)
	before := obsidianTargets(t, dir)
	if _, err := v.MoveNote(owner, "notes/sub/Deep note.md", "archive", ""); err != nil {
		t.Fatal(err)
	}
	moved := func(p string) string {
		if p == "notes/sub/Deep note.md" {
			return "archive/Deep note.md"
		}
		return p
	}
	after := obsidianTargets(t, dir)
	for src, targets := range before {
		got := after[moved(src)]
		if len(got) != len(targets) {
			t.Fatalf("%s: %d links, then %d", src, len(targets), len(got))
		}
		for i, to := range targets {
			if moved(to) != got[i] {
				t.Errorf("%s: link %d led to %q, now to %q", src, i, to, got[i])
			}
		}
	}
	home := readFile(t, filepath.Join(dir, "Home.md"))
	for _, want := range []string{"[deep](archive/Deep%20note)", "[[archive/Deep note]]"} {
		if !strings.Contains(home, want) {
			t.Errorf("Home.md lacks %s:\n%s", want, home)
		}
	}
}
