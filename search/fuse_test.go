package search

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBuiltinCoverage(t *testing.T) {
	e := builtinForTest(t).(CoverageReporter)
	for _, q := range []string{"xqzvw", "télétravail", "ete", "", "  ", "42xq7"} {
		if c := e.Coverage(q); c != 0 {
			t.Errorf("Coverage(%q) = %v, want 0 (no known word)", q, c)
		}
	}
	if c := e.Coverage("the cat sat on the mat"); c != 1 {
		t.Errorf("every word known: coverage %v, want 1", c)
	}
	// Stop words weigh next to nothing: one unknown content word beside
	// them leaves little, one known content word most.
	if c := e.Coverage("which xqzvw did we choose"); c < 0.3 || c > 0.7 {
		t.Errorf("one content word of two unknown: coverage %v, want about half", c)
	}
	if c := e.Coverage("which of them did we choose"); c < 0.99 {
		t.Errorf("stop words and a known word: coverage %v, want 1", c)
	}
}

// office is a corpus for the fusion tests: twelve notes that say "office"
// alike, a note about a cat that does not, and one about a vendor whose
// name no embedder knows.
func office() []*Doc {
	var docs []*Doc
	for i, topic := range []string{"budget review", "printer queue", "holiday calendar", "parking spaces", "coffee machine", "meeting rooms", "badge access", "heating schedule", "recycling bins", "visitor policy", "desk booking", "plant watering"} {
		docs = append(docs, &Doc{Path: "o/" + strings.ReplaceAll(topic, " ", "-") + ".md", Title: strings.ToUpper(topic[:1]) + topic[1:], Scope: "s",
			Body: "Notes on the " + topic + " for the office. We choose what to do about the " + topic + " at the monthly meeting."})
		_ = i
	}
	docs = append(docs,
		// Written like the dozen others, so that lexical search scores the
		// word they share ("office") alike in all thirteen.
		&Doc{Path: "o/cat.md", Title: "Whiskers", Scope: "s", Body: "Notes on the sleeping cat for the office. We choose what to do about the sleeping cat at the monthly meeting."},
		&Doc{Path: "o/vendor.md", Title: "Qorvandix contract", Scope: "s", Body: "Qorvandix invoices go to accounts payable within thirty days."},
	)
	return versioned(docs)
}

func openOffice(t *testing.T) *Index {
	t.Helper()
	ix, _ := openT(t, t.TempDir(), builtinT(t), nil)
	t.Cleanup(func() { ix.Close() })
	if err := ix.Apply(office(), nil); err != nil {
		t.Fatal(err)
	}
	if !ix.WaitVectors(30 * time.Second) {
		t.Fatal("vectors not made")
	}
	return ix
}

func search(t *testing.T, ix *Index, text string, m Mode) *Result {
	t.Helper()
	r, err := ix.Search(context.Background(), Query{Text: text, Mode: m, Limit: 20, Filter: Filter{Scopes: []string{"s"}}})
	if err != nil {
		t.Fatalf("%s %q: %v", m, text, err)
	}
	return r
}

// No evidence, no result: a query with no word the embedder knows gets no
// semantic hit (it used to get the first notes by path), and hybrid is
// then exactly lexical.
func TestNoKnownWordNoSemanticResult(t *testing.T) {
	ix := openOffice(t)
	ix.Apply(versioned([]*Doc{{Path: "o/xq.md", Title: "Codes", Scope: "s", Body: "The code xqzvw opens the télétravail form."}}), nil)
	for _, q := range []string{"xqzvw", "télétravail", "ete"} {
		r := search(t, ix, q, Semantic)
		if len(r.Hits) != 0 || r.Mode != Semantic || !strings.Contains(r.Notice, "knows no word") {
			t.Errorf("semantic %q: got mode %s notice %q hits %v, want none and a notice", q, r.Mode, r.Notice, paths(r))
		}
		h, l := search(t, ix, q, Hybrid), search(t, ix, q, Lexical)
		// "télétravail" is also plainly French: either notice says why
		// hybrid ran lexically.
		if !slices.Equal(paths(h), paths(l)) || h.Mode != Lexical || !strings.Contains(h.Notice, "ran lexically") {
			t.Errorf("hybrid %q: got mode %s notice %q hits %v, want lexical's %v", q, h.Mode, h.Notice, paths(h), paths(l))
		}
		for i := range h.Hits {
			if h.Hits[i].Score != l.Hits[i].Score || h.Hits[i].Semantic != nil {
				t.Errorf("hybrid %q: hit %d differs from lexical: %+v, %+v", q, i, h.Hits[i], l.Hits[i])
			}
		}
	}
	if r := search(t, ix, "xqzvw", Hybrid); len(r.Hits) == 0 || r.Hits[0].Path != "o/xq.md" {
		t.Errorf("lexical still finds the word: %v", paths(r))
	}
}

