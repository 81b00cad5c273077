package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
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

// openHeld opens the sample vault with its search index removed, as a
// fresh clone's first open, and holds the index's open at the test hook
// *hook (what: where that is) until release is called; it returns once
// the open is held there, with the number of notes.
func openHeld(t *testing.T, opts Options, hook *func(), what string) (v2 *Vault, all int, release func()) {
	t.Helper()
	v, dir := sampleVault(t)
	all = len(v.catalog.paths())
	v.Close()
	if err := os.RemoveAll(v.index.Dir()); err != nil {
		t.Fatal(err)
	}
	held, let := make(chan struct{}), make(chan struct{})
	var once, letOnce sync.Once
	*hook = func() {
		once.Do(func() {
			close(held)
			<-let
		})
	}
	release = func() { letOnce.Do(func() { close(let) }) }
	v2, err := Open(dir, opts)
	if err != nil {
		*hook = nil
		t.Fatal(err)
	}
	t.Cleanup(func() {
		release()
		v2.Close()
		*hook = nil
	})
	go v2.SearchIndex() // opens the index, if the vault's open has not
	select {
	case <-held:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the index's open never came to %s", what)
	}
	return v2, all, release
}

// A search made before a first build from nothing has listed the notes it
// indexes (0.2-0.3 s of a 100,000-note fresh clone's first answer) does
// not wait for the list: every note is unindexed then, and it reads them.
func TestSearchBeforeTheFirstBuildListsItsNotes(t *testing.T) {
	step := indexing.Step
	indexing.Step = 10 // a build of one step is waited for
	t.Cleanup(func() { indexing.Step = step })
	v2, all, release := openHeld(t, Options{Quiet: testQuiet, AnswerDuringBuild: true, Exclusive: true, OpenIndex: true},
		&indexing.TestHooks.Listing, "its listing")
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
	release()
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
}

// A sync asked for while the index's open has not made its first build
// known yet (the walk that ends a vault's open asks for one: Soon) does
// nothing: the open's own full sync, which follows, lists the notes once
// the searches waiting have gone first. Run then, it listed every note of
// a fresh clone beside the open and its first search, and built the index
// without the build's bookkeeping.
func TestASyncBeforeTheBuildIsKnownLeavesItToTheOpen(t *testing.T) {
	step := indexing.Step
	indexing.Step = 10
	var steps atomic.Int64
	indexing.TestHooks.Build = func(done, total int) { steps.Add(1) }
	t.Cleanup(func() { indexing.TestHooks.Build, indexing.Step = nil, step })
	v2, all, release := openHeld(t, Options{Quiet: testQuiet, AnswerDuringBuild: true},
		&indexing.TestHooks.Publishing, "make its build known")
	done := make(chan error, 1)
	go func() { done <- v2.index.Sync(false) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the sync: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the sync waited for the open")
	}
	if n := steps.Load(); n != 0 {
		t.Fatalf("the sync ran %d steps of the build before the open made it known", n)
	}
	release()
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	n := steps.Load()
	r := searchT(t, v2, owner, SearchArgs{Query: "rollback", Mode: "lexical"})
	if n == 0 || r.IndexPending != 0 || len(r.Results) == 0 || r.Notice != "" {
		t.Errorf("after the open: %d steps for %d notes, %d results, indexPending %d, notice %q", n, all, len(r.Results), r.IndexPending, r.Notice)
	}
}

// A build's end lets the searches waiting for it go before it saves what
// it built: the manifest and vectors of 100,000 notes took 1.2 s to
// write, which the search that met the build's end waited for.
func TestTheBuildsEndLetsSearchesGoBeforeItsSave(t *testing.T) {
	v2, _, release := openHeld(t, Options{Quiet: testQuiet, AnswerDuringBuild: true},
		&indexing.TestHooks.Persisting, "its save")
	dir := v2.Root()
	// Bounded: a search that waits for the held save fails here instead
	// of hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := v2.Search(ctx, owner, SearchArgs{Query: "rollback", Mode: "lexical"})
	if err != nil {
		t.Fatalf("a search while the built index is saved: %v", err)
	}
	if len(r.Results) == 0 || r.IndexPending != 0 || r.Notice != "" {
		t.Errorf("%d results, indexPending %d, notice %q: want a complete answer from the built index", len(r.Results), r.IndexPending, r.Notice)
	}
	release()
	if err := v2.Close(); err != nil {
		t.Fatal(err)
	}
	// Nothing built is lost: the next open finds the index whole.
	ix, err := reopen(t, dir).SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if why := ix.Rebuilt(); why != "" {
		t.Errorf("the next open rebuilt the index (%s): the save was lost", why)
	}
}

