package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func builtinT(t testing.TB) Embedder {
	t.Helper()
	e, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// openT opens an index in dir with the builtin embedder (or none) and a
// log that the test can read.
func openT(t testing.TB, dir string, emb Embedder, load func(string) (*Doc, error)) (*Index, *logBuf) {
	t.Helper()
	lb := &logBuf{}
	// Close waits up to 30 s for Bleve's disk writes, not 1 s: tests that
	// reopen an index expect to find it, however loaded the machine.
	ix, err := Open(dir, Options{Embedder: emb, Load: load, Logf: lb.logf, CloseWait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ix, lb
}

type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

var corpus = []*Doc{
	{Path: "acme/ecole.md", Title: "Partenariat avec l'école", Scope: "p:acme", Tags: []string{"partners"}, Type: "note", Body: "Nous travaillons avec une école d'ingénieurs de Lyon pour les stages.", Date: day("2026-03-01")},
	{Path: "acme/decisions/cdn.md", Title: "Decision CDN provider", Scope: "p:acme", Tags: []string{"infra", "decision"}, Type: "decision", Body: "We chose Bunny as our content delivery network after comparing latency and price.", Date: day("2026-05-10")},
	{Path: "acme/cats.md", Title: "Office pets", Scope: "p:acme", Body: "The cat sat on the mat near the kitchen. Everyone likes the kitten.", Date: day("2026-06-01")},
	{Path: "secret/salaries.md", Title: "Salaries decision", Scope: "p:secret", Type: "decision", Body: "Decision: salaries rise by four percent. The decision is final.", Date: day("2026-05-12")},
	{Path: "people/ann/profile.md", Title: "Profile", Scope: "u:ann", Body: "Ann prefers short answers and works on the CDN migration.", Date: day("2026-01-01")},
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func load(docs []*Doc) func(string) (*Doc, error) {
	return func(p string) (*Doc, error) {
		for _, d := range docs {
			if d.Path == p {
				return d, nil
			}
		}
		return nil, os.ErrNotExist
	}
}

func versioned(docs []*Doc) []*Doc {
	for _, d := range docs {
		if d.Version == "" {
			d.Version = "1"
		}
	}
	return docs
}

func paths(r *Result) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Path)
	}
	return out
}

func TestLexicalEnglishAndFrench(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	if err := ix.Apply(versioned(corpus), nil); err != nil {
		t.Fatal(err)
	}
	all := Filter{Scopes: []string{"p:acme", "p:secret", "u:ann"}}
	for _, q := range []string{"école", "ecole", "écoles", "ECOLES"} {
		r, err := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: all})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) == 0 || r.Hits[0].Path != "acme/ecole.md" {
			t.Errorf("%q: got %v, want acme/ecole.md first", q, paths(r))
		}
	}
	r, _ := ix.Search(context.Background(), Query{Text: "decisions", Mode: Lexical, Filter: all})
	got := strings.Join(paths(r), " ")
	if !strings.Contains(got, "acme/decisions/cdn.md") || !strings.Contains(got, "secret/salaries.md") {
		t.Errorf("decisions: got %v, want both decision notes", got)
	}
	if r.Mode != Lexical || r.Hits[0].Lexical == nil || r.Hits[0].Lexical.Rank != 1 || r.Hits[0].Semantic != nil {
		t.Errorf("lexical hit should carry its lexical rank only: %+v", r.Hits[0])
	}
}

