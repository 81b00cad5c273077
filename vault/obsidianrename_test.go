package vault

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/wikilinks/obsidianref"
)

// A sequence of renames and moves of notes, folders (attachments in them)
// and projects on the Obsidian test vault, as Obsidian's "automatically
// update internal links" would do them: after each step the reference
// resolver (Obsidian's documented rules) finds every link leading where it
// led, none broken, and the step's commit changes exactly the lines whose
// links would otherwise have changed target, plus the renamed note's H1
// and the id line cairn saves in a moved note's frontmatter.
func TestRenamesAndMovesKeepEveryObsidianLink(t *testing.T) {
	v, dir := obsidianTestVault(t)
	for _, p := range []struct{ handle, folder string }{{"lab", "projects"}, {"lab/alpha", "projects/alpha"}} {
		if _, err := v.CreateProject(owner, p.handle, "", p.folder); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		do   func() (*Moved, error)
	}{
		{"rename_note Meeting notes", func() (*Moved, error) {
			return v.RenameNote(owner, "notes/Meeting notes.md", "Team meetings", "", false)
		}},
		{"move_note notes/My Note", func() (*Moved, error) { return v.MoveNote(owner, "notes/My Note.md", "archive", "") }},
		{"move_note Deep note up", func() (*Moved, error) { return v.MoveNote(owner, "notes/sub/Deep note.md", "notes", "") }},
		{"move_folder assets", func() (*Moved, error) { return v.MoveFolder(owner, "", "assets", "docs") }},
		{"rename_folder of project lab/alpha", func() (*Moved, error) { return v.RenameFolder(owner, "", "projects/alpha", "gamma") }},
		{"rename_project lab/alpha", func() (*Moved, error) {
			_, err := v.RenameProject(owner, "lab/alpha", "lab/gamma", "Gamma")
			return nil, err
		}},
		{"rename_folder of project lab", func() (*Moved, error) { return v.RenameFolder(owner, "", "projects", "work") }},
		{"move_folder notes", func() (*Moved, error) { return v.MoveFolder(owner, "", "notes", "archive") }},
		{"rename_note Folder/My Note", func() (*Moved, error) {
			return v.RenameNote(owner, "Folder/My Note.md", "My other note", "", false)
		}},
		{"rename_note v1.2 Release", func() (*Moved, error) { return v.RenameNote(owner, "v1.2 Release.md", "Release 1.2", "", false) }},
	}
	for _, st := range steps {
		before := obsidianLinks(t, dir)
		files := filesOf(t, dir)
		head := gitOut(t, dir, "rev-parse", "HEAD")
		m, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		move := func(p string) string { return p }
		if m != nil {
			move = m.mover()
		}
		after := obsidianLinks(t, dir)
		broken, changed := 0, 0
		for src, links := range before {
			now := after[move(src)]
			if len(now) != len(links) {
				t.Fatalf("%s: %s had %d links, %s has %d", st.name, src, len(links), move(src), len(now))
			}
			for i, l := range links {
				switch want := move(l.To); {
				case l.OK && !now[i].OK:
					broken++
					t.Errorf("%s: %s line %d: %q led to %s, now to nothing", st.name, src, l.Line, l.Path, l.To)
				case now[i].To != want:
					changed++
					t.Errorf("%s: %s line %d: %q led to %s, now %q leads to %q", st.name, src, l.Line, l.Path, want, now[i].Path, now[i].To)
				}
			}
		}
		if broken+changed > 0 {
			t.Fatalf("%s: %d links broken, %d changed target", st.name, broken, changed)
		}
		mustChange := linesToChange(t, dir, before, move)
		if strings.HasPrefix(st.name, "rename_note") {
			mustChange[m.From] = append(mustChange[m.From], "h1")
		}
		if got, want := changedLines(t, dir, head, files, move), describe(mustChange); got != want {
			t.Fatalf("%s: the commit changed lines\n%s\nwhere these had to change\n%s", st.name, got, want)
		}
		if n := gitOut(t, dir, "rev-list", "--count", head+"..HEAD"); n != "1" {
			t.Fatalf("%s: %s commits, want one", st.name, n)
		}
	}
	// Each link kept its style: label, nested heading, block, Markdown in
	// angle brackets or URL-encoded and relative, a label in a table cell,
	// a link that a shorter path would capture now written as a path with
	// what it showed.
	for file, want := range map[string][]string{
		"Home.md": {"  - \"[[Deep note|deep]]\"\n", "[[Team meetings|the meeting]]", "nested [[Team meetings#Agenda#Budget]]",
			"block [[Team meetings#^abc123]]", "[mine](<Folder/My other note.md>)", "[[Release 1.2]]",
			"| [[archive/old/Spec\\|a spec]] | [cell](archive/My%20Note.md) |", "> quoted [[archive/old/Spec|Spec]]"},
		"archive/notes/Team meetings.md": {"[sib](../My%20Note.md)", "[up](../../Home.md)", "[[./Deep note]]"},
	} {
		got := readFile(t, filepath.Join(dir, file))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", file, w, got)
			}
		}
	}
	cleanAndSound(t, dir)
}

