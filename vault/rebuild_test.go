package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/indexing"
)

// holdRebuild makes the next Rebuild stop after its first step (every
// note of the sample vault read and indexed in the new index) until the
// test calls let; however the test ends, the Rebuild is let go and
// waited for before the hook is removed.
func holdRebuild(t *testing.T, v *Vault) (held chan int, let func()) {
	held, release := make(chan int, 1), make(chan struct{})
	var first, once sync.Once
	indexing.TestHooks.Rebuild = func(done, total int) {
		first.Do(func() {
			held <- done
			<-release
		})
	}
	let = func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() {
		let()
		v.index.RebuildsDone() // the Rebuild has returned
		indexing.TestHooks.Rebuild = nil
	})
	return held, let
}

// within waits for c, failing the test after a long while: a hang
// check, not a timing.
func within[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case x := <-c:
		return x
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: still waiting after 2 minutes", what)
		var zero T
		return zero
	}
}

// progressLog records what a Rebuild tells its progress function.
type progressLog struct {
	mu    sync.Mutex
	calls []string
}

func (p *progressLog) tell(stage string, done, total int) {
	p.mu.Lock()
	p.calls = append(p.calls, fmt.Sprintf("%s %d/%d", stage, done, total))
	p.mu.Unlock()
}

// last is the last call of a stage ("" if none).
func (p *progressLog) last(stage string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.calls) - 1; i >= 0; i-- {
		if strings.HasPrefix(p.calls[i], stage+" ") {
			return p.calls[i]
		}
	}
	return ""
}

