package vault

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/indexing"
)

// A fresh clone's open keeps the texts it read, and the searches of the
// first build take them instead of reading the files again, as long as a
// file's size and mtime are those the open read: a note rewritten by hand
// since (no watcher: the catalog does not know) is read from its file.
// The proof that a text came from the open: a note rewritten to the same
// size and mtime, whose new word the search does not see where it sees
// it in a note grown since.
func TestTheFirstBuildsSearchesTakeTheOpensTexts(t *testing.T) {
	dir := freshOpen(t)
	v2, release := HoldFirstBuild(t, dir)
	b := v2.index.Building()
	if b == nil || len(b.Todo) < 2 {
		t.Fatal("no first build held")
	}
	same, grown := b.Todo[len(b.Todo)-1], b.Todo[len(b.Todo)-2]

	// same: a word of its body replaced by one as long, its mtime put back.
	full := filepath.Join(dir, filepath.FromSlash(same))
	fi, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(full)
	body := 0
	if bytes.HasPrefix(data, []byte("---\n")) {
		body = bytes.Index(data[4:], []byte("\n---\n")) + 9
	}
	loc := regexp.MustCompile(`\b[a-z]{6}\b`).FindIndex(data[body:])
	if body < 9 && bytes.HasPrefix(data, []byte("---\n")) || loc == nil {
		t.Fatalf("%s has no word of six letters in its body", same)
	}
	const swapped = "qzvxkj"
	rewritten := slices.Concat(data[:body+loc[0]], []byte(swapped), data[body+loc[1]:])
	if err := os.WriteFile(full, rewritten, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(full, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	// grown: the same word added, its size changed.
	g := filepath.Join(dir, filepath.FromSlash(grown))
	gdata, _ := os.ReadFile(g)
	if err := os.WriteFile(g, append(gdata, []byte("\nA "+swapped+" grows here.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := v2.Search(ctx, owner, SearchArgs{Query: swapped, Mode: "lexical", Limit: 50})
	if err != nil {
		t.Fatalf("search %q: %v", swapped, err)
	}
	if r.IndexPending == 0 {
		t.Fatalf("the search was not made during the build: %q", r.Notice)
	}
	finds := func(p string) bool {
		return slices.ContainsFunc(r.Results, func(h SearchHit) bool { return h.Path == p })
	}
	if !finds(grown) {
		t.Errorf("a search during the build does not find %q in %s, grown since the open read it", swapped, grown)
	}
	if finds(same) {
		t.Errorf("a search during the build read %s from its file: the open's text was not taken", same)
	}
	if texts := (indexNotes{v2}).OpenTexts(); texts != nil {
		t.Errorf("the open's texts handed over twice (%d)", len(texts))
	}
	release()
}

// The build lets go of the texts kept for the notes it has indexed (no
// search reads those): at each of its steps it holds no more than the
// notes it has not reached weigh, where without it the open's texts of
// every note stayed to the build's end, its peak.
func TestTheFirstBuildLetsGoOfTheTextsOfTheNotesItIndexed(t *testing.T) {
	dir := freshOpen(t)
	step := indexing.Step
	indexing.Step = 2
	type look struct{ done, kept, rest int }
	var looks []look
	var v2 *Vault
	indexing.TestHooks.Build = func(done, total int) {
		st := v2.index.Building()
		rest := 0
		for _, p := range st.Todo[done:] {
			if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
				rest += int(fi.Size())
			}
		}
		looks = append(looks, look{done, st.Kept, rest})
	}
	t.Cleanup(func() { indexing.TestHooks.Build, indexing.Step = nil, step })
	v2, err := Open(dir, Options{Quiet: testQuiet, AnswerDuringBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if _, err := v2.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	if len(looks) < 3 || looks[0].kept == 0 {
		t.Fatalf("steps seen: %+v; want several, the first holding the open's texts", looks)
	}
	for _, l := range looks {
		if l.kept > l.rest {
			t.Fatalf("after %d notes indexed the build holds %d bytes of texts, more than the %d the notes left weigh", l.done, l.kept, l.rest)
		}
	}
}

// freshOpen is the sample vault as a fresh clone's open finds it (no
// catalog, no index), its texts kept though it is small.
func freshOpen(t *testing.T) string {
	t.Helper()
	above := openTextsAbove
	openTextsAbove = 0
	t.Cleanup(func() { openTextsAbove = above })
	v, dir := sampleVault(t)
	v.Close()
	for _, p := range []string{v.index.Dir(), filepath.Join(dir, CacheDir, "catalog.json")} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