func TestScopesArePartOfTheQuery(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), builtinT(t), nil)
	defer ix.Close()
	ix.Apply(versioned(corpus), nil)
	ix.WaitVectors(10 * time.Second)
	for _, mode := range []Mode{Lexical, Semantic, Hybrid} {
		// "salaries decision" matches the secret note best; with limit 1
		// and only acme readable, the acme decision must come back.
		r, err := ix.Search(context.Background(), Query{Text: "salaries decision", Mode: mode, Limit: 1, Filter: Filter{Scopes: []string{"p:acme"}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range r.Hits {
			if !strings.HasPrefix(h.Path, "acme/") {
				t.Errorf("%s: %s is outside the caller's scopes", mode, h.Path)
			}
		}
		if len(r.Hits) != 1 {
			t.Errorf("%s: want exactly one acme hit (the filter is applied before the limit), got %v", mode, paths(r))
		}
		none, _ := ix.Search(context.Background(), Query{Text: "salaries decision", Mode: mode, Filter: Filter{}})
		if len(none.Hits) != 0 {
			t.Errorf("%s: no scopes must match nothing, got %v", mode, paths(none))
		}
	}
}

func TestFilters(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), builtinT(t), nil)
	defer ix.Close()
	ix.Apply(versioned(corpus), nil)
	ix.WaitVectors(10 * time.Second)
	all := []string{"p:acme", "p:secret", "u:ann"}
	cases := []struct {
		name string
		f    Filter
		want string
	}{
		{"tags", Filter{Tags: []string{"INFRA", "#decision"}}, "acme/decisions/cdn.md"},
		{"type", Filter{Type: "Decision"}, "acme/decisions/cdn.md secret/salaries.md"},
		{"path", Filter{PathPrefix: "acme/decisions/"}, "acme/decisions/cdn.md"},
		{"after", Filter{After: day("2026-05-11")}, "acme/cats.md secret/salaries.md"},
		{"before", Filter{Before: day("2026-03-02")}, "acme/ecole.md people/ann/profile.md"},
		{"range", Filter{After: day("2026-05-01"), Before: day("2026-05-11")}, "acme/decisions/cdn.md"},
	}
	for _, c := range cases {
		c.f.Scopes = all
		for _, mode := range []Mode{Lexical, Semantic} {
			// A query every note matches a little: the filter decides.
			r, err := ix.Search(context.Background(), Query{Text: "the decision école cat CDN salaries profile", Mode: mode, Limit: 50, Filter: c.f})
			if err != nil {
				t.Fatal(err)
			}
			got := paths(r)
			sort.Strings(got)
			if strings.Join(got, " ") != c.want {
				t.Errorf("%s/%s: got %v, want %s", c.name, mode, got, c.want)
			}
		}
	}
}

func TestHybridFusesBothLists(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), builtinT(t), nil)
	defer ix.Close()
	ix.Apply(versioned(corpus), nil)
	if !ix.WaitVectors(10 * time.Second) {
		t.Fatal("vectors not made")
	}
	all := Filter{Scopes: []string{"p:acme", "p:secret", "u:ann"}}
	// "kitten" is a word of the pets note; "feline animal" is not, but
	// means the same: semantic search finds it, lexical search cannot.
	r, err := ix.Search(context.Background(), Query{Text: "feline animal resting on a rug", Mode: Hybrid, Filter: all})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != Hybrid || len(r.Hits) == 0 || r.Hits[0].Path != "acme/cats.md" {
		t.Fatalf("hybrid: got %s %v, want acme/cats.md first", r.Mode, paths(r))
	}
	if h := r.Hits[0]; h.Semantic == nil || h.Lexical != nil || h.Chunk == nil {
		t.Errorf("the pets note was found by the semantic list only: %+v", h)
	}
	// A note holding every word of the query is found as asked: the
	// semantic list weighs nothing against it (fuse.go), and still says
	// where it ranks the note.
	r, _ = ix.Search(context.Background(), Query{Text: "content delivery network", Mode: Hybrid, Filter: all})
	if r.SemanticWeight != 0 {
		t.Fatalf("the best lexical hit holds every word, yet the semantic weight is %v", r.SemanticWeight)
	}
	h := r.Hits[0]
	if h.Path != "acme/decisions/cdn.md" || h.Lexical == nil || h.Semantic == nil {
		t.Fatalf("want the CDN note found by both lists, got %+v", h)
	}
	want := 1/float64(RRFK+h.Lexical.Rank) + r.SemanticWeight/float64(RRFK+h.Semantic.Rank)
	if h.Score != want {
		t.Errorf("RRF score %v, want %v", h.Score, want)
	}
}

