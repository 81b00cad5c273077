package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

func str(s string) *string { return &s }

func TestCreateReadEditDeleteAreOneCommitEach(t *testing.T) {
	v, dir := sampleVault(t)
	before := commitCount(t, dir)
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Path: "decisions", Body: "# Use RRF\n\nWe fuse rankings.", Type: "decision", Tags: []string{"search", "#fusion"},
		Links: []LinkSpec{{Type: "depends_on", To: "[[Pricing]]"}, {Type: "relates_to", ToTitle: "Not yet written"}}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != "acme/launch/decisions/Use RRF.md" || len(w.ID) != 26 || len(w.VersionToken) != 40 || w.Project != "acme/launch" {
		t.Fatalf("created %+v", w)
	}
	log := gitOut(t, dir, "log", "-1", "--format=%an|%(trailers:key=Cairn-Tool,valueonly,separator=)|%(trailers:key=Cairn-Actor,valueonly,separator=)|%(trailers:key=Cairn-Principal,valueonly,separator=)")
	if log != "owner|test|agent|owner" {
		t.Fatalf("author/trailers: %q", log)
	}
	file := readFile(t, filepath.Join(dir, w.Path))
	for _, want := range []string{"id: " + w.ID, "type: decision", "tags: [search, fusion]", `depends_on: ["[[Pricing]]"]`, `relates_to: ["[[Not yet written]]"]`, "# Use RRF\n\nWe fuse rankings.\n"} {
		if !strings.Contains(file, want) {
			t.Errorf("file lacks %q:\n%s", want, file)
		}
	}
	for _, ref := range []string{w.ID, w.Path, "acme/launch/decisions/Use RRF", "[[Use RRF]]", "Use RRF", "use rrf"} {
		n, err := v.GetNote(owner, ref, true, "")
		if err != nil {
			t.Fatalf("get %q: %v", ref, err)
		}
		if n.ID != w.ID || n.VersionToken != w.VersionToken || n.Class != ClassUserDoc || n.Provenance.Tool != "test" || n.Provenance.Actor != "agent" {
			t.Fatalf("get %q: %+v", ref, n)
		}
	}
	e1, err := v.EditNote(owner, EditArgs{Ref: w.ID, VersionToken: w.VersionToken, Operation: OpAppend, Content: str("## Why\n\nBetter recall.")})
	if err != nil {
		t.Fatal(err)
	}
	e2, err := v.EditNote(owner, EditArgs{Ref: w.ID, VersionToken: e1.VersionToken, Operation: OpReplaceSection, Heading: "why", Content: str("Because lists agree.")})
	if err != nil {
		t.Fatal(err)
	}
	e3, err := v.EditNote(owner, EditArgs{Ref: w.ID, VersionToken: e2.VersionToken, Operation: OpFindReplace, Find: "lists agree", Content: str("two lists agree")})
	if err != nil {
		t.Fatal(err)
	}
	e4, err := v.EditNote(owner, EditArgs{Ref: w.ID, VersionToken: e3.VersionToken, Operation: OpPrepend, Content: str("> Summary first.")})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := v.GetNote(owner, w.ID, false, "")
	want := "# Use RRF\n\n> Summary first.\n\nWe fuse rankings.\n\n## Why\n\nBecause two lists agree.\n"
	if n.Content != want {
		t.Fatalf("body after edits:\n%q\nwant\n%q", n.Content, want)
	}
	if n.VersionToken != e4.VersionToken {
		t.Fatal("token after edit differs from get_note")
	}
	// An older revision reads back.
	old, err := v.GetNote(owner, w.ID, false, w.VersionToken)
	if err != nil || old.Content != "# Use RRF\n\nWe fuse rankings.\n" {
		t.Fatalf("revision read: %v %q", err, old.Content)
	}
	d, err := v.DeleteNote(owner, w.ID, e4.VersionToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, w.Path)); !os.IsNotExist(err) {
		t.Fatal("deleted note still on disk")
	}
	if _, err := v.GetNote(owner, w.ID, false, ""); !IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
	if got := commitCount(t, dir); got != fmt.Sprint(atoi(before)+6) {
		t.Fatalf("want 6 commits (create, 4 edits, delete), have %s after %s", got, before)
	}
	es, _ := v.TrashList()
	if len(es) != 1 || es[0].TrashID != d.TrashID || es[0].Path != w.Path || es[0].DeletedBy != "owner" {
		t.Fatalf("trash: %+v", es)
	}
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn trash restore"}
	r, err := v.TrashRestore(human, d.TrashID, "")
	if err != nil || r.Path != w.Path || r.ID != w.ID {
		t.Fatalf("restore: %+v %v", r, err)
	}
	if n, err := v.GetNote(owner, w.ID, false, ""); err != nil || n.Content != want {
		t.Fatalf("restored note: %v", err)
	}
	if es, _ := v.TrashList(); len(es) != 0 {
		t.Fatalf("trash not empty after restore: %+v", es)
	}
	unchanged(t, dir, gitOut(t, dir, "rev-parse", "HEAD"))
	fsck(t, dir)
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