// The searches during a first build keep the text of the notes not indexed
// yet (indexing/scantexts.go), but a note written since a search read it
// is read again: the next search finds its new words; and a note deleted
// since is found no more.
func TestSearchDuringTheBuildReadsANoteWrittenSinceAgain(t *testing.T) {
	v, dir := sampleVault(t)
	v.Close()
	if err := os.RemoveAll(v.index.Dir()); err != nil {
		t.Fatal(err)
	}
	v2, _ := HoldFirstBuild(t, dir)
	b := v2.index.Building()
	if b == nil || len(b.Todo) == 0 {
		t.Fatal("no first build held")
	}
	p := b.Todo[len(b.Todo)-1] // held before its first step: not indexed
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	finds := func(query string) bool {
		t.Helper()
		r, err := v2.Search(ctx, owner, SearchArgs{Query: query, Mode: "lexical", Limit: 50})
		if err != nil {
			t.Fatalf("search %q during the build: %v", query, err)
		}
		if !strings.Contains(r.Notice, "were read instead") {
			t.Fatalf("search %q: notice %q, want the notes read from disk", query, r.Notice)
		}
		return slices.ContainsFunc(r.Results, func(h SearchHit) bool { return h.Path == p })
	}
	// A note read by a search, then deleted.
	gone := b.Todo[len(b.Todo)-2]
	doomed, err := v2.GetNote(owner, gone, false, "")
	if err != nil {
		t.Fatal(err)
	}
	found := func(query string) bool {
		t.Helper()
		r, err := v2.Search(ctx, owner, SearchArgs{Query: query, Mode: "lexical", Limit: 50})
		if err != nil {
			t.Fatalf("search %q during the build: %v", query, err)
		}
		return slices.ContainsFunc(r.Results, func(h SearchHit) bool { return h.Path == gone })
	}
	if !found(doomed.Title) {
		t.Fatalf("a search for its title %q does not find %s", doomed.Title, gone)
	}
	if _, err := v2.DeleteNote(owner, gone, doomed.VersionToken); err != nil {
		t.Fatal(err)
	}
	if found(doomed.Title) {
		t.Errorf("a search after %s was deleted still finds it", gone)
	}

	const word = "quokkaberry"
	if finds(word) {
		t.Fatalf("%s holds %q before it is written", p, word)
	}
	n, err := v2.GetNote(owner, p, false, "")
	if err != nil {
		t.Fatal(err)
	}
	more := "\nA " + word + " grows here.\n"
	if _, err := v2.EditNote(owner, EditArgs{Ref: p, VersionToken: n.VersionToken, Operation: "append", Content: &more}); err != nil {
		t.Fatal(err)
	}
	if !finds(word) {
		t.Errorf("a search after %s was written does not find its new word %q", p, word)
	}
}

// A first build lets a search answering from its index go first: on 2
// cores a step's analysis took a core from the search's scan, and the
// build's listing of the notes to index (0.3 s at 100,000 notes) took it
// from the first search. Held in the middle of its answer, the search
// keeps the build from going on until it is done: from its list, held
// before it, or from its next step, held at the second. A read asking git
// for its note's version while a fresh clone's version map builds goes
// first the same way (the oldest of 100,000 notes took 2-5 s to read
// beside the build, 1 s alone).
func TestTheFirstBuildLetsAnAnswerGoFirst(t *testing.T) {
	for _, at := range []int{-1, 10} {
		t.Run(map[int]string{-1: "before its list", 10: "before a step"}[at], func(t *testing.T) {
			answerGoesFirst(t, at, false)
		})
	}
	t.Run("a read asking git", func(t *testing.T) {
		answerGoesFirst(t, 10, true)
	})
}