func TestNoEmbedderRunsLexically(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	ix.Apply(versioned(corpus), nil)
	for _, m := range []Mode{Hybrid, Semantic} {
		r, err := ix.Search(context.Background(), Query{Text: "CDN", Mode: m, Filter: Filter{Scopes: []string{"p:acme"}}})
		if err != nil {
			t.Fatalf("%s without vectors must not fail: %v", m, err)
		}
		if r.Mode != Lexical || !strings.Contains(r.Notice, "lexically") || len(r.Hits) == 0 {
			t.Errorf("%s: got mode %s notice %q hits %v", m, r.Mode, r.Notice, paths(r))
		}
	}
}

func TestSnippetMarksMatchesInMarkdown(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	body := "Intro.\n\nIf a < b & c > d, the <b>tag</b> stays. Les écoles de Lyon ont répondu.\n"
	s := ix.Snippet(body, "ecole lyon", nil)
	if !strings.Contains(s, "**écoles**") || !strings.Contains(s, "**Lyon**") {
		t.Errorf("matches not in bold: %q", s)
	}
	if e := ix.Snippet("Visite de l'école demain.", "ecole", nil); !strings.Contains(e, "école**") {
		t.Errorf("elided word not marked: %q", e)
	}
	if !strings.Contains(s, "a < b & c > d, the <b>tag</b>") || strings.Contains(s, "&lt;") {
		t.Errorf("snippet must keep the text as written: %q", s)
	}
	long := strings.Repeat("filler words here. ", 100) + "the needle is here" + strings.Repeat(" and more filler", 100)
	s = ix.Snippet(long, "needle", nil)
	if !strings.Contains(s, "**needle**") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len(s) > snippetBytes+40 {
		t.Errorf("long body: %q", s)
	}
}

func TestIndexSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	docs := versioned(corpus)
	ix, _ := openT(t, dir, builtinT(t), load(docs))
	ix.Apply(docs, nil)
	ix.WaitVectors(10 * time.Second)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, lb := openT(t, dir, builtinT(t), load(docs))
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Len() != len(docs) {
		t.Fatalf("a cleanly closed index must reopen as it was: rebuilt %q, %d docs", ix.Rebuilt(), ix.Len())
	}
	if n := ix.QueueMissingVectors(); n != 0 {
		t.Errorf("%d documents lost their vectors over a restart", n)
	}
	r, _ := ix.Search(context.Background(), Query{Text: "feline", Mode: Semantic, Filter: Filter{Scopes: []string{"p:acme"}}})
	if len(r.Hits) == 0 || r.Hits[0].Path != "acme/cats.md" {
		t.Errorf("semantic after restart: %v", paths(r))
	}
	if lb.String() != "" {
		t.Errorf("no log expected, got %s", lb)
	}
}

