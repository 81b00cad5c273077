package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// world is a set of notes as the vault hands them to the index: notes
// n/00 to n/09 form a sequence (each the neighbour of the next), and each
// note's context is its neighbours' text, as the vault makes it. Every
// version of a note has a word of its own (word), so a search tells which
// version an index holds, in a note or in its neighbours' context.
type world struct {
	ver  map[int]int // note → version; absent: deleted
	link [2]int      // two more notes linked as a sequence (0, 0: none)
}

func newWorld(n int) *world {
	w := &world{ver: map[int]int{}}
	for i := 0; i < n; i++ {
		w.ver[i] = 1
	}
	return w
}

func notePath(i int) string { return fmt.Sprintf("n/%02d.md", i) }

// word is spelt in syllables ("zqlonuwlo": note 13, version 1), so that
// every analyser keeps it one word of its own (the French one folds
// doubled letters).
func word(i, v int) string {
	syl := func(n int) string {
		var b strings.Builder
		for _, c := range fmt.Sprint(n) {
			b.WriteString([]string{"ka", "lo", "mi", "nu", "pe", "ra", "si", "tu", "vo", "xe"}[c-'0'])
		}
		return b.String()
	}
	return "zq" + syl(i) + "w" + syl(v)
}

func (w *world) body(i int) string {
	return fmt.Sprintf("%s about the %s harbour and its boats", word(i, w.ver[i]), []string{"north", "south", "east"}[i%3])
}

// neighbours of note i that exist.
func (w *world) neighbours(i int) []string {
	var out []string
	for _, j := range []int{i - 1, i + 1} {
		if _, ok := w.ver[j]; ok && i < 10 && j >= 0 && j < 10 {
			out = append(out, notePath(j))
		}
	}
	for k, j := range w.link {
		if w.link[1-k] == i && j != i {
			out = append(out, notePath(j))
		}
	}
	return out
}

func (w *world) doc(i int) *Doc {
	d := &Doc{Path: notePath(i), Version: fmt.Sprint(w.ver[i]), Scope: "s", Title: fmt.Sprintf("Note %d", i), Body: w.body(i), Sequence: w.neighbours(i)}
	var ctx []string
	for _, q := range d.Sequence {
		var j int
		fmt.Sscanf(q, "n/%d.md", &j)
		ctx = append(ctx, w.body(j))
	}
	d.Context = strings.Join(ctx, "\n")
	return d
}

func (w *world) docs() []*Doc {
	var out []*Doc
	for i := range w.ver {
		out = append(out, w.doc(i))
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out
}

func (w *world) load(p string) (*Doc, error) {
	var i int
	if _, err := fmt.Sscanf(p, "n/%d.md", &i); err == nil {
		if _, ok := w.ver[i]; ok {
			return w.doc(i), nil
		}
	}
	return nil, os.ErrNotExist
}

// change applies edits (note → new version) and deletes to the world
// and, as the vault's update does, to ix: the changed notes in one
// batch, then their neighbours before and after in another.
func (w *world) change(t testing.TB, ix *Index, edits map[int]int, deletes []int) {
	t.Helper()
	var docs []*Doc
	var gone []string
	nb := map[string]bool{}
	for _, i := range deletes {
		delete(w.ver, i)
		gone = append(gone, notePath(i))
	}
	for i, v := range edits {
		w.ver[i] = v
	}
	for i := range edits {
		docs = append(docs, w.doc(i))
	}
	for _, p := range append(gone, paths2(docs)...) {
		for _, q := range ix.Sequence(p) {
			nb[q] = true
		}
	}
	for _, d := range docs {
		for _, q := range d.Sequence {
			nb[q] = true
		}
	}
	if err := ix.Apply(docs, gone); err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply(w.only(nb, append(gone, paths2(docs)...)), nil); err != nil {
		t.Fatal(err)
	}
}

// only are the world's documents among paths, except those in skip.
func (w *world) only(paths map[string]bool, skip []string) []*Doc {
	var out []*Doc
	for _, d := range w.docs() {
		if paths[d.Path] && !slices.Contains(skip, d.Path) {
			out = append(out, d)
		}
	}
	return out
}

func paths2(docs []*Doc) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Path)
	}
	return out
}