// A semantic list that knows only part of the query and stands out little
// cannot push a lexical top hit that stands out down; it still gets a
// weight, so it moves what lexical ranks alike.
func TestFlatSemanticCannotMoveAStrongLexicalTop(t *testing.T) {
	ix := openOffice(t)
	q := "which qorvandix plan did we choose"
	lex, sem, hyb := search(t, ix, q, Lexical), search(t, ix, q, Semantic), search(t, ix, q, Hybrid)
	if len(lex.Hits) < 3 || lex.Hits[0].Path != "o/vendor.md" {
		t.Fatalf("lexical: %v, want o/vendor.md first", paths(lex))
	}
	if sem.Hits[0].Path == "o/vendor.md" {
		t.Fatalf("the test needs a semantic list that disagrees: %v", paths(sem))
	}
	if hyb.Hits[0].Path != "o/vendor.md" || hyb.SemanticWeight <= 0 || hyb.SemanticWeight >= 0.5 {
		t.Errorf("hybrid: %v with semantic weight %v; want o/vendor.md first, a weight in (0, 0.5)", paths(hyb), hyb.SemanticWeight)
	}
	// With a fixed weight of one half (the rule before), semantic's
	// favourite among the notes lexical ranks alike would come first.
	old := map[string]float64{}
	for i, p := range paths(lex) {
		old[p] += 1 / (RRFK + float64(i+1))
	}
	for i, p := range paths(sem) {
		old[p] += 0.5 / (RRFK + float64(i+1))
	}
	for p, s := range old {
		if p != "o/vendor.md" && s > old["o/vendor.md"] {
			return
		}
	}
	t.Error("the test needs a case the fixed weight got wrong")
}

// A semantic list whose top stands out wins over a lexical list that
// ranks a dozen notes alike on one common word ("office", in every note):
// the lexical ties share a rank, and the semantic list orders them.
func TestStandingOutSemanticBeatsFlatLexical(t *testing.T) {
	ix := openOffice(t)
	q := "a sleepy feline in the office"
	lex, hyb := search(t, ix, q, Lexical), search(t, ix, q, Hybrid)
	if len(lex.Hits) < 13 || lex.Hits[0].Lexical.Rank != 1 || lex.Hits[12].Lexical.Rank != 1 {
		t.Fatalf("lexical must rank the thirteen office notes alike: %+v", lex.Hits)
	}
	if hyb.Hits[0].Path != "o/cat.md" || hyb.SemanticWeight <= 1 {
		t.Errorf("hybrid: %v with semantic weight %v; want o/cat.md first, a weight above lexical's", paths(hyb), hyb.SemanticWeight)
	}
}

func TestStandout(t *testing.T) {
	cases := []struct {
		x    []float64
		pad  int
		want float64
	}{
		{nil, 10, 0},
		{[]float64{3, 3, 3}, 3, 0},              // flat: no evidence
		{[]float64{5}, 10, 3},                   // one score among nine zeros: sqrt(9)
		{[]float64{2, 1, 0}, 3, math.Sqrt(1.5)}, // mean 1, sd sqrt(2/3)
	}
	for _, c := range cases {
		if got := standout(c.x, c.pad); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("standout(%v, %d) = %v, want %v", c.x, c.pad, got, c.want)
		}
	}
}