// Batches return before they are on disk; Close waits for them, so a
// burst of writes right before a clean stop never costs a rebuild.
func TestCloseRightAfterManyBatchesKeepsTheIndex(t *testing.T) {
	dir := t.TempDir()
	ix, _ := openT(t, dir, nil, nil)
	for i := 0; i < 200; i++ {
		if err := ix.Apply([]*Doc{{Path: fmt.Sprintf("b/%d.md", i), Version: "1", Scope: "s", Title: "burst", Body: "words"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, lb := openT(t, dir, nil, nil)
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Len() != 200 || lb.String() != "" {
		t.Fatalf("rebuilt %q with %d docs; log %q", ix.Rebuilt(), ix.Len(), lb)
	}
	r, _ := ix.Search(context.Background(), Query{Text: "burst", Mode: Lexical, Limit: 50, Filter: Filter{Scopes: []string{"s"}}})
	if len(r.Hits) != 50 {
		t.Errorf("after reopening: %d hits", len(r.Hits))
	}
}

// Discard saves nothing, refuses later updates and lets the folder go
// (its lock too); a Persist after Close or Discard writes nothing, so it
// cannot replace the files of an index opened in the same folder since.
func TestDiscardSavesNothingAndPersistAfterCloseWritesNothing(t *testing.T) {
	dir := t.TempDir()
	docs := versioned(corpus)
	ix, _ := openT(t, dir, builtinT(t), load(docs))
	if err := ix.Apply(docs, nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.Discard(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"manifest.json", "vectors.bin"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after Discard: %v", f, err)
		}
	}
	if err := ix.Apply(docs[:1], nil); !errors.Is(err, ErrClosed) {
		t.Errorf("an update after Discard: %v", err)
	}
	// The folder is free: another index opens there, and the discarded
	// one's Persist does not touch its files.
	ix2, _ := openT(t, dir, nil, nil)
	defer ix2.Close()
	if err := ix2.Apply(docs[:2], nil); err != nil {
		t.Fatal(err)
	}
	if err := ix2.Persist(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Persist(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "manifest.json")); string(after) != string(before) {
		t.Fatal("a discarded index's Persist replaced the manifest of the index opened after it")
	}
	if _, err := os.Stat(filepath.Join(dir, "vectors.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a discarded index's Persist wrote vectors: %v", err)
	}
}

func TestDamagedOrForeignVectorsAreRebuilt(t *testing.T) {
	dir := t.TempDir()
	docs := versioned(corpus)
	ix, _ := openT(t, dir, builtinT(t), load(docs))
	ix.Apply(docs, nil)
	ix.WaitVectors(10 * time.Second)
	ix.Close()
	file := filepath.Join(dir, "vectors.bin")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), data...)
	damaged[len(damaged)/2] ^= 0x55
	os.WriteFile(file, damaged, 0o644)
	ix, lb := openT(t, dir, builtinT(t), load(docs))
	if !strings.Contains(lb.String(), "checksum") {
		t.Errorf("a damaged vector file must be reported: %q", lb)
	}
	if n := ix.QueueMissingVectors(); n != len(docs) {
		t.Errorf("all %d documents must be embedded again, %d queued", len(docs), n)
	}
	if !ix.WaitVectors(10 * time.Second) {
		t.Fatal("vectors not rebuilt")
	}
	r, _ := ix.Search(context.Background(), Query{Text: "feline", Mode: Semantic, Filter: Filter{Scopes: []string{"p:acme"}}})
	if len(r.Hits) == 0 || r.Hits[0].Path != "acme/cats.md" {
		t.Errorf("semantic after rebuild: %v", paths(r))
	}
	ix.Close()

	// Another model's file: rebuilt with a line naming both models.
	vs, err := loadVectors(file, "builtin-other", 100)
	if err == nil || vs != nil || !strings.Contains(err.Error(), "builtin-other") {
		t.Errorf("a file of another model must be refused, naming it: %v", err)
	}
	os.WriteFile(file, []byte("CAIRNVEC garbage"), 0o644)
	if _, err := loadVectors(file, builtinT(t).ID(), 100); err == nil {
		t.Error("garbage accepted")
	}
}

func TestDeletesAndUpdates(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), builtinT(t), nil)
	defer ix.Close()
	docs := versioned(corpus)
	ix.Apply(docs, nil)
	ix.Apply([]*Doc{{Path: "acme/cats.md", Version: "2", Scope: "p:acme", Title: "Office plants", Body: "A ficus and two cacti."}}, []string{"acme/ecole.md"})
	ix.WaitVectors(10 * time.Second)
	f := Filter{Scopes: []string{"p:acme"}}
	for _, mode := range []Mode{Lexical, Semantic} {
		r, _ := ix.Search(context.Background(), Query{Text: "kitten cat", Mode: mode, Filter: f})
		for _, h := range r.Hits {
			if h.Path == "acme/cats.md" && mode == Lexical {
				t.Errorf("%s: the old text of an updated note still matches", mode)
			}
		}
		r, _ = ix.Search(context.Background(), Query{Text: "école", Mode: mode, Filter: f})
		for _, h := range r.Hits {
			if h.Path == "acme/ecole.md" {
				t.Errorf("%s: a deleted note is still found", mode)
			}
		}
	}
	if v, ok := ix.vec.version("acme/cats.md"); !ok || v != "2" {
		t.Errorf("vectors of the updated note: version %q", v)
	}
}