// syncTo is the vault's full sync at start (vault/indexing/sync.go, Keeper.Sync):
// the notes whose version or scope the index lacks are indexed, those it
// holds that are gone removed, then the neighbours of both, before and
// after, indexed again.
func syncTo(t testing.TB, ix *Index, w *world) {
	t.Helper()
	now := w.docs()
	held := ix.Versions()
	var todo []*Doc
	var gone []string
	nb := map[string]bool{}
	for _, d := range now {
		s, _, ok := ix.Scope(d.Path)
		if v, in := held[d.Path]; !in || v != d.Version || !ok || s != d.Scope {
			todo = append(todo, d)
			nb[d.Path] = false
		}
	}
	for p := range held {
		if _, err := w.load(p); err != nil {
			gone = append(gone, p)
		}
	}
	for _, p := range append(gone, paths2(todo)...) {
		for _, q := range ix.Sequence(p) {
			nb[q] = true
		}
	}
	for _, d := range todo {
		for _, q := range d.Sequence {
			nb[q] = true
		}
	}
	if err := ix.Apply(todo, gone); err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply(w.only(nb, append(gone, paths2(todo)...)), nil); err != nil {
		t.Fatal(err)
	}
}

// flush returns once Bleve has every batch so far on disk.
func flush(t testing.TB, ix *Index) {
	t.Helper()
	b := ix.bleve.NewBatch()
	b.SetInternal([]byte("test.flush"), []byte("1"))
	done := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { done <- err })
	if err := ix.bleve.Batch(b); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Bleve did not put its batches on disk in 2 minutes")
	}
}