// answerGoesFirst holds a first build before its list (at -1) or before
// the step at note at, holds a search there (or, read, a get_note asking
// git for its version, the version map held unbuilt), lets the build go
// on, and checks it waits for the call before its next step.
func answerGoesFirst(t *testing.T, at int, read bool) {
	v, dir := sampleVault(t)
	ref := "Decision CDN provider"
	want, err := v.GetNote(owner, ref, false, "")
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	gone := []string{v.index.Dir()}
	if read {
		gone = append(gone, filepath.Join(dir, CacheDir, "versions.json"))
	}
	for _, p := range gone {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	step, bound := indexing.Step, indexing.AnswerFirst
	indexing.Step, indexing.AnswerFirst = 10, time.Hour
	var mu sync.Mutex
	var events []string
	event := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	next := "step 0" // the step the build must not reach before the call ends
	if at >= 0 {
		next = fmt.Sprintf("step %d", at+indexing.Step)
	}
	held, goOn := make(chan struct{}), make(chan struct{})        // the build
	answering, answer := make(chan struct{}), make(chan struct{}) // the call
	yielding, past := make(chan struct{}), make(chan struct{})
	mapGate := make(chan struct{}) // the version map's build (read)
	var holdBuild, holdCall, yielded, passed, letBuild, letCall, letMap sync.Once
	hold := func() {
		holdBuild.Do(func() {
			close(held)
			<-goOn
		})
	}
	indexing.TestHooks.Build = func(done, total int) {
		e := fmt.Sprintf("step %d", done)
		event(e)
		if e == next {
			passed.Do(func() { close(past) })
		}
		if done == at {
			hold()
		}
	}
	if at < 0 {
		indexing.TestHooks.Listing = hold
	}
	holdAnswer := func() {
		holdCall.Do(func() {
			close(answering)
			<-answer
		})
	}
	restoreAsks, restoreMaps := func() {}, func() {}
	if read {
		restoreAsks = gitstore.HoldAsks(holdAnswer)
		restoreMaps = gitstore.HoldVersionBuilds(func() { <-mapGate }, nil)
	} else {
		indexing.TestHooks.Answering = holdAnswer
	}
	indexing.TestHooks.Yielding = func() {
		event("yield")
		yielded.Do(func() { close(yielding) })
	}
	release := func() {
		letBuild.Do(func() { close(goOn) })
		letCall.Do(func() { close(answer) })
		letMap.Do(func() { close(mapGate) })
	}
	v2, err := Open(dir, Options{Quiet: testQuiet, AnswerDuringBuild: true})
	if err != nil {
		release()
		restoreAsks()
		restoreMaps()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		release()
		v2.Close()
		restoreAsks()
		restoreMaps()
		indexing.TestHooks.Build, indexing.TestHooks.Listing = nil, nil
		indexing.TestHooks.Answering, indexing.TestHooks.Yielding = nil, nil
		indexing.Step, indexing.AnswerFirst = step, bound
	})
	go v2.SearchIndex()
	wait := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s never came", what)
		}
	}
	wait(held, "the build's hold")
	got := make(chan error, 1)
	go func() {
		if read {
			view, err := v2.GetNote(owner, ref, false, "")
			if err == nil && view.VersionToken != want.VersionToken {
				err = fmt.Errorf("versionToken %s, want %s", view.VersionToken, want.VersionToken)
			}
			got <- err
			return
		}
		r, err := v2.Search(context.Background(), owner, SearchArgs{Query: "rollback", Mode: "lexical"})
		if err == nil && !strings.Contains(r.Notice, "still being built") {
			err = fmt.Errorf("notice %q: want an answer from the build", r.Notice)
		}
		got <- err
	}()
	wait(answering, "the call")
	letBuild.Do(func() { close(goOn) })
	select {
	case <-yielding:
	case <-past:
		t.Fatalf("the build went on to its %s while a call was answered beside it", next)
	case <-time.After(2 * time.Minute):
		t.Fatal("the build never waited for the call")
	}
	event("call let go")
	letCall.Do(func() { close(answer) })
	if err := <-got; err != nil {
		t.Fatalf("the call during the build: %v", err)
	}
	letMap.Do(func() { close(mapGate) })
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	i, j := slices.Index(events, "call let go"), slices.Index(events, next)
	if i < 0 || j < i || !slices.Contains(events[:i], "yield") {
		t.Errorf("events %v: want the build to wait until the call is let go, then go on to its %s", events, next)
	}
}