func createT(t *testing.T, v *Vault, path, body string, links []LinkSpec) *Written {
	t.Helper()
	w, err := v.CreateNote(owner, CreateArgs{Project: "acme", Path: path, Body: body, Links: links})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const rollback = "acme/infra/runbooks/Rollback runbook.md"

// A Rebuild of an index in use: searches keep answering from the live
// index while the new one is built, and writes go on. Once it returns,
// the new index holds every note at its version, the writes made during
// the build among them (created, edited, deleted, long, and the sequence
// neighbour whose context an edit changed).
func TestRebuildWhileSearchingAndWriting(t *testing.T) {
	v, dir := sampleVault(t)
	before, err := v.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	// A long question and its short reply: the reply's context holds the
	// start of the question. The build reads the reply in its first step
	// and the question (long) after it, so a change of the question in
	// between leaves the reply's context behind in the new index, with
	// both at their versions.
	question := func(first string) map[string]string {
		return map[string]string{"question": "# Turn 1\n\n" + first + "\n\n" + strings.Repeat("mango words ", 10000)}
	}
	writeByHand(t, v, dir, question("Which bakery supplies the croissants? markerlongbefore"))
	waitLaneT(t, v)
	reply := createT(t, v, "chat", "# Turn 2\n\nMaison Dufour, near the station.\n", []LinkSpec{{Type: "follows", To: "acme/question.md"}})
	edited := createT(t, v, "chat", "# Edited\n\nFirst version.\n", nil)
	doomed := createT(t, v, "tmp", "# Doomed\n\nmarkerdoomed\n", nil)

	notesBefore := v.NoteCount()
	held, let := holdRebuild(t, v)
	progress := &progressLog{}
	rebuilt := make(chan error, 1)
	go func() { rebuilt <- v.Rebuild(progress.tell) }()

	// Searches and writes all along, from other goroutines.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r, err := v.Search(context.Background(), owner, SearchArgs{Query: "rollback runbook", Mode: "lexical"})
				if err != nil || !slices.Contains(resultPaths(r), rollback) {
					errs <- fmt.Errorf("a search during the rebuild: %v, %v", resultPaths(r), err)
					return
				}
			}
		}()
	}
	var writtenMu sync.Mutex
	var written []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 40; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := v.CreateNote(owner, CreateArgs{Project: "acme", Path: "bg", Body: fmt.Sprintf("# Background %d\n\nmarkerbg%d\n", i, i)}); err != nil {
				errs <- fmt.Errorf("a write during the rebuild: %w", err)
				return
			}
			writtenMu.Lock()
			written = append(written, fmt.Sprintf("markerbg%d", i))
			writtenMu.Unlock()
		}
	}()

	// The new index has read every note; now they change under it.
	within(t, held, "the rebuild's first step")
	during := createT(t, v, "chat", "# During\n\nmarkerduring\n", nil)
	more := "markeredited"
	if _, err := v.EditNote(owner, EditArgs{Ref: edited.ID, VersionToken: edited.VersionToken, Operation: OpAppend, Content: &more}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.DeleteNote(owner, doomed.ID, doomed.VersionToken); err != nil {
		t.Fatal(err)
	}
	writeByHand(t, v, dir, question("Who brings the pastries?"))
	writeByHand(t, v, dir, map[string]string{"longduring": "# Long during\n\nmarkerlongduring\n\n" + strings.Repeat("guava words ", 10000)})
	// Meanwhile the live index answers, up to date with the writes.
	if !found(t, v, "markerduring", during.Path) || found(t, v, "markerdoomed", doomed.Path) {
		t.Fatal("during the build, the live index must answer with every write")
	}
	if v.index.Current() != before {
		t.Fatal("the live index was replaced before the new one was built")
	}
	let()
	if err := within(t, rebuilt, "the rebuild"); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	if v.index.Current() == before {
		t.Fatal("the index was not replaced")
	}
	searchT(t, v, owner, SearchArgs{Query: "anything"}) // indexes the last background writes
	waitLaneT(t, v)
	for _, p := range v.catalog.paths() {
		if !v.Indexed(p) {
			t.Errorf("%s is not in the new index at its version", p)
		}
	}
	for word, path := range map[string]string{"markerduring": during.Path, "markeredited": edited.Path, "markerlongduring": "acme/longduring.md"} {
		if !found(t, v, word, path) {
			t.Errorf("%s: %s not found after the rebuild", word, path)
		}
	}
	// By its own context (a lexical rank), not only by the share of its
	// neighbour's score that any reply gets.
	ownContext := false
	for _, h := range searchT(t, v, owner, SearchArgs{Query: "pastries", Mode: "lexical", Explain: true}).Results {
		ownContext = ownContext || h.Path == reply.Path && h.Lexical != nil
	}
	if !ownContext {
		t.Error("the reply's context in the new index misses its question's change made during the build")
	}
	if found(t, v, "markerdoomed", doomed.Path) {
		t.Error("a note deleted during the rebuild is still found")
	}
	writtenMu.Lock()
	for i, word := range written {
		// Found first, and nothing outside the notes written then.
		r := searchT(t, v, owner, SearchArgs{Query: word, Mode: "lexical"})
		got := resultPaths(r)
		if len(got) == 0 || got[0] != fmt.Sprintf("acme/bg/Background %d.md", i) {
			t.Errorf("%s, written during the rebuild: %v", word, got)
		}
		for _, p := range got {
			if !strings.HasPrefix(p, "acme/bg/Background ") {
				t.Errorf("%s, written during the rebuild, finds %s", word, p)
			}
		}
	}
	writtenMu.Unlock()
	var done, total int
	if _, err := fmt.Sscanf(progress.last("index"), "index %d/%d", &done, &total); err != nil || done != total || total < notesBefore {
		t.Errorf("progress: the last index step was %q; %d notes before the rebuild", progress.last("index"), notesBefore)
	}
	for _, suffix := range []string{indexing.RebuildSuffix, indexing.OldSuffix} {
		if _, err := os.Stat(v.index.Dir() + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind: %v", suffix, err)
		}
	}
}

