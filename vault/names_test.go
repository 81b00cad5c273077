package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// wantArgErr asserts err is an ArgError naming arg whose text holds want.
func wantArgErr(t *testing.T, what string, err error, arg, want string) {
	t.Helper()
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != arg || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: want an error naming %s and saying %q, got %v", what, arg, want, err)
	}
}

// A title of U+FFFD characters used to panic the file-name truncation
// (it trimmed past an empty string); it is valid text and makes a note.
func TestReplacementCharacterTitleMakesANote(t *testing.T) {
	v, dir := sampleVault(t)
	title := strings.Repeat("\uFFFD", 100)
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# " + title + "\n\nDamaged text, kept as given."})
	if err != nil {
		t.Fatal(err)
	}
	name := baseName(w.Path)
	if !utf8.ValidString(name) || len(name) > maxStemBytes+len(".md") || !strings.HasPrefix(name, "\uFFFD") {
		t.Fatalf("file name %q (%d bytes)", name, len(name))
	}
	if _, err := os.Stat(filepath.Join(dir, w.Path)); err != nil {
		t.Fatal(err)
	}
	if n, err := v.GetNote(owner, w.ID, false, ""); err != nil || n.Title != title {
		t.Fatalf("read back: %v %+v", err, n)
	}
	cleanAndSound(t, dir)
}

