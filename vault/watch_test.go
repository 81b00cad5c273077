package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// waitFor polls cond until it holds or the deadline passes (no timing is
// asserted: the deadline only bounds a failing test).
// watchT starts v's watcher with o, its errors logged, until the test
// ends, and returns once it watches.
func watchT(t *testing.T, v *Vault, o WatchOptions) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan struct{})
	o.Ready = ready
	o.Report = func(err error) { t.Log("watch:", err) }
	go v.Watch(ctx, o)
	<-ready
}

func TestWatcherIndexesAndCommitsEditsMadeByHand(t *testing.T) {
	v, dir := sampleVault(t)
	if _, err := v.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	watchT(t, v, WatchOptions{Debounce: 50 * time.Millisecond, Quiet: 300 * time.Millisecond})

	// An atomic save (temp file + rename), as most editors do.
	tmp := filepath.Join(dir, "acme/launch/.Hand note.md.swp")
	os.WriteFile(tmp, []byte("# Hand note\n\nTyped in an editor.\n"), 0o644)
	os.Rename(tmp, filepath.Join(dir, "acme/launch/Hand note.md"))
	// mkdir -p and an immediate write.
	os.MkdirAll(filepath.Join(dir, "acme/launch/new/deeper"), 0o755)
	os.WriteFile(filepath.Join(dir, "acme/launch/new/deeper/Deep note.md"), []byte("# Deep note\n\nSee [[Hand note]].\n"), 0o644)
	// An in-place edit of an existing note.
	p := filepath.Join(dir, "acme/launch/Pricing.md")
	os.WriteFile(p, []byte(readFile(t, p)+"\nEdited in place.\n"), 0o644)

	for _, path := range []string{"acme/launch/Hand note.md", "acme/launch/new/deeper/Deep note.md", "acme/launch/Pricing.md"} {
		// Indexed by the watcher itself: no search has asked for it.
		testwait.Until(t, path+" in the catalog and the search index", func() bool { return v.Indexed(path) })
	}
	for q, want := range map[string]string{"typed editor": "acme/launch/Hand note.md", "edited in place": "acme/launch/Pricing.md"} {
		r := searchT(t, v, owner, SearchArgs{Query: q, Mode: "lexical"})
		if len(r.Results) == 0 || r.Results[0].Path != want {
			t.Errorf("%q: got %v, want %s first", q, resultPaths(r), want)
		}
	}
	testwait.Until(t, "the hand edits committed", func() bool {
		return gitOut(t, dir, "status", "--porcelain") == ""
	})
	log := gitOut(t, dir, "log", "--format=%s|%(trailers:key=Cairn-Actor,valueonly,separator=)", "-3")
	if !strings.Contains(log, "Edit by hand") || !strings.Contains(log, "|human") {
		t.Fatalf("log:\n%s", log)
	}
	// The link from the deep note resolves to the hand note.
	deep, err := v.GetNote(owner, "[[Deep note]]", true, "")
	if err != nil || len(deep.Links.Outgoing) != 1 || deep.Links.Outgoing[0].To == nil || deep.Links.Outgoing[0].To.Title != "Hand note" {
		t.Fatalf("deep note links: %+v %v", deep, err)
	}
	// The server's own writes never come back as human edits.
	before := gitOut(t, dir, "rev-list", "--count", "HEAD")
	if _, err := v.CreateNote(owner, CreateArgs{Project: "acme", Body: "# By the agent\n"}); err != nil {
		t.Fatal(err)
	}
	// What the watcher would act on is what a reconcile finds: nothing,
	// since the vault knows the file as its own write.
	if changed, err := v.Reconcile(); err != nil || len(changed) != 0 {
		t.Fatalf("the agent's write looks like an edit by hand: %v %v", changed, err)
	}
	if got := gitOut(t, dir, "rev-list", "--count", "HEAD"); got != strconv.Itoa(atoi(before)+1) {
		t.Fatalf("an agent write came back as a human edit: %s commits after %s", got, before)
	}
	// A deletion by hand is committed as one.
	os.Remove(filepath.Join(dir, "acme/launch/Hand note.md"))
	testwait.Until(t, "the deletion committed", func() bool { return gitOut(t, dir, "status", "--porcelain") == "" })
	fsck(t, dir)
}