// An index folder that cannot be opened makes every search fail until a
// Rebuild, which searches wait for (each as long as its context allows),
// and after which they work; the rebuilt index is saved whole (a restart
// finds it as it was), and a second Rebuild, of an index in use now,
// works too.
func TestRebuildRepairsADamagedIndex(t *testing.T) {
	v, dir := sampleVault(t)
	if err := os.WriteFile(v.index.Dir(), []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := v.SearchIndex(); err == nil {
		t.Fatal("a damaged index folder opened")
	}
	if _, err := v.Search(context.Background(), owner, SearchArgs{Query: "rollback"}); err == nil {
		t.Fatal("a search of a damaged index answered")
	}
	held, let := holdRebuild(t, v)
	progress := &progressLog{}
	rebuilt := make(chan error, 1)
	go func() { rebuilt <- v.Rebuild(progress.tell) }()
	within(t, held, "the rebuild's first step")
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Search(gone, owner, SearchArgs{Query: "rollback"}); err == nil || !strings.Contains(err.Error(), "still being built") {
		t.Fatalf("a search whose caller gave up: %v", err)
	}
	type answer struct {
		r   *SearchResult
		err error
	}
	waiting := make(chan answer, 1)
	go func() {
		r, err := v.Search(context.Background(), owner, SearchArgs{Query: "rollback runbook"})
		waiting <- answer{r, err}
	}()
	let()
	if err := within(t, rebuilt, "the rebuild"); err != nil {
		t.Fatal(err)
	}
	if ans := within(t, waiting, "the search that waited"); ans.err != nil || !slices.Contains(resultPaths(ans.r), rollback) {
		t.Fatalf("the search that waited for the rebuild: %v, %v", resultPaths(ans.r), ans.err)
	}
	ix, err := v.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if n := ix.VectorsPending(); n != 0 {
		t.Errorf("the rebuild returned with %d notes waiting for vectors", n)
	}
	if r := searchT(t, v, owner, SearchArgs{Query: "which CDN provider did we choose", Explain: true}); len(r.Results) == 0 || r.Results[0].Title != "Decision CDN provider" || r.Results[0].Semantic == nil {
		t.Fatalf("hybrid search after the rebuild: %+v", r.Results)
	}
	n := v.NoteCount()
	if got := progress.last("index"); got != fmt.Sprintf("index %d/%d", n, n) {
		t.Errorf("progress: the last index step was %q, want %d/%d", got, n, n)
	}
	if err := v.Rebuild(nil); err != nil {
		t.Fatalf("a second rebuild, of an index in use: %v", err)
	}
	if !found(t, v, "rollback", rollback) {
		t.Fatal("not found after the second rebuild")
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	ix2, err := v2.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if ix2.Rebuilt() != "" || ix2.Len() != n {
		t.Fatalf("after a restart: rebuilt %q, %d of %d notes", ix2.Rebuilt(), ix2.Len(), n)
	}
}

// Close during a Rebuild returns once the build's step is done, without
// finishing it: the new index is dropped, the live one left as it was
// (and saved: a restart opens it without rebuilding).
func TestCloseDuringRebuildReturns(t *testing.T) {
	v, dir := sampleVault(t)
	if _, err := v.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	held, let := holdRebuild(t, v)
	rebuilt := make(chan error, 1)
	go func() { rebuilt <- v.Rebuild(nil) }()
	within(t, held, "the rebuild's first step")
	closed := make(chan error, 1)
	go func() { closed <- v.Close() }()
	for !v.index.Stopping() {
		time.Sleep(time.Millisecond) // Close has begun; the build is still held
	}
	let()
	if err := within(t, closed, "Close during a rebuild"); err != nil {
		t.Fatal(err)
	}
	if err := within(t, rebuilt, "the rebuild"); err == nil || !strings.Contains(err.Error(), "closing") {
		t.Fatalf("a rebuild stopped by Close: %v", err)
	}
	if _, err := os.Stat(v.index.Dir() + indexing.RebuildSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unfinished index is left behind: %v", err)
	}
	v2, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	ix, err := v2.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if ix.Rebuilt() != "" || !found(t, v2, "rollback", rollback) {
		t.Fatalf("the live index after the stopped rebuild: rebuilt %q", ix.Rebuilt())
	}
}

// A live index folder that another process holds (search.LockFile) is
// never replaced: the Rebuild fails saying so, and changes nothing.
func TestRebuildRefusesAnIndexHeldElsewhere(t *testing.T) {
	v, _ := sampleVault(t)
	other, err := search.Open(v.index.Dir(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Apply([]*search.Doc{{Path: "x.md", Version: "1", Scope: "root", Title: "held"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := v.Rebuild(nil); !errors.Is(err, search.ErrIndexBusy) {
		t.Fatalf("a rebuild under another process's index: %v", err)
	}
	if other.Len() != 1 || other.Version("x.md") != "1" {
		t.Fatal("the other process's index changed")
	}
	for _, suffix := range []string{indexing.RebuildSuffix, indexing.OldSuffix} {
		if _, err := os.Stat(v.index.Dir() + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v", suffix, err)
		}
	}
}

// The folders a Rebuild stopped by a crash leaves (its unfinished index,
// the index it replaced) are deleted when the index next opens, unless a
// process holds one (then it is kept, and said).
func TestLeftoversOfACrashedRebuildAreRemoved(t *testing.T) {
	v, _ := sampleVault(t)
	held, err := search.Open(v.index.Dir()+indexing.OldSuffix, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	side := v.index.Dir() + indexing.RebuildSuffix
	if err := os.MkdirAll(filepath.Join(side, "bleve"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(side, "manifest.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := v.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(side); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unfinished index is left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(v.index.Dir()+indexing.OldSuffix, search.LockFile)); err != nil {
		t.Errorf("a folder another process holds was deleted: %v", err)
	}
	if !found(t, v, "rollback", rollback) {
		t.Error("search after the clean-up")
	}
}