// Titles that leave nothing for a file name are refused, naming the
// argument, instead of all becoming "Untitled.md" (the second one was then
// refused naming the first, an unrelated note).
func TestTitlesThatLeaveNoFileNameAreRefused(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	for _, title := range []string{"...", "..", "/", "[[ ]]", `?*<>|:"\`, ". . ."} {
		for i := 0; i < 2; i++ { // twice: the second is refused for the same reason
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# " + title + "\n"})
			wantArgErr(t, "create "+title, err, "body", "leaves no file name")
		}
		_, err := v.RenameNote(owner, "[[Launch plan]]", title, "", false)
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != "title" {
			t.Fatalf("rename to %q: %v", title, err)
		}
	}
	unchanged(t, dir, head)
}

func TestWindowsReservedAndTrailingDotNamesAreRefused(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	for _, title := range []string{"CON", "con", "Nul", "com1", "LPT9", "aux.draft", "PRN .old", "COM\u00b9", "CONOUT$"} {
		_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# " + title + "\n"})
		wantArgErr(t, "create "+title, err, "body", "Windows")
		_, err = v.RenameNote(owner, "[[Launch plan]]", title, "", false)
		wantArgErr(t, "rename to "+title, err, "title", "Windows")
	}
	for _, folder := range []string{"drafts/con", "drafts.", "drafts ", "a:b", "q?", "NUL.d/x"} {
		_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Path: folder, Body: "# Fine title\n"})
		wantArgErr(t, "create in "+folder, err, "path", folder)
		_, err = v.MoveNote(owner, "[[Launch plan]]", "acme/launch/"+folder, "")
		wantArgErr(t, "move to "+folder, err, "toPath", folder)
	}
	_, err := v.RenameFolder(owner, "acme/launch", "acme/launch/specs", "specs.")
	wantArgErr(t, "rename folder", err, "name", "specs.")
	_, err = v.RenameFolder(owner, "acme/launch", "acme/launch/specs", "lpt1")
	wantArgErr(t, "rename folder", err, "name", "Windows")
	unchanged(t, dir, head)
	// Names that only start like a reserved one are fine.
	for _, title := range []string{"Console", "CON-2026 review", "Auxiliary pumps", "Title ending in dots..."} {
		if _, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# " + title + "\n"}); err != nil {
			t.Fatalf("%s: %v", title, err)
		}
	}
}

// A vault must check out on macOS and Windows, whose disks ignore case
// (and, on macOS, Unicode normalisation): a new name that differs from an
// existing one only so is refused, naming the existing one.
func TestNamesDifferingOnlyByCaseAreRefused(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# pricing\n"})
	wantArgErr(t, "create pricing", err, "body", "acme/launch/Pricing.md")
	// The same title spelt with combining accents (NFD), as macOS would.
	_, err = v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Re\u0301tro be\u0302ta prive\u0301e\n"})
	wantArgErr(t, "create NFD title", err, "body", "acme/launch/Rétro bêta privée.md")
	_, err = v.CreateNote(owner, CreateArgs{Project: "acme/launch", Path: "Decisions/2027", Body: "# New decision\n"})
	wantArgErr(t, "create in Decisions", err, "path", "acme/launch/decisions")
	_, err = v.MoveNote(owner, "[[Launch plan]]", "acme/launch/SPECS", "")
	wantArgErr(t, "move to SPECS", err, "toPath", "acme/launch/specs")
	_, err = v.RenameNote(owner, "[[Launch plan]]", "PRICING", "", false)
	wantArgErr(t, "rename to PRICING", err, "title", "acme/launch/Pricing.md")
	_, err = v.RenameFolder(owner, "acme/launch", "acme/launch/specs", "Meetings")
	wantArgErr(t, "rename folder to Meetings", err, "name", "acme/launch/meetings")
	_, err = v.MoveFolder(owner, "acme/launch", "acme/launch/specs", "acme/launch/DECISIONS")
	wantArgErr(t, "move folder into DECISIONS", err, "toParent", "acme/launch/decisions")
	unchanged(t, dir, head)
	// A note may change the case of its own title, and a folder its own name.
	if _, err := v.RenameNote(owner, "[[Launch plan]]", "Launch Plan", "", false); err != nil {
		t.Fatalf("case-only rename of the note itself: %v", err)
	}
	if _, err := v.RenameFolder(owner, "acme/launch", "acme/launch/specs", "Specs"); err != nil {
		t.Fatalf("case-only rename of the folder itself: %v", err)
	}
	cleanAndSound(t, dir)
}

// Bidi overrides and invisible characters would make a title or a path
// read as something else (`Invoice \u202Efdp.exe`); they are refused.
func TestInvisibleAndBidiCharactersAreRefused(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Red \x1b[31malert\n"})
	wantArgErr(t, "create with an escape sequence", err, "body", "control character")
	for _, r := range []string{"\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\ufeff", "\u200b", "\u2060", "\u00ad", "\u2028"} {
		title := "Invoice " + r + "fdp.exe"
		_, err = v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# " + title + "\n"})
		wantArgErr(t, "create", err, "body", "U+")
		_, err = v.RenameNote(owner, "[[Launch plan]]", title, "", false)
		wantArgErr(t, "rename", err, "title", "U+")
		_, err = v.CreateNote(owner, CreateArgs{Project: "acme/launch", Path: "drafts/" + r + "x", Body: "# Fine\n"})
		wantArgErr(t, "create in path", err, "path", "U+")
		_, err = v.Link(owner, LinkArgs{From: "[[Launch plan]]", ToTitle: title, Type: "relates_to"})
		wantArgErr(t, "link toTitle", err, "toTitle", "U+")
	}
	res, err := v.CreateNotes(owner, "acme/launch", []CreateArgs{{Body: "# Fine one\n"}, {Body: "# Bad \u202e one\n"}})
	if err != nil || res[0].Status != "ok" || res[1].Status != "error" || !strings.Contains(res[1].Error, "notes[1].body") {
		t.Fatalf("batch: %v %+v", err, res)
	}
	head = gitOut(t, dir, "rev-parse", "HEAD")
	unchanged(t, dir, head)
	// Joiners that scripts and emoji need are kept.
	for _, title := range []string{"👩\u200d💻 Dev notes", "می\u200cخواهم"} {
		w, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# " + title + "\n"})
		if err != nil || baseName(w.Path) != title+".md" {
			t.Fatalf("%q: %v %+v", title, err, w)
		}
	}
}

// One bad note of a batch is reported and the valid ones are written, in
// one commit; nothing panics.
func TestCreateNotesKeepsTheValidNotesOfABatch(t *testing.T) {
	v, dir := sampleVault(t)
	before := commitCount(t, dir)
	res, err := v.CreateNotes(owner, "acme/launch", []CreateArgs{
		{Body: "# First good\n"},
		{Body: "# " + strings.Repeat("\uFFFD", 120) + "\n"},
		{Body: "# ...\n"},
		{Body: "# CON\n"},
		{Body: "# pricing\n"},
		{Body: "# Second good\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ok", "ok", "error", "error", "error", "ok"}
	for i, r := range res {
		if r.Status != want[i] {
			t.Fatalf("notes[%d]: %+v", i, r)
		}
		if r.Status == "error" && !strings.Contains(r.Error, "notes["+string(rune('0'+i))+"].body") {
			t.Fatalf("notes[%d] error does not name its argument: %s", i, r.Error)
		}
	}
	if got := commitCount(t, dir); got == before {
		t.Fatal("nothing was committed")
	}
	for _, i := range []int{0, 1, 5} {
		if _, err := os.Stat(filepath.Join(dir, res[i].Path)); err != nil {
			t.Fatalf("notes[%d]: %v", i, err)
		}
	}
	cleanAndSound(t, dir)
}

// A project's folder is a name cairn creates too.
func TestProjectFoldersAreSafeNames(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	_, err := v.CreateProject(owner, "acme/con", "", "")
	wantArgErr(t, "handle acme/con", err, "folder", "Windows")
	_, err = v.CreateProject(owner, "acme/ops", "", "ACME/ops")
	wantArgErr(t, "folder ACME/ops", err, "folder", "acme")
	_, err = v.CreateProject(owner, "acme/ops", "", "acme/ops.")
	wantArgErr(t, "folder acme/ops.", err, "folder", "dot")
	unchanged(t, dir, head)
	if _, err := v.CreateProject(owner, "acme/ops", "", ""); err != nil {
		t.Fatal(err)
	}
}

func TestFileNameAndCleanRel(t *testing.T) {
	if got, err := FileName(`A/B: "c"? [d]`); got != "A B c d.md" || err != nil {
		t.Errorf("FileName = %q, %v", got, err)
	}
	for _, bad := range []string{"../x", "a/../../b", "/etc", ".git/config", "a/.cairn/x", "a\\b", ".trash/x", "a/\x01b", "a/\u202eb", "a\ufeff/b"} {
		if _, err := cleanRel("path", bad); err == nil {
			t.Errorf("cleanRel(%q) accepted", bad)
		} else if !strings.Contains(err.Error(), "argument path") {
			t.Errorf("error does not name the argument: %v", err)
		}
	}
	if p, err := cleanRel("path", "/acme/launch/"); err == nil {
		t.Errorf("absolute path accepted as %q", p)
	}
	if p, err := cleanRel("path", "acme/launch/"); err != nil || p != "acme/launch" {
		t.Errorf("cleanRel = %q, %v", p, err)
	}
}