// mover maps a path before the move to its path after it.
func (m *Moved) mover() func(string) string {
	return func(p string) string {
		switch {
		case p == m.From:
			return m.To
		case m.Notes > 0 || m.ID == "":
			if strings.HasPrefix(p, m.From+"/") {
				return m.To + p[len(m.From):]
			}
		}
		return p
	}
}

// A link as the reference reads it, with the line it sits on (frontmatter
// included) and where it leads.
type refLink struct {
	obsidianref.Target
}

var propertyLinkRe = regexp.MustCompile(`\[\[([^\]]*)\]\]`)

// obsidianLinks lists, per note on disk, every link with where Obsidian's
// rules lead it, links in frontmatter properties placed on their line.
func obsidianLinks(t *testing.T, dir string) map[string][]refLink {
	t.Helper()
	files := filesOf(t, dir)
	out := map[string][]refLink{}
	for _, p := range files {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		content := []byte(readFile(t, filepath.Join(dir, filepath.FromSlash(p))))
		props := propertyLines(string(content))
		seen := map[string]int{}
		for _, r := range obsidianref.Targets(files, p, content) {
			if r.Property != "" {
				k := r.Property + "\x00" + r.Path + "#" + r.Subpath
				lines := props[k]
				if len(lines) <= seen[k] {
					t.Fatalf("%s: property link %q not found on a line", p, r.Path)
				}
				r.Line = lines[seen[k]]
				seen[k]++
			}
			out[p] = append(out[p], refLink{r})
		}
	}
	return out
}

// propertyLines finds, for each property link (key, path#subpath), the
// frontmatter lines it is written on, in order.
func propertyLines(content string) map[string][]int {
	out := map[string][]int{}
	lines := strings.Split(content, "\n")
	if len(lines) == 0 || lines[0] != "---" {
		return out
	}
	key := ""
	for i := 1; i < len(lines) && lines[i] != "---"; i++ {
		l := lines[i]
		if k, _, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "-") {
			key = k
		}
		for _, m := range propertyLinkRe.FindAllStringSubmatch(l, -1) {
			path, sub, _ := strings.Cut(strings.SplitN(m[1], "|", 2)[0], "#")
			k := key + "\x00" + strings.TrimSpace(path) + "#" + sub
			out[k] = append(out[k], i+1)
		}
	}
	return out
}

// linesToChange lists, per note (its path before), the lines holding a
// link that, left as written, would no longer lead where it led: the
// reference resolves the old text from the note's new place among the
// files as they are now.
func linesToChange(t *testing.T, dir string, before map[string][]refLink, move func(string) string) map[string][]string {
	files := filesOf(t, dir)
	out := map[string][]string{}
	for src, links := range before {
		for _, l := range links {
			if !l.OK {
				continue
			}
			if to, _ := obsidianref.Resolve(files, move(src), l.Path); to != move(l.To) {
				out[src] = append(out[src], strconv.Itoa(l.Line))
			}
		}
	}
	return out
}

var hunkRe = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// changedLines describes what the commit after head changed in each file
// (by its path before, compared with the same file at its path after): the
// numbers of the lines it replaced or removed ("h1" for an H1), and any
// line it added beyond those it replaced, except the frontmatter id cairn
// saves in a moved note ("id: …", and "---" around it when the note had no
// frontmatter). A file that is not a note must be unchanged.
func changedLines(t *testing.T, dir, head string, files []string, move func(string) string) string {
	t.Helper()
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, ProjectMarker) {
			continue // what rename_project changes: handle, name, aliases
		}
		cmd := exec.Command("git", "diff", "-U0", "--no-color", head+":"+f, "HEAD:"+move(f))
		cmd.Dir = dir
		diff, err := cmd.Output()
		if err != nil {
			t.Fatalf("git diff %s → %s: %v", f, move(f), err)
		}
		if len(diff) > 0 && !strings.HasSuffix(f, ".md") {
			t.Fatalf("%s changed on its way to %s:\n%s", f, move(f), diff)
		}
		changedInDiff(f, string(diff), out)
	}
	return describe(out)
}

// changedInDiff adds to out what a -U0 diff of file changed (see changedLines).
func changedInDiff(file, diff string, out map[string][]string) {
	line, replaced := 0, 0
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "@@"):
			hm := hunkRe.FindStringSubmatch(l)
			line, _ = strconv.Atoi(hm[1])
			replaced = 0
		case strings.HasPrefix(l, "-"):
			what := strconv.Itoa(line)
			if strings.HasPrefix(l, "-# ") {
				what = "h1"
			}
			out[file] = append(out[file], what)
			line++
			replaced++
		case strings.HasPrefix(l, "+"):
			switch added := l[1:]; {
			case strings.HasPrefix(added, "id: "), added == "---":
			case replaced > 0:
				replaced--
			default:
				out[file] = append(out[file], "added "+strconv.Quote(added))
			}
		}
	}
}

// describe prints per file lists in a stable order.
func describe(m map[string][]string) string {
	var b strings.Builder
	files := make([]string, 0, len(m))
	for f := range m {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		ls := m[f]
		sort.Strings(ls)
		ls = compactStrings(ls)
		fmt.Fprintf(&b, "%s: %s\n", f, strings.Join(ls, " "))
	}
	return b.String()
}

func compactStrings(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