// An HTTP embedder is taken to know every word (coverage 1), unless the
// vector it gives the query is all zeros: then no semantic result either.
func TestHTTPEmbedderZeroVectorNoSemanticResult(t *testing.T) {
	f := &fakeServer{t: t, protocol: "openai", dims: 8}
	s := f.start()
	emb, err := NewOpenAI(EmbedderConfig{Provider: "openai", URL: s.URL, Model: "m", Dimensions: 8})
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := openT(t, t.TempDir(), emb, nil)
	defer ix.Close()
	ix.Apply(office(), nil)
	if !ix.WaitVectors(30 * time.Second) {
		t.Fatal("vectors not made")
	}
	r := search(t, ix, "whatever the server makes of it", Semantic)
	if len(r.Hits) == 0 || r.Notice != "" {
		t.Fatalf("a vector for the query: want semantic hits, got %v %q", paths(r), r.Notice)
	}
	f.setMutate(func(vs [][]float32) [][]float32 {
		for _, v := range vs {
			clear(v)
		}
		return vs
	})
	r = search(t, ix, "whatever the server makes of it", Semantic)
	if len(r.Hits) != 0 || !strings.Contains(r.Notice, "knows no word") {
		t.Errorf("a zero query vector: want no hits and a notice, got %v %q", paths(r), r.Notice)
	}
}

// Scores tied after fusion go to the hit whose words match the query: a
// note found by its words and another only by its vector, at the same
// rank with the lists weighing alike (a new note whose vector is not made
// yet is in the lexical list only), whatever their paths.
func TestATieGoesToTheWordMatch(t *testing.T) {
	ix := openOffice(t)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, c := range []struct{ lex, sem string }{{"o/b.md", "o/a.md"}, {"o/a.md", "o/b.md"}} {
		got := ix.fuse([]lexHit{{Path: c.lex, Score: 1}}, []semHit{{Path: c.sem, Sim: 0.5}}, 1, nil, Query{Limit: 10}, Hybrid)
		if len(got) != 2 || got[0].Path != c.lex || got[0].Score != got[1].Score {
			t.Fatalf("lexical %s, semantic %s: %+v", c.lex, c.sem, got)
		}
	}
}

// The builtin vectors read English: a question plainly written in French
// (by its stop words) is answered by word matching alone, where the
// vectors could only rank it by the odd word French shares with English.
// Semantic mode still runs when asked for, and an English question, or
// keywords in no telling language, stay hybrid.
func TestFrenchQuestionLeavesEnglishVectorsOut(t *testing.T) {
	ix := openOffice(t)
	fr := "qu'est-ce que nous faisons pour le chat qui dort au bureau ?"
	h, l := search(t, ix, fr, Hybrid), search(t, ix, fr, Lexical)
	if h.Mode != Lexical || !strings.Contains(h.Notice, "French") || !slices.Equal(paths(h), paths(l)) {
		t.Errorf("hybrid %q: mode %s notice %q hits %v, want lexical's %v with a notice", fr, h.Mode, h.Notice, paths(h), paths(l))
	}
	if s := search(t, ix, fr, Semantic); s.Mode != Semantic || strings.Contains(s.Notice, "French") {
		t.Errorf("semantic %q: mode %s notice %q, want semantic mode without the language notice", fr, s.Mode, s.Notice)
	}
	for _, q := range []string{"what do we do about the sleeping cat in the office", "chat bureau", "sleeping cat"} {
		if r := search(t, ix, q, Hybrid); r.Mode != Hybrid || r.Notice != "" {
			t.Errorf("hybrid %q: mode %s notice %q, want hybrid", q, r.Mode, r.Notice)
		}
	}
}

func TestWrittenIn(t *testing.T) {
	for q, want := range map[string]string{
		"comment faire un tableau dans une note": "fr",
		"how do I make a table in a note":        "en",
		"Melanie's son":                          "",
		"tableau":                                "",
		"le the":                                 "",
		"qu'est-ce que c'est, la liste des tâches ?": "fr",
		"fichiers compressés":                        "fr",
		"which café did we choose":                   "en",
		"café":                                       "fr",
		"Zoë":                                        "fr",
		"naive cafe":                                 "",
	} {
		if got := writtenIn(q); got != want {
			t.Errorf("writtenIn(%q) = %q, want %q", q, got, want)
		}
	}
}
