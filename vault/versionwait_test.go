package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
)

// A fresh clone's version map is built from its history in the
// background (minutes at 100,000 commits). A call that needs it waits for
// it, holding no lock meanwhile, and a read asks git for its note's
// version alone: a search and a get_note answer while one waits (issue
// 34: a search waited in gitstore's Head for the store's lock, which the
// watcher's first stray scan held while it waited for the build). The
// build is held before it reads anything until the search has answered.
func TestASearchAndAReadAnswerWhileTheVersionMapIsBuilt(t *testing.T) {
	v, dir := sampleVault(t)
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme/platform", Body: "# Heath survey\n\nThe sundew patch by the old quarry spreads.\n"})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	// A fresh clone: no version map saved, no search index.
	for _, p := range []string{filepath.Join(dir, CacheDir, "versions.json"), v.index.Dir()} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	gate, waiting := make(chan struct{}), make(chan struct{})
	var waitOnce, letOnce sync.Once
	let := func() { letOnce.Do(func() { close(gate) }) }
	restore := gitstore.HoldVersionBuilds(func() { <-gate }, func() { waitOnce.Do(func() { close(waiting) }) })
	defer restore()
	defer let()

	opened := make(chan *Vault, 1)
	go func() {
		v2, err := Open(dir, Options{Exclusive: true, Quiet: testQuiet, AnswerDuringBuild: true, OpenIndex: true})
		if err != nil {
			t.Error(err)
		}
		opened <- v2
	}()
	var v2 *Vault
	select {
	case v2 = <-opened:
	case <-time.After(time.Minute): // bounds a failure only
		t.Fatal("the open waited for the version map")
	}
	if v2 == nil {
		return
	}
	defer v2.Close()
	// The watcher's stray scan, waiting for the map.
	strays := make(chan error, 1)
	go func() {
		_, err := v2.Uncommitted()
		strays <- err
	}()
	select {
	case <-waiting:
	case <-time.After(time.Minute):
		t.Fatal("nothing waits for the version map")
	}
	type answer struct {
		r   *SearchResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		r, err := v2.Search(context.Background(), owner, SearchArgs{Query: "sundew quarry"})
		answered <- answer{r, err}
	}()
	var r *SearchResult
	select {
	case a := <-answered:
		if a.err != nil {
			t.Fatalf("a search while the version map is built: %v", a.err)
		}
		r = a.r
	case <-time.After(time.Minute): // bounds a failure only
		let()
		t.Fatal("the search waited for the version map")
	}
	if got := resultPaths(r); !slices.Contains(got, w.Path) {
		t.Errorf("the search found %v, not %s", got, w.Path)
	}
	// A read too: git is asked for the note's version alone.
	type read struct {
		view *NoteView
		err  error
	}
	got := make(chan read, 1)
	go func() {
		view, err := v2.GetNote(owner, w.Path, true, "")
		got <- read{view, err}
	}()
	select {
	case rd := <-got:
		if rd.err != nil {
			t.Fatalf("get_note while the version map is built: %v", rd.err)
		}
		if rd.view.VersionToken != w.VersionToken || !strings.Contains(rd.view.Content, "sundew") {
			t.Errorf("get_note while the version map is built: token %q (want %q), body %q", rd.view.VersionToken, w.VersionToken, rd.view.Content)
		}
	case <-time.After(time.Minute): // bounds a failure only
		let()
		t.Fatal("get_note waited for the version map")
	}
	select {
	case err := <-strays:
		t.Fatalf("the stray scan ended (%v) before the version map was built", err)
	default:
	}
	let()
	if err := <-strays; err != nil {
		t.Fatalf("the stray scan, once the map is built: %v", err)
	}
}

// Writes answer too while the map is built: an edit checks its token
// against the note's version, asked of git alone, refuses a stale one, and
// a new note is created; once the map is built, every token is the one
// the writes answered.
func TestWritesAnswerWhileTheVersionMapIsBuilt(t *testing.T) {
	v, dir := sampleVault(t)
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme/platform", Body: "# Heath survey\n\nThe sundew patch by the old quarry spreads.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	// A fresh clone: no version map saved.
	if err := os.RemoveAll(filepath.Join(dir, CacheDir, "versions.json")); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	var letOnce sync.Once
	let := func() { letOnce.Do(func() { close(gate) }) }
	var builds atomic.Int32
	restore := gitstore.HoldVersionBuilds(func() { builds.Add(1); <-gate }, nil)
	defer restore()
	defer let()
	v2, err := Open(dir, Options{Exclusive: true, Quiet: testQuiet, AnswerDuringBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()

	type result struct {
		edited, created *Written
		stale           error
		err             error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { done <- r }()
		appended := "\nThe patch reached the path.\n"
		if r.edited, r.err = v2.EditNote(owner, EditArgs{Ref: w.Path, VersionToken: w.VersionToken, Operation: "append", Content: &appended}); r.err != nil {
			return
		}
		_, r.stale = v2.EditNote(owner, EditArgs{Ref: w.Path, VersionToken: w.VersionToken, Operation: "append", Content: &appended})
		r.created, r.err = v2.CreateNote(owner, CreateArgs{Project: "acme/platform", Body: "# Quarry pond\n\nNewts in the pond.\n"})
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // bounds a failure only
		let()
		t.Fatal("a write waited for the version map")
	}
	if r.err != nil {
		t.Fatalf("writes while the version map is built: %v", r.err)
	}
	if builds.Load() == 0 {
		t.Fatal("the open built no version map: the writes did not run beside a build")
	}
	var ce *ConflictError
	if !errors.As(r.stale, &ce) || ce.Current != r.edited.VersionToken {
		t.Errorf("an edit with a stale token while the map is built: %v, want a conflict naming %s", r.stale, r.edited.VersionToken)
	}
	let()
	for _, wr := range []*Written{r.edited, r.created} {
		view, err := v2.GetNote(owner, wr.Path, true, "")
		if err != nil {
			t.Fatal(err)
		}
		if view.VersionToken != wr.VersionToken {
			t.Errorf("%s once the map is built: token %s, the write answered %s", wr.Path, view.VersionToken, wr.VersionToken)
		}
	}
	if got := gitOut(t, dir, "log", "-1", "--format=%H", "--", r.edited.Path); got != r.edited.VersionToken {
		t.Errorf("git log -1 says %s's version is %s, the edit answered %s", r.edited.Path, got, r.edited.VersionToken)
	}
}