// Notes embedded again and again leave dead rows in the arena, which is
// compacted; searches stay right throughout and after a restart.
func TestVectorArenaCompacts(t *testing.T) {
	defer func(n int) { compactMin = n }(compactMin)
	compactMin = 8
	dir := t.TempDir()
	var docs []*Doc
	ix, _ := openT(t, dir, builtinT(t), func(p string) (*Doc, error) {
		for _, d := range docs {
			if d.Path == p {
				return d, nil
			}
		}
		return nil, os.ErrNotExist
	})
	words := []string{"kitten", "volcano", "bicycle", "piano", "glacier"}
	for round := 0; round < 6; round++ {
		docs = nil
		for i, w := range words {
			docs = append(docs, &Doc{Path: fmt.Sprintf("n/%d.md", i), Version: fmt.Sprint(round), Scope: "s", Title: w, Body: strings.Repeat(w+" ", 3) + "\n\n# More\n\n" + words[(i+round)%len(words)]})
		}
		ix.Apply(docs, nil)
		if !ix.WaitVectors(10 * time.Second) {
			t.Fatal("vectors not made")
		}
	}
	ix.Apply(nil, []string{"n/4.md"})
	check := func(ix *Index) {
		t.Helper()
		for i, w := range words[:4] {
			r, _ := ix.Search(context.Background(), Query{Text: w, Mode: Semantic, Limit: 1, Filter: Filter{Scopes: []string{"s"}}})
			if len(r.Hits) != 1 || r.Hits[0].Path != fmt.Sprintf("n/%d.md", i) {
				t.Errorf("%s: %v", w, paths(r))
			}
		}
	}
	check(ix)
	ix.vec.mu.RLock()
	rows, live := ix.vec.arena.rows, 0
	for _, n := range ix.vec.notes {
		live += len(n.chunks)
	}
	ix.vec.mu.RUnlock()
	if rows-live > compactMin+live {
		t.Errorf("the arena holds %d rows for %d live ones: not compacted", rows, live)
	}
	ix.Close()
	ix2, _ := openT(t, dir, builtinT(t), nil)
	defer ix2.Close()
	check(ix2)
}

// A second process (here: a second Open) gets ErrIndexBusy at once, even
// before the first saved a manifest, and never rebuilds under it.
func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	ix, _ := openT(t, dir, nil, nil)
	ix.Apply(versioned(corpus[:2]), nil)
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrIndexBusy) {
		t.Fatalf("second open: %v", err)
	}
	if ix.Len() != 2 {
		t.Fatal("the first index lost its documents")
	}
	ix.Close()
	ix2, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	ix2.Close()
}

// Persist encodes the manifest and the vectors outside the index's lock,
// while Applies go on (the race detector watches); the manifest saved
// last holds every document as last applied.
func TestPersistWhileApplying(t *testing.T) {
	dir := t.TempDir()
	ix, _ := openT(t, dir, builtinT(t), nil)
	var many []*Doc // a manifest that takes a while to encode
	for i := range 2000 {
		many = append(many, &Doc{Path: fmt.Sprintf("many/%d.md", i), Title: "Many", Scope: "p:acme", Version: "1", Body: "One of many."})
	}
	if err := ix.Apply(many, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 60 {
			d := &Doc{Path: fmt.Sprintf("n%d.md", i%12), Title: "Note", Scope: "p:acme", Version: fmt.Sprint(i), Body: fmt.Sprintf("Body %d about persisting while applying.", i)}
			if err := ix.Apply([]*Doc{d}, nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	persisted := 0
	for running := true; running; persisted++ {
		select {
		case <-done:
			running = false
		default:
		}
		if err := ix.Persist(); err != nil {
			t.Fatal(err)
		}
	}
	m, err := readManifest(ix.manifestFile())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Docs) != 2012 || persisted < 2 {
		t.Fatalf("%d documents in the manifest after %d saves, want 2,012", len(m.Docs), persisted)
	}
	for i := 48; i < 60; i++ {
		if dm := m.Docs[fmt.Sprintf("n%d.md", i%12)]; dm == nil || dm.Version != fmt.Sprint(i) {
			t.Fatalf("n%d.md: %+v, want version %d", i%12, dm, i)
		}
	}
	ix.Close()
}