// crash leaves the index as a killed process does once Bleve has its
// batches on disk: the manifest and the vectors as last saved, Bleve
// closed without a word to the manifest (the process's lock goes with it).
func crash(t testing.TB, ix *Index) {
	t.Helper()
	flush(t, ix)
	ix.closed.Store(true) // Persist saves nothing from now on
	if ix.queue != nil {
		ix.queue.stop()
	}
	if err := ix.bleve.Close(); err != nil {
		t.Fatal(err)
	}
	ix.unlock()
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.RemoveAll(to); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// lexFind are the notes whose text (their own, or their context) holds
// the words of text.
func lexFind(t testing.TB, ix *Index, text string) []string {
	t.Helper()
	r, err := ix.Search(context.Background(), Query{Text: text, Mode: Lexical, Limit: 100, Filter: Filter{Scopes: []string{"s"}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range r.Hits {
		if h.Lexical != nil { // not a neighbour's share
			out = append(out, h.Path)
		}
	}
	return out
}

// checkWorld asserts that ix finds every note of w by its current word,
// in itself and in its neighbours' context, and no word of a version it
// no longer has, nor of a deleted note.
func checkWorld(t testing.TB, ix *Index, w *world, maxVer int) {
	t.Helper()
	for i := 0; i < 40; i++ {
		for v := 1; v <= maxVer; v++ {
			got := lexFind(t, ix, word(i, v))
			var want []string
			if cur, ok := w.ver[i]; ok && cur == v {
				want = append([]string{notePath(i)}, w.neighbours(i)...)
				sort.Strings(want)
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: found in %v, want %v", word(i, v), got, want)
			}
		}
	}
	for _, d := range w.docs() {
		if s := ix.Sequence(d.Path); !slices.Equal(s, d.Sequence) {
			t.Errorf("%s: sequence %v, want %v", d.Path, s, d.Sequence)
		}
	}
}

// sameAsFresh asserts that ix holds what an index built from w's notes in
// one go holds: in Bleve, the same documents with the same terms, each as
// often, in every field (all a document's BM25 score is made of, besides
// statistics Bleve sums over its segments, which differ between any two
// indexes, as its order of equal scores does); in the manifest, the same
// record of each document; the same vectors. Then every query finds the
// same notes, and the semantic list gives them the same scores.
func sameAsFresh(t testing.TB, ix *Index, w *world, emb Embedder) {
	t.Helper()
	fresh, _ := openT(t, t.TempDir(), emb, w.load)
	defer fresh.Close()
	if err := fresh.Apply(w.docs(), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := postings(t, ix), postings(t, fresh); got != want {
		t.Errorf("Bleve's postings differ from a fresh build's:\n got %s\nwant %s", got, want)
	}
	if got, want := records(ix), records(fresh); got != want {
		t.Errorf("the manifest differs from a fresh build's:\n got %s\nwant %s", got, want)
	}
	if ix.lens != fresh.lens {
		t.Errorf("summed field lengths %v, a fresh build's %v", ix.lens, fresh.lens)
	}
	modes := []Mode{Lexical}
	if emb != nil {
		modes = append(modes, Semantic)
		if !fresh.WaitVectors(time.Minute) || !ix.WaitVectors(time.Minute) {
			t.Fatal("vectors not made in a minute")
		}
	}
	queries := []string{"harbour boats", "north", "south harbour", "east", "quetzal"}
	for i := 0; i < 42; i++ {
		queries = append(queries, word(i, 1), word(i, 2), word(i, 3))
	}
	for _, q := range queries {
		for _, m := range modes {
			want := found(t, fresh, q, m)
			if got := found(t, ix, q, m); got != want {
				t.Errorf("%s %q:\n got %s\nwant %s", m, q, got, want)
			}
		}
	}
}

// postings lists, for every document Bleve holds, each term of each field
// with its frequency (the update token's field aside: it differs by
// design).
func postings(t testing.TB, ix *Index) string {
	t.Helper()
	return postingsOf(t, ix.bleve, nil, false)
}

// readerT is a reader of b's index as it is now; the caller closes it.
func readerT(t testing.TB, b bleve.Index) index.IndexReader {
	t.Helper()
	adv, err := b.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// postingsOf lists, for every document b holds, each term of each of
// fields (none: every field but the update token's) with its frequency,
// and with norms the field's norm in that document.
func postingsOf(t testing.TB, b bleve.Index, fields []string, norms bool) string {
	t.Helper()
	r := readerT(t, b)
	defer r.Close()
	if fields == nil {
		all, err := r.Fields()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range all {
			if f != fOp && !strings.HasPrefix(f, "_") {
				fields = append(fields, f)
			}
		}
	}
	docs := map[string][]string{}
	for _, f := range fields {
		dict, err := r.FieldDict(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			de, err := dict.Next()
			if err != nil {
				t.Fatal(err)
			}
			if de == nil {
				break
			}
			tfr, err := r.TermFieldReader(context.Background(), []byte(de.Term), f, true, norms, false)
			if err != nil {
				t.Fatal(err)
			}
			for {
				d, err := tfr.Next(nil)
				if err != nil {
					t.Fatal(err)
				}
				if d == nil {
					break
				}
				id, err := r.ExternalID(d.ID)
				if err != nil {
					t.Fatal(err)
				}
				term := fmt.Sprintf("%s:%s×%d", f, de.Term, d.Freq)
				if norms {
					term += fmt.Sprintf("/%.6g", d.Norm)
				}
				docs[id] = append(docs[id], term)
			}
			tfr.Close()
		}
		dict.Close()
	}
	var out []string
	for id, terms := range docs {
		sort.Strings(terms)
		out = append(out, id+" "+strings.Join(terms, " "))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// records is the manifest's record of every document, the update token
// aside.
func records(ix *Index) string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []string
	for p, m := range ix.meta {
		c := *m
		c.At, c.scope = 0, 0
		out = append(out, fmt.Sprintf("%s %+v", p, c))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// found are the notes the query's list (lexical or semantic) finds, in
// path order, with their scores: the semantic list's, the cosine of their
// best chunk, depends on nothing else; the lexical list's, BM25, on
// statistics that the index keeps exact through updates, deletions and
// crashes (fieldlens.go).
func found(t testing.TB, ix *Index, q string, m Mode) string {
	t.Helper()
	r, err := ix.Search(context.Background(), Query{Text: q, Mode: m, Limit: 100, Filter: Filter{Scopes: []string{"s"}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range r.Hits {
		switch {
		case h.Lexical != nil && m == Lexical:
			out = append(out, fmt.Sprintf("%s %.9g", h.Path, h.Lexical.Score))
		case h.Semantic != nil && m == Semantic:
			out = append(out, fmt.Sprintf("%s %.9g", h.Path, h.Semantic.Score))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
