package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// pathCases are paths with what cairn decides; beyondGit marks the ones
// cairn refuses and git (on Linux) accepts.
var pathCases = []struct {
	path      string
	refused   bool
	beyondGit bool
}{
	{path: "notes/a.md"},
	{path: "a"},
	{path: "..."},
	{path: ".gitx"},
	{path: ".gitignore"},
	{path: ".github/workflows/x.yml"},
	{path: "git~2"},
	{path: ".git~1"},
	{path: "a/.git-keep"},
	{path: ".obsidian/app.json"},
	{path: "Été/ça.md"},
	{path: "a b/c d.md"},
	{path: "con.md"},
	{path: "a:b.md"},
	{path: ".gi\xfft"},
	{path: "", refused: true},
	{path: "/a", refused: true},
	{path: "a/", refused: true},
	{path: "a//b", refused: true},
	{path: ".", refused: true},
	{path: "..", refused: true},
	{path: "./a", refused: true},
	{path: "../a", refused: true},
	{path: "a/../../b", refused: true},
	{path: "a/..", refused: true},
	{path: ".git", refused: true},
	{path: ".git/hooks/pre-commit", refused: true},
	{path: "a/.git/config", refused: true},
	{path: ".GIT/config", refused: true},
	{path: ".Git", refused: true},
	{path: "x/.gIt", refused: true},
	{path: ".git.", refused: true},
	{path: ".git...", refused: true},
	{path: ".git ", refused: true},
	{path: ".git . ./hooks/x", refused: true},
	{path: "git~1", refused: true},
	{path: "GIT~1/config", refused: true},
	{path: "git~1.", refused: true},
	{path: ".git:x", refused: true},
	{path: ".git::$INDEX_ALLOCATION/config", refused: true},
	{path: ".\u200cgit", refused: true},
	{path: ".g\u200dit/hooks/x", refused: true},
	{path: "\ufeff.git", refused: true},
	{path: ".GI\u202eT", refused: true},
	{path: ".git\u206a", refused: true},
	{path: ".git\xff", refused: true},
	{path: "..\\x", refused: true, beyondGit: true},
	{path: "a\\b.md", refused: true, beyondGit: true},
	{path: "a\tb.md", refused: true, beyondGit: true},
	{path: "a\nb.md", refused: true, beyondGit: true},
	{path: "a\x1b[31mred.md", refused: true, beyondGit: true},
	{path: "a\x7f.md", refused: true, beyondGit: true},
	{path: strings.Repeat("n", 256), refused: true, beyondGit: true},
	{path: strings.Repeat("a/", 1600) + "x", refused: true, beyondGit: true},
}

// TestVerifyPathRefusesWhatGitRefuses compares VerifyPath with git's own
// verify_path, run by `git update-index --add --cacheinfo` with
// core.protectNTFS and core.protectHFS on: every path git refuses is
// refused, and every path refused that git takes is one marked beyondGit.
func TestVerifyPathRefusesWhatGitRefuses(t *testing.T) {
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	blob := runGit(t, dir, "hash-object", "-w", "--stdin")
	for i, c := range pathCases {
		err := VerifyPath(c.path)
		if (err != nil) != c.refused {
			t.Errorf("VerifyPath(%q) = %v, want refused %v", c.path, err, c.refused)
		}
		if err != nil && !strings.Contains(err.Error(), QuotePath(c.path)) {
			t.Errorf("VerifyPath(%q): %q does not name the path", c.path, err)
		}
		cmd := exec.Command("git", "-c", "core.protectNTFS=true", "-c", "core.protectHFS=true",
			"update-index", "--add", "--cacheinfo", "100644,"+blob+","+c.path)
		cmd.Dir = dir
		// An index of its own: "a" taken as a file would make git refuse
		// "a/b" as a file and a folder at once.
		cmd.Env = append(os.Environ(), fmt.Sprintf("GIT_INDEX_FILE=%s/index-%d", dir, i))
		gitRefuses := cmd.Run() != nil
		switch {
		case gitRefuses && err == nil:
			t.Errorf("git refuses %q and VerifyPath takes it", c.path)
		case !gitRefuses && err != nil && !c.beyondGit:
			t.Errorf("git takes %q and VerifyPath refuses it (%v) without it being marked beyond git", c.path, err)
		case gitRefuses && c.beyondGit:
			t.Errorf("%q is marked beyond git, but git refuses it too", c.path)
		}
	}
}

func TestCheckModeTakesFilesAndFoldersOnly(t *testing.T) {
	for _, m := range []filemode.FileMode{filemode.Regular, filemode.Executable, filemode.Deprecated, filemode.Dir} {
		if why := CheckMode(m); why != "" {
			t.Errorf("CheckMode(%o) = %q", uint32(m), why)
		}
	}
	for _, m := range []filemode.FileMode{filemode.Symlink, filemode.Submodule, 0o100600, 0o170000, 0} {
		if CheckMode(m) == "" {
			t.Errorf("CheckMode(%o) takes it", uint32(m))
		}
	}
}

func TestQuotePathNeverPrintsAControlCharacter(t *testing.T) {
	for in, want := range map[string]string{
		"notes/a.md":         "notes/a.md",
		"Été/ça.md":          "Été/ça.md",
		"a\nb":               `"a\nb"`,
		"a\x1b[2Jb":          `"a\x1b[2Jb"`,
		"tab\there":          `"tab\there"`,
		"bad\xffutf8":        `"bad\xffutf8"`,
		`quote"and\slash`:    `"quote\"and\\slash"`,
		"bidi\u202egpj.md":   `"bidi\u202egpj.md"`,
		"zero\u200bwidth.md": `"zero\u200bwidth.md"`,
		"c1\u0085.md":        `"c1\u0085.md"`,
	} {
		if got := QuotePath(in); got != want {
			t.Errorf("QuotePath(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPrintableKeepsLinesOnlyWhenAsked(t *testing.T) {
	in := "line one\nname\x1b[2J\u202e.md\tend\xff"
	if got, want := Printable(in, false), `line one\nname\x1b[2J\u202e.md\tend\xff`; got != want {
		t.Errorf("Printable(one line) = %s, want %s", got, want)
	}
	if got, want := Printable(in, true), "line one\nname\\x1b[2J\\u202e.md\tend\\xff"; got != want {
		t.Errorf("Printable(lines) = %q, want %q", got, want)
	}
	if got := Printable("plain é text", false); got != "plain é text" {
		t.Errorf("Printable changed plain text: %q", got)
	}
}