func TestWatcherFollowsEditorDancesRenamesAndBursts(t *testing.T) {
	v, dir := sampleVault(t)
	watchT(t, v, WatchOptions{Debounce: 50 * time.Millisecond, Quiet: 200 * time.Millisecond})
	clean := func(what string) {
		testwait.Until(t, what, func() bool { return gitOut(t, dir, "status", "--porcelain") == "" })
	}
	// vim: the original renamed to a backup, the new content written, the backup removed.
	p := filepath.Join(dir, "acme/launch/Pricing.md")
	data := readFile(t, p)
	os.Rename(p, p+"~")
	os.WriteFile(p, []byte(data+"\nSaved by vim.\n"), 0o644)
	os.Remove(p + "~")
	clean("vim's save committed")
	if !strings.Contains(gitOut(t, dir, "show", "HEAD:acme/launch/Pricing.md"), "Saved by vim.") {
		t.Fatal("vim's save is not in HEAD")
	}
	// A note renamed in a file manager: one commit, a rename, still resolvable.
	os.Rename(filepath.Join(dir, "acme/launch/Launch plan.md"), filepath.Join(dir, "acme/launch/specs/Launch plan.md"))
	clean("the rename committed")
	if st := gitOut(t, dir, "show", "--name-status", "--format=", "HEAD"); !strings.HasPrefix(st, "R") {
		t.Fatalf("not committed as a rename:\n%s", st)
	}
	testwait.Until(t, "the renamed note indexed", func() bool { return v.Indexed("acme/launch/specs/Launch plan.md") })
	// A folder renamed.
	os.Rename(filepath.Join(dir, "acme/launch/meetings"), filepath.Join(dir, "acme/launch/réunions"))
	clean("the folder rename committed")
	testwait.Until(t, "the folder's notes indexed at their new paths", func() bool {
		return v.Indexed("acme/launch/réunions/Weekly sync 2026-10-06.md") && !v.Indexed("acme/launch/meetings/Weekly sync 2026-10-06.md")
	})
	// A burst: 300 notes unpacked at once.
	before := gitOut(t, dir, "rev-parse", "HEAD")
	for i := 0; i < 300; i++ {
		f := filepath.Join(dir, "acme/launch/import", fmt.Sprintf("batch %d", i%10))
		os.MkdirAll(f, 0o755)
		os.WriteFile(filepath.Join(f, fmt.Sprintf("Imported %03d.md", i)), []byte(fmt.Sprintf("# Imported %03d\n", i)), 0o644)
	}
	clean("the burst committed")
	// How many commits the burst takes depends on scheduling (a loaded
	// machine sees the files arrive in several quiet periods); what must
	// hold is that every note is in HEAD, committed as the human's.
	if n := len(strings.Split(gitOut(t, dir, "ls-tree", "-r", "--name-only", "HEAD", "acme/launch/import"), "\n")); n != 300 {
		t.Fatalf("%d of the 300 imported notes are in HEAD", n)
	}
	for _, actor := range strings.Fields(gitOut(t, dir, "log", "--format=%(trailers:key=Cairn-Actor,valueonly)", before+"..HEAD")) {
		if actor != "human" {
			t.Fatalf("a burst commit is not the human's: Cairn-Actor %q", actor)
		}
	}
	for i := 0; i < 300; i++ {
		if !v.Indexed(fmt.Sprintf("acme/launch/import/batch %d/Imported %03d.md", i%10, i)) {
			t.Fatalf("imported note %d not indexed", i)
		}
	}
	fsck(t, dir)
}

// A project marker written or removed by hand (a dotfile, which the
// watcher passes over otherwise) changes the projects at once, not at the
// next rescan: the reconcile is put out of reach here.
func TestWatcherSeesAProjectMarkerWrittenByHand(t *testing.T) {
	v, dir := sampleVault(t)
	watchT(t, v, WatchOptions{Debounce: 20 * time.Millisecond, Quiet: testQuiet, Reconcile: time.Hour})
	marker := filepath.Join(dir, "acme/launch/research", ProjectMarker)
	os.MkdirAll(filepath.Dir(marker), 0o755)
	os.WriteFile(marker, []byte("handle: acme/research\nname: Research\n"), 0o644)
	testwait.Until(t, "the new project", func() bool { return v.projectSet().byHandle["acme/research"] != nil })
	os.Remove(marker)
	testwait.Until(t, "the project gone", func() bool { return v.projectSet().byHandle["acme/research"] == nil })
}

// A folder of notes replaced by a file of the same name (rm -r, then a
// file written where it was): its notes are gone, and their deletions are
// committed. Their paths now fail with "not a directory", not "no such
// file", and were once taken for unreadable notes and left uncommitted.
func TestWatcherCommitsAFolderReplacedByAFile(t *testing.T) {
	v, dir := sampleVault(t)
	watchT(t, v, WatchOptions{Debounce: 50 * time.Millisecond, Quiet: 300 * time.Millisecond})

	folder := filepath.Join(dir, "acme/launch/specs")
	had := strings.Split(gitOut(t, dir, "-c", "core.quotePath=false", "ls-tree", "-r", "--name-only", "HEAD", "acme/launch/specs/"), "\n")
	if len(had) < 2 || !v.Indexed(had[0]) {
		t.Fatalf("the sample vault's notes under acme/launch/specs: %q", had)
	}
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(folder, []byte("specs moved to the wiki\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The whole outcome, waited for: HEAD moves before the git index and
	// the catalog follow (a commit's steps 8 to 10), which a loaded
	// machine can make visible.
	left := func() []string {
		var out []string
		for _, p := range had {
			if v.Indexed(p) {
				out = append(out, p+" is still in the catalog or the index")
			}
		}
		for _, line := range strings.Split(gitOut(t, dir, "-c", "core.quotePath=false", "status", "--porcelain"), "\n") {
			if strings.Contains(line, "acme/launch/specs/") {
				out = append(out, "left uncommitted: "+line)
			}
		}
		if gitOut(t, dir, "ls-tree", "-r", "--name-only", "HEAD", "acme/launch/specs/") != "" {
			out = append(out, "HEAD still holds acme/launch/specs/")
		}
		return out
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(left()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, l := range left() {
		t.Error(l)
	}
}