func TestStaleTokenAndEditorChangesAreNeverOverwritten(t *testing.T) {
	v, dir := sampleVault(t)
	n, err := v.GetNote(owner, "[[Pricing]]", false, "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpAppend, Content: str("First.")})
	if err != nil {
		t.Fatal(err)
	}
	head := gitOut(t, dir, "rev-parse", "HEAD")
	_, err = v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpAppend, Content: str("Stale.")})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Current != e.VersionToken {
		t.Fatalf("stale token: want versionConflict with %s, got %v", e.VersionToken, err)
	}
	unchanged(t, dir, head)

	// A person edits the file in an editor; nothing is committed yet.
	path := filepath.Join(dir, n.Path)
	edited := readFile(t, path) + "\nA line typed by a person.\n"
	os.WriteFile(path, []byte(edited), 0o644)
	_, err = v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: e.VersionToken, Operation: OpAppend, Content: str("Agent line.")})
	if !errors.As(err, &ce) {
		t.Fatalf("edit over an uncommitted human edit: want versionConflict, got %v", err)
	}
	if readFile(t, path) != edited {
		t.Fatal("the person's edit was overwritten")
	}
	// The human edit is now committed, as the human's, and the conflict names it.
	if got := gitOut(t, dir, "log", "-1", "--format=%H|%(trailers:key=Cairn-Actor,valueonly,separator=)"); got != ce.Current+"|human" {
		t.Fatalf("human edit commit: %q (conflict says %s)", got, ce.Current)
	}
	if _, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: ce.Current, Operation: OpAppend, Content: str("Agent line.")}); err != nil {
		t.Fatalf("retry with the current token: %v", err)
	}
	if !strings.Contains(readFile(t, path), "A line typed by a person.") {
		t.Fatal("human line lost after the agent's retry")
	}
	fsck(t, dir)
}

func TestConcurrentEditsSameTokenExactlyOneWins(t *testing.T) {
	v, dir := sampleVault(t)
	n, _ := v.GetNote(owner, "[[Launch plan]]", false, "")
	for round := 0; round < 5; round++ {
		cur, _ := v.GetNote(owner, n.ID, false, "")
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, conflicts := 0, 0
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: cur.VersionToken, Operation: OpAppend, Content: str(fmt.Sprintf("writer %d round %d", i, round))})
				var ce *ConflictError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
				case errors.As(err, &ce):
					conflicts++
				default:
					t.Errorf("unexpected error: %v", err)
				}
			}(i)
		}
		wg.Wait()
		if wins != 1 || conflicts != 7 {
			t.Fatalf("round %d: %d wins, %d conflicts", round, wins, conflicts)
		}
	}
	fsck(t, dir)
}

