package vault

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/indexing"
)

// In a server (AnswerDuringBuild), a search asked while the first build of
// the index runs (a fresh clone, a deleted cache) answers at once from the
// notes indexed so far and the others read from disk, and says how many of
// the caller's notes are not indexed yet; once the build is done, answers
// say nothing.
func TestSearchDuringFirstBuildAnswersFromWhatIsIndexed(t *testing.T) {
	// early: the index's open begins inside Open, beside the catalog's
	// load (Options.OpenIndex, as `cairn serve` opens); the rescan that
	// ends the load must not start the build without its progress.
	for _, early := range []bool{false, true} {
		t.Run(map[bool]string{false: "opened after", true: "opened beside the catalog"}[early], func(t *testing.T) {
			searchDuringFirstBuild(t, early)
		})
	}
}

func searchDuringFirstBuild(t *testing.T, early bool) {
	v, dir := sampleVault(t)
	v.Close()
	if err := os.RemoveAll(v.index.Dir()); err != nil {
		t.Fatal(err)
	}
	step := indexing.Step
	indexing.Step = 10
	held, release := make(chan int, 1), make(chan struct{})
	var once, let sync.Once
	indexing.TestHooks.Build = func(done, total int) {
		if done >= 20 {
			once.Do(func() {
				held <- total
				<-release
			})
		}
	}
	v2, err := Open(dir, Options{Quiet: testQuiet, AnswerDuringBuild: true, Exclusive: early, OpenIndex: early})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		let.Do(func() { close(release) })
		v2.Close()
		indexing.TestHooks.Build, indexing.Step = nil, step
	})
	go v2.SearchIndex() // as `cairn serve` starts it
	var total int
	select {
	case total = <-held:
	case <-time.After(2 * time.Minute):
		t.Fatal("the first build never reached its third step")
	}
	b := v2.index.Building()
	indexed := b.Todo[:20]

	// Bounded: a search that waited for the held build would fail here
	// instead of hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := v2.Search(ctx, owner, SearchArgs{Query: "the", Mode: "lexical", Limit: 50})
	if err != nil {
		t.Fatalf("a search during the build must answer from what is indexed: %v", err)
	}
	if !strings.Contains(r.Notice, "still being built") || r.IndexPending == 0 || r.IndexPending > total-20 {
		t.Errorf("notice %q, indexPending %d (of %d, 20 indexed): want the build said", r.Notice, r.IndexPending, total)
	}
	// Both the notes indexed and those not yet, read from disk instead
	// (scan.go), are found.
	fromIndex, read := 0, 0
	for _, h := range r.Results {
		if slices.Contains(indexed, h.Path) {
			fromIndex++
		} else {
			read++
		}
	}
	if fromIndex == 0 || read == 0 || !strings.Contains(r.Notice, "were read instead") {
		t.Errorf("%d results indexed, %d read (notice %q): want both", fromIndex, read, r.Notice)
	}

	let.Do(func() { close(release) })
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	r = searchT(t, v2, owner, SearchArgs{Query: "rollback", Mode: "lexical"})
	if r.Notice != "" || r.IndexPending != 0 || len(r.Results) == 0 {
		t.Errorf("after the build: notice %q, indexPending %d, %d results", r.Notice, r.IndexPending, len(r.Results))
	}
}

// A search made before a first build from nothing has listed the notes it
// indexes (0.2-0.3 s of a 100,000-note fresh clone's first answer) does
// not wait for the list: every note is unindexed then, and it reads them.
func TestSearchBeforeTheFirstBuildListsItsNotes(t *testing.T) {
	v, dir := sampleVault(t)
	all := len(v.catalog.paths())
	v.Close()
	if err := os.RemoveAll(v.index.Dir()); err != nil {
		t.Fatal(err)
	}
	step := indexing.Step
	indexing.Step = 10 // a build of one step is waited for
	held, release := make(chan struct{}), make(chan struct{})
	var once, let sync.Once
	indexing.TestHooks.Listing = func() {
		once.Do(func() {
			close(held)
			<-release
		})
	}
	v2, err := Open(dir, Options{Quiet: testQuiet, AnswerDuringBuild: true, Exclusive: true, OpenIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		let.Do(func() { close(release) })
		v2.Close()
		indexing.TestHooks.Listing, indexing.Step = nil, step
	})
	select {
	case <-held:
	case <-time.After(2 * time.Minute):
		t.Fatal("the index's open never came to its listing")
	}
	// Bounded: a search that waited for the held listing fails here
	// instead of hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := v2.Search(ctx, owner, SearchArgs{Query: "rollback", Mode: "lexical"})
	if err != nil {
		t.Fatalf("a search before the build's list must read the notes: %v", err)
	}
	// Every note the caller may read is pending, and was read.
	said := fmt.Sprintf("%d of your notes are not in it yet (indexPending); %[1]d not indexed were read instead", r.IndexPending)
	if len(r.Results) == 0 || r.IndexPending == 0 || r.IndexPending > all || !strings.Contains(r.Notice, said) {
		t.Errorf("%d results, indexPending %d of %d notes, notice %q: want every note pending and read", len(r.Results), r.IndexPending, all, r.Notice)
	}
	let.Do(func() { close(release) })
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
}
