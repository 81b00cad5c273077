package vault

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/indexing"
)

// holdFirstBuild reopens the vault at dir without its search index, with
// the first build held before it indexes anything (AnswerDuringBuild, as
// a server opens it); release lets it go on.
func holdFirstBuild(t *testing.T, dir string) (v *Vault, release func()) {
	t.Helper()
	step := indexing.Step
	indexing.Step = 2 // more than one step: searches answer during the build
	held, gate := make(chan struct{}), make(chan struct{})
	var once, let sync.Once
	indexing.TestHooks.Build = func(done, total int) {
		once.Do(func() {
			close(held)
			<-gate
		})
	}
	v, err := Open(dir, Options{Quiet: testQuiet, AnswerDuringBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	release = func() { let.Do(func() { close(gate) }) }
	t.Cleanup(func() {
		release()
		v.Close()
		indexing.TestHooks.Build, indexing.Step = nil, step
	})
	go v.SearchIndex() // as `cairn serve` starts it
	select {
	case <-held:
	case <-time.After(2 * time.Minute):
		t.Fatal("the first build never began")
	}
	return v, release
}

// A search made during the first build, before a single note is indexed
// (a fresh clone's first search), finds the notes holding its words by
// reading them, says the answer is partial, and never shows a note the
// caller may not read. So do recall, treaisure_search_memory and
// hindsight_search, which search the same way.
func TestSearchDuringFirstBuildReadsTheNotesNotIndexed(t *testing.T) {
	v, dir := sampleVault(t)
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
	seen, err := v.CreateNote(owner, CreateArgs{Project: "acme/platform", Body: "# Moorland survey\n\nThe quillwort beds by the reservoir are thriving.\n"})
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Launch flora\n\nQuillwort samples go in the launch kit.\n"})
	if err != nil {
		t.Fatal(err)
	}
	samThought, err := v.CaptureThought(sam, CaptureArgs{Text: "I found quillwort growing in the pond.", Space: "personal", Confirmed: true})
	if err != nil || samThought.Path == "" {
		t.Fatalf("capture: %+v, %v", samThought, err)
	}
	if c, err := v.CaptureThought(camille, CaptureArgs{Text: "Quillwort is my favourite fern ally.", Space: "personal", Confirmed: true}); err != nil || c.Path == "" {
		t.Fatalf("capture: %+v, %v", c, err)
	}
	if err := v.GrantBank(human, "sam", "b1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := v.BankPut(owner, "b1", "Quillwort grows under water.", "botany", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := v.BankPut(owner, "b2", "Quillwort spores are tiny.", "botany", ""); err != nil {
		t.Fatal(err)
	}
	v.Close()
	if err := os.RemoveAll(v.index.Dir()); err != nil { // a fresh clone's first build
		t.Fatal(err)
	}
	v2, release := holdFirstBuild(t, dir)
	if b := v2.index.Building(); b == nil || b.Done != 0 || b.Index.Len() != 0 {
		t.Fatal("the build is not held before its first note")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a search that waited for the build fails
	defer cancel()

	check := func(when string, partial bool) {
		t.Helper()
		r, err := v2.Search(ctx, sam, SearchArgs{Query: "quillwort"})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		got := resultPaths(r)
		if !slices.Contains(got, seen.Path) || slices.Contains(got, hidden.Path) {
			t.Errorf("%s: sam's search finds %v: want %s, never %s", when, got, seen.Path, hidden.Path)
		}
		for _, p := range got {
			if v2.roleAt(sam, p) < access.RoleRead {
				t.Errorf("%s: sam is shown %s", when, p)
			}
		}
		if partial != (r.IndexPending > 0) || partial != strings.Contains(r.Notice, "still being built") {
			t.Errorf("%s: indexPending %d, notice %q", when, r.IndexPending, r.Notice)
		}
		if r = searchT(t, v2, owner, SearchArgs{Query: "quillwort", Mode: "lexical"}); !slices.Contains(resultPaths(r), hidden.Path) {
			t.Errorf("%s: the owner, who reads every project, does not find %s: %v", when, hidden.Path, resultPaths(r))
		}
		rec, err := v2.Recall(ctx, sam, "quillwort", "", 2000)
		if err != nil {
			t.Fatalf("%s: recall: %v", when, err)
		}
		var recalled []string
		for _, it := range rec.Items {
			recalled = append(recalled, it.Path)
		}
		if !slices.Contains(recalled, seen.Path) || slices.Contains(recalled, hidden.Path) || !strings.Contains(rec.Context, "quillwort") {
			t.Errorf("%s: sam recalls %v", when, recalled)
		}
		d, err := v2.SearchMemory(ctx, sam, "quillwort", "personal", 0)
		if err != nil || len(d.Items) != 1 || d.Items[0].Path != samThought.Path || d.Items[0].Level != LevelDirect {
			t.Errorf("%s: sam's memory: %+v, %v", when, d, err)
		}
		facts, err := v2.BankSearch(ctx, sam, "b1", "quillwort", 0)
		if err != nil || len(facts) != 1 || facts[0].Text != "Quillwort grows under water." {
			t.Errorf("%s: bank b1: %+v, %v", when, facts, err)
		}
		if _, err := v2.BankSearch(ctx, sam, "b2", "quillwort", 0); !errors.Is(err, ErrBankNotFound) {
			t.Errorf("%s: sam reaches bank b2: %v", when, err)
		}
	}
	check("before any note is indexed", true)
	// A note written meanwhile waits for the build's end to be indexed:
	// it is read too.
	late, err := v2.CreateNote(owner, CreateArgs{Project: "acme/platform", Body: "# Pond survey\n\nBladderwort floats in the pond.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := v2.Search(ctx, sam, SearchArgs{Query: "bladderwort", Mode: "lexical"}); err != nil || len(r.Results) != 1 || r.Results[0].Path != late.Path {
		t.Errorf("a note written during the build: %+v, %v", r, err)
	}
	if b := v2.index.Building(); b == nil || b.Index.Len() != 0 {
		t.Fatal("the searches were not all made before the first note was indexed")
	}
	release()
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	check("once indexed", false)
}

// A long note waiting for the lane (package vault/indexing, lane.go) is found meanwhile, read
// from disk, by those who may read it only; once indexed, as before.
func TestLongNoteIsFoundBeforeTheLaneIndexesIt(t *testing.T) {
	v, dir := sampleVault(t)
	v.SearchIndex()
	held, release := holdLane(t, v)
	writeByHand(t, v, dir, map[string]string{"long": "# Long\n\nThe hornwort census.\n\n" + strings.Repeat("papaya words ", 20000)})
	if p := heldT(t, held); p != "acme/long.md" {
		t.Fatalf("the lane holds %s", p)
	}
	r := searchT(t, v, owner, SearchArgs{Query: "hornwort census"})
	if got := resultPaths(r); len(got) == 0 || got[0] != "acme/long.md" || r.IndexPending != 1 {
		t.Errorf("with the long note held: %v, %d pending", got, r.IndexPending)
	}
	if r := searchT(t, v, sam, SearchArgs{Query: "hornwort census"}); slices.Contains(resultPaths(r), "acme/long.md") || r.IndexPending != 0 {
		t.Errorf("sam, who cannot read acme, is shown %v, %d pending", resultPaths(r), r.IndexPending)
	}
	release <- struct{}{}
	waitLaneT(t, v)
	if r := searchT(t, v, owner, SearchArgs{Query: "hornwort census"}); len(r.Results) == 0 || r.Results[0].Path != "acme/long.md" || r.IndexPending != 0 {
		t.Errorf("once indexed: %v, %d pending", resultPaths(r), r.IndexPending)
	}
}
