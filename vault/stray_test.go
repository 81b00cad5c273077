package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// An editor that writes a file in two steps with a pause between: an agent
// reading or writing the note during the pause neither commits half the
// save nor replaces the file, and the person's whole save ends up in the
// file and in the history.
func TestASaveInProgressIsNeitherCommittedHalfNorOverwritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	// A quiet period far longer than the editor's pause (100 ms), so the
	// outcome does not depend on how the machine schedules the test.
	v, err := Open(dir, Options{Quiet: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	before, err := v.GetNote(owner, "[[Pricing]]", false, "")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "acme/launch/Pricing.md")
	full := readFile(t, file) + "\nFirst half of the person's save, "
	rest := "and the second half.\n"

	f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(full)
	var wg sync.WaitGroup
	var read *NoteView
	var readErr, editErr error
	started := make(chan bool, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		started <- true
		read, readErr = v.GetNote(owner, "[[Pricing]]", false, "")
	}()
	go func() {
		defer wg.Done()
		started <- true
		content := "\nThe agent's line.\n"
		_, editErr = v.EditNote(owner, EditArgs{Ref: "[[Pricing]]", VersionToken: before.VersionToken, Operation: "append", Content: &content})
	}()
	<-started
	<-started
	time.Sleep(300 * time.Millisecond) // the editor's pause, with both calls under way
	f.WriteString(rest)
	f.Close()
	wg.Wait()

	want := full + rest
	if readErr != nil || !strings.HasSuffix(want, read.Content) {
		t.Fatalf("get_note during the save: %v\n%q", readErr, read.Content)
	}
	var ce *ConflictError
	if !errors.As(editErr, &ce) || ce.Current != read.VersionToken {
		t.Fatalf("edit_note with the token from before the save: %v (want a versionConflict naming %s)", editErr, read.VersionToken)
	}
	if got := readFile(t, file); got != want {
		t.Fatalf("the file is not the person's whole save:\n%q", got)
	}
	if got := gitOut(t, dir, "show", "HEAD:acme/launch/Pricing.md"); got != strings.TrimRight(want, "\n") {
		t.Fatalf("HEAD is not the person's whole save:\n%q\nwant\n%q", got, want)
	}
	if who := gitOut(t, dir, "log", "-1", "--format=%(trailers:key=Cairn-Actor,valueonly)"); who != "human" {
		t.Fatalf("the save was committed as %q", who)
	}
	cleanAndSound(t, dir)
}

// A note that keeps changing past the quiet period and the grace after it
// gets BusyError, and nothing is written.
func TestANoteThatKeepsChangingIsBusy(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	before, err := v.GetNote(owner, "[[Pricing]]", false, "")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "acme/launch/Pricing.md")
	os.WriteFile(p, []byte(before.Content+"\nBeing typed"), 0o644)
	// Its time says it changed a moment from now: it is never quiet
	// within the wait (a deterministic stand-in for a file written again
	// and again).
	soon := time.Now().Add(30 * time.Second)
	os.Chtimes(p, soon, soon)
	content := "x"
	_, err = v.EditNote(owner, EditArgs{Ref: "[[Pricing]]", VersionToken: before.VersionToken, Operation: "append", Content: &content})
	var be *BusyError
	if !errors.As(err, &be) || be.Path != "acme/launch/Pricing.md" {
		t.Fatalf("edit of a note being saved: %v", err)
	}
	if _, err := v.GetNote(owner, "[[Pricing]]", false, ""); !errors.As(err, &be) {
		t.Fatalf("get_note of a note being saved: %v", err)
	}
	if now := gitOut(t, dir, "rev-parse", "HEAD"); now != head {
		t.Fatal("a commit was made")
	}
	if got := readFile(t, p); got != before.Content+"\nBeing typed" {
		t.Fatalf("the file was changed: %q", got)
	}
}

// Edits made while no server ran are committed when one starts, as the
// person's, without any agent touching the notes.
func TestEditsMadeWhileStoppedAreCommittedAtStart(t *testing.T) {
	v, dir := sampleVault(t)
	v.Close()
	past := time.Now().Add(-time.Minute)
	edit := func(rel, content string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, past, past)
	}
	edit("acme/launch/Pricing.md", "# Pricing\n\nChanged while cairn was stopped.\n")
	edit("acme/launch/Written offline.md", "# Written offline\n")
	os.Remove(filepath.Join(dir, "acme/launch/Launch plan.md"))

	v2, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go v2.Watch(ctx, WatchOptions{Report: func(err error) { t.Log("watch:", err) }})
	testwait.Until(t, "the offline edits committed", func() bool { return gitOut(t, dir, "status", "--porcelain") == "" })
	log := gitOut(t, dir, "log", "-1", "--name-status", "--format=%(trailers:key=Cairn-Actor,valueonly)")
	for _, want := range []string{"human", "M\tacme/launch/Pricing.md", "A\tacme/launch/Written offline.md", "D\tacme/launch/Launch plan.md"} {
		if !strings.Contains(log, want) {
			t.Fatalf("the start-up commit lacks %q:\n%s", want, log)
		}
	}
	fsck(t, dir)
}

// Without a watcher (serve --no-watch), CommitStrayEdits does the same
// once, and leaves a note saved a moment ago for later.
func TestCommitStrayEditsLeavesASaveInProgress(t *testing.T) {
	v, dir := sampleVault(t)
	past := time.Now().Add(-time.Minute)
	old := filepath.Join(dir, "acme/launch/Pricing.md")
	os.WriteFile(old, []byte("# Pricing\n\nOld edit.\n"), 0o644)
	os.Chtimes(old, past, past)
	fresh := filepath.Join(dir, "acme/launch/Launch plan.md")
	os.WriteFile(fresh, []byte("# Launch plan\n\nBeing saved.\n"), 0o644)
	soon := time.Now().Add(30 * time.Second) // never quiet during the test
	os.Chtimes(fresh, soon, soon)
	committed, settling, err := v.CommitStrayEdits()
	if err != nil || strings.Join(committed, ",") != "acme/launch/Pricing.md" || strings.Join(settling, ",") != "acme/launch/Launch plan.md" {
		t.Fatalf("committed %v, settling %v, %v", committed, settling, err)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); st != `M "acme/launch/Launch plan.md"` {
		t.Fatalf("status: %q", st)
	}
}
