package vault

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