func TestFiftyConcurrentCreatesAllLand(t *testing.T) {
	v, dir := sampleVault(t)
	before := atoi(commitCount(t, dir))
	var wg sync.WaitGroup
	ids := make([]string, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			w, err := v.CreateNote(owner, CreateArgs{Project: "acme/platform", Path: "load", Body: fmt.Sprintf("# Load note %d\n\nbody %d", i, i)})
			if err != nil {
				t.Errorf("create %d: %v", i, err)
				return
			}
			ids[i] = w.ID
		}(i)
	}
	wg.Wait()
	if got := atoi(commitCount(t, dir)); got != before+50 {
		t.Fatalf("want %d commits, have %d", before+50, got)
	}
	for i, id := range ids {
		n, err := v.GetNote(owner, id, false, "")
		if err != nil || n.Title != fmt.Sprintf("Load note %d", i) {
			t.Fatalf("note %d: %v", i, err)
		}
	}
	cleanAndSound(t, dir)
}

func TestBadInputChangesNothing(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	n, _ := v.GetNote(owner, "[[Pricing]]", false, "")
	big := "# Big\n" + strings.Repeat("x", 10<<20)
	cases := []struct {
		name, arg string
		run       func() error
	}{
		{"missing H1", "body", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "no title here"})
			return err
		}},
		{"H2 only", "body", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "## Not a title"})
			return err
		}},
		{"frontmatter in body", "body", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "---\nid: x\n---\n# T"})
			return err
		}},
		{"10 MB body", "body", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: big})
			return err
		}},
		{"invalid UTF-8", "body", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "# T\n\xff\xfe"})
			return err
		}},
		{"path traversal", "path", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Path: "../../etc", Body: "# T"})
			return err
		}},
		{"into .git", "path", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Path: ".git/hooks", Body: "# T"})
			return err
		}},
		{"into people", "path", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Path: "people/owner", Body: "# T"})
			return err
		}},
		{"unknown project", "project", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "nope/nope", Body: "# T"})
			return err
		}},
		{"duplicate title", "body", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Pricing\n\nagain"})
			return err
		}},
		{"bad tag", "tags", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "# T", Tags: []string{"two words"}})
			return err
		}},
		{"link to unknown note", "links[0].to", func() error {
			_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "# T", Links: []LinkSpec{{Type: "depends_on", To: "No such note"}}})
			return err
		}},
		{"unknown ref", "ref", func() error {
			_, err := v.GetNote(owner, "No such note at all", false, "")
			return err
		}},
		{"bad operation", "operation", func() error {
			_, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: "rewrite", Content: str("x")})
			return err
		}},
		{"findReplace not unique", "find", func() error {
			_, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpFindReplace, Find: "e", Content: str("x")})
			return err
		}},
		{"title change by edit", "content", func() error {
			_, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpReplace, Content: str("# Other\n")})
			return err
		}},
		{"missing section", "heading", func() error {
			_, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpReplaceSection, Heading: "Nope", Content: str("x")})
			return err
		}},
		{"bad token", "versionToken", func() error {
			_, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: "abc", Operation: OpAppend, Content: str("x")})
			return err
		}},
		{"bad revision", "revision", func() error {
			_, err := v.GetNote(owner, n.ID, false, "zz")
			return err
		}},
		{"list outside project", "path", func() error {
			_, err := v.ListNotes(owner, ListArgs{Project: "acme/launch", Path: "../infra"})
			return err
		}},
		{"list people", "path", func() error {
			_, err := v.ListNotes(owner, ListArgs{Path: "people/owner"})
			return err
		}},
	}
	for _, c := range cases {
		err := c.run()
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != c.arg {
			t.Errorf("%s: want an error naming %q, got %v", c.name, c.arg, err)
		}
	}
	unchanged(t, dir, head)
}

func TestSymlinkOutOfVaultIsRefused(t *testing.T) {
	v, dir := sampleVault(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "acme", "escape")); err != nil {
		t.Skip("symlinks unsupported here:", err)
	}
	_, err := v.CreateNote(owner, CreateArgs{Project: "acme", Path: "escape", Body: "# Out"})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "path" {
		t.Fatalf("want a path error, got %v", err)
	}
	if items, _ := os.ReadDir(outside); len(items) != 0 {
		t.Fatal("a file was written outside the vault")
	}
}
