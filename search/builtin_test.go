package search

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func builtinForTest(t testing.TB) Embedder {
	t.Helper()
	e, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func embedOne(t testing.TB, e Embedder, text string) []float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return vs[0]
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm2(v []float32) float64 { return math.Sqrt(cosine(v, v)) }

func TestBuiltinUnitLengthAndDeterminism(t *testing.T) {
	e := builtinForTest(t)
	if e.Dims() != 100 {
		t.Fatalf("Dims = %d, want 100", e.Dims())
	}
	texts := []string{
		"The cat sat on the mat.",
		"Quarterly tax filing deadline",
		"We decided to move the API gateway to Go; latency halved.",
		"Ünïcödé wörds and CAPITALS, don't panic",
	}
	a, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.Embed(context.Background(), texts)
	for i, v := range a {
		if len(v) != 100 {
			t.Fatalf("%q: %d dims", texts[i], len(v))
		}
		if n := norm2(v); math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: norm %v, want 1", texts[i], n)
		}
		for d := range v {
			if v[d] != b[i][d] {
				t.Fatalf("%q: not deterministic at %d", texts[i], d)
			}
		}
	}
	// The same text alone or in a batch gives the same vector.
	if one := embedOne(t, e, texts[2]); cosine(one, a[2]) < 1-1e-6 {
		t.Errorf("batch changes the vector")
	}
}

func TestBuiltinEmptyAndUnknownAreZero(t *testing.T) {
	e := builtinForTest(t)
	for _, text := range []string{"", "   ", "12345 678", "!!! ...", "東京 北京"} {
		if n := norm2(embedOne(t, e, text)); n != 0 {
			t.Errorf("%q: norm %v, want the zero vector", text, n)
		}
	}
}

func TestBuiltinRelatedBeatsUnrelated(t *testing.T) {
	e := builtinForTest(t)
	cases := []struct{ a, near, far string }{
		{"the cat sat on the mat", "a kitten rested on the rug", "quarterly tax filing deadline"},
		{"we fixed the login bug in the auth service", "authentication error when users sign in", "my grandmother's apple pie recipe"},
		{"I went hiking in the mountains last weekend", "a trek up the alpine trail on Saturday", "the database migration failed"},
	}
	for _, c := range cases {
		v := embedOne(t, e, c.a)
		near, far := cosine(v, embedOne(t, e, c.near)), cosine(v, embedOne(t, e, c.far))
		if near <= far {
			t.Errorf("%q: cos(%q) = %.3f is not above cos(%q) = %.3f", c.a, c.near, near, c.far, far)
		}
	}
}

func TestBuiltinFrequentWordsWeighLittle(t *testing.T) {
	// SIF weighting: wrapping a content word in stop words barely moves
	// the vector, while a second content word does.
	e := builtinForTest(t)
	cat := embedOne(t, e, "cat")
	stop := cosine(cat, embedOne(t, e, "and then the cat was in it for a while"))
	content := cosine(cat, embedOne(t, e, "cat invoice"))
	if stop < 0.7 || stop <= content {
		t.Errorf("cat vs the same with 8 stop words: cosine %.3f; with one content word: %.3f", stop, content)
	}
}

func TestBuiltinFallbacks(t *testing.T) {
	e := builtinForTest(t)
	same := [][2]string{
		{"école", "ecole"}, {"École", "ECOLE"}, {"e\u0301cole", "ecole"}, // decomposed accent
		{"Café naïve", "cafe naive"},
		{"dahlias", "dahlia"}, {"lullabies", "lullaby"}, {"petted", "pet"}, {"sprucing", "spruce"},
		{"don't", "do not"}, {"it’s", "it"}, {"Caroline's", "caroline"},
	}
	for _, p := range same {
		a, b := embedOne(t, e, p[0]), embedOne(t, e, p[1])
		if norm2(b) == 0 {
			t.Fatalf("%q has no vector", p[1])
		}
		if c := cosine(a, b); c < 1-1e-6 {
			t.Errorf("%q vs %q: cosine %.4f, want the same vector", p[0], p[1], c)
		}
	}
}

func TestBuiltinConcurrent(t *testing.T) {
	e := builtinForTest(t)
	want := embedOne(t, e, "concurrent embedding of notes")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				vs, err := e.Embed(context.Background(), []string{"concurrent embedding of notes", "other text"})
				if err != nil || cosine(vs[0], want) < 1-1e-6 {
					t.Error("concurrent Embed differs", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestBuiltinIDNamesTheTable(t *testing.T) {
	e := builtinForTest(t)
	sum := sha256.Sum256(wordvecTable[tableHeaderSize:])
	want := "builtin:glove-wink-100d:" + hex.EncodeToString(sum[:4])
	if e.ID() != want {
		t.Fatalf("ID = %q, want %q", e.ID(), want)
	}
	if !regexp.MustCompile(`^builtin:glove-wink-100d:[0-9a-f]{8}$`).MatchString(e.ID()) {
		t.Fatalf("ID %q", e.ID())
	}

	// A rebuilt table (one value changed, checksum redone) is another ID.
	a := testTable(t, []testWord{{"cat", 1, []int8{1, 2, 3}}, {"dog", 2, []int8{3, 2, 1}}})
	b := testTable(t, []testWord{{"cat", 1, []int8{1, 2, 3}}, {"dog", 2, []int8{3, 2, 2}}})
	ta, err := parseWordTable(a)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := parseWordTable(b)
	if err != nil {
		t.Fatal(err)
	}
	if newBuiltin(ta).ID() == newBuiltin(tb).ID() {
		t.Fatal("different tables, same ID")
	}
}

func TestBuiltinDamagedTable(t *testing.T) {
	good := wordvecTable
	if _, err := parseWordTable(good); err != nil {
		t.Fatal(err)
	}
	flip := func(at int) []byte {
		b := append([]byte(nil), good...)
		b[at] ^= 0x40
		return b
	}
	cases := map[string][]byte{
		"empty":         nil,
		"magic":         flip(0),
		"version":       flip(8),
		"checksum":      flip(30),
		"word":          flip(tableHeaderSize + 200),
		"vector":        flip(len(good) - 1),
		"truncated":     good[:len(good)-1],
		"header only":   good[:tableHeaderSize],
		"short header":  good[:20],
		"trailing byte": append(append([]byte(nil), good...), 0),
	}
	for name, b := range cases {
		if _, err := parseWordTable(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestBuiltinTableLiesWithGoodChecksum(t *testing.T) {
	// A table whose checksum matches but whose header or lengths lie must
	// fail cleanly: the checksum is not the only guard against panics.
	words := []testWord{{"alpha", 0, []int8{1, 2}}, {"beta", 5, []int8{-3, 4}}}
	for name, mutate := range map[string]func([]byte) []byte{
		"count too big": func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], 3); return b },
		"count zero":    func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], 0); return b },
		"dims too big":  func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 3); return b },
		"huge dims":     func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 1<<31); return b },
		"vocab too low": func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 5); return b },
		"huge vocab":    func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 1<<31); return b },
		"zero scale":    func(b []byte) []byte { copy(b[len(b)-4-8:], []byte{0, 0, 0, 0}); return b },
		"huge word len": func(b []byte) []byte { b[tableHeaderSize+1+len("test table")] = 0x7f; return b },
	} {
		b := reseal(mutate(testTable(t, words)))
		if _, err := parseWordTable(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := parseWordTable(testTable(t, words)); err != nil {
		t.Fatalf("the unmutated table: %v", err)
	}
}

func TestBuiltinAccentedVocabulary(t *testing.T) {
	// The shipped table is ASCII, but a table with accented words must
	// also answer the plain spelling, and the exact word must win.
	tab, err := parseWordTable(testTable(t, []testWord{
		{"école", 3, []int8{10, 0}}, {"resume", 4, []int8{0, 10}}, {"résumé", 9, []int8{-10, 0}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	e := newBuiltin(tab)
	for text, want := range map[string][]float32{
		"ecole": {1, 0}, "École": {1, 0}, "resume": {0, 1}, "résumé": {-1, 0}, "RESUMES": {0, 1},
	} {
		got := embedOne(t, e, text)
		if cosine(got, want) < 1-1e-6 {
			t.Errorf("%q → %v, want %v", text, got, want)
		}
	}
}

type testWord struct {
	word string
	rank int
	vec  []int8
}

// testTable encodes words in the layout cmd/cairn-wordvec writes, with
// scale 1/127 and a source vocabulary of 10 words.
func testTable(t testing.TB, words []testWord) []byte {
	t.Helper()
	dims := len(words[0].vec)
	meta := "test table"
	p := binary.AppendUvarint(nil, uint64(len(meta)))
	p = append(p, meta...)
	for _, w := range words {
		p = binary.AppendUvarint(p, uint64(len(w.word)))
		p = append(p, w.word...)
	}
	prev := 0
	for _, w := range words {
		p = binary.AppendUvarint(p, uint64(w.rank-prev))
		prev = w.rank
	}
	for range words {
		p = binary.LittleEndian.AppendUint32(p, math.Float32bits(1.0/127))
	}
	for _, w := range words {
		for _, x := range w.vec {
			p = append(p, byte(x))
		}
	}
	h := []byte(tableMagic)
	for _, x := range []int{tableVersion, dims, len(words), 10} {
		h = binary.LittleEndian.AppendUint32(h, uint32(x))
	}
	h = append(h, make([]byte, sha256.Size)...)
	return reseal(append(h, p...))
}

// reseal recomputes a table's checksum after the test changed it.
func reseal(b []byte) []byte {
	sum := sha256.Sum256(b[tableHeaderSize:])
	copy(b[tableHeaderSize-sha256.Size:], sum[:])
	return b
}

// Short note-like sentences, as search indexes them.
var benchSentences = func() []string {
	subjects := []string{"The deploy", "Our team", "Caroline", "The new API", "This note", "My sister", "The build", "We"}
	verbs := []string{"failed after", "moved to", "talked about", "decided on", "fixed", "went hiking with", "reviewed", "planned"}
	objects := []string{"the database migration.", "a weekend trip to the mountains.", "Go generics and interfaces.",
		"the quarterly tax deadline!", "pottery classes, don't laugh", "the authentication bug in production", "café meetings", "léa's birthday"}
	var out []string
	for i := range 1024 {
		out = append(out, fmt.Sprintf("%s %s %s", subjects[i%8], verbs[i/8%8], objects[i/64%8]))
	}
	return out
}()

// BenchmarkBuiltinEmbed reports sentences per second on one core:
//
//	go test ./search/ -run '^$' -bench BuiltinEmbed -cpu 1
func BenchmarkBuiltinEmbed(b *testing.B) {
	e := builtinForTest(b)
	words := 0
	for _, s := range benchSentences {
		words += len(strings.Fields(s))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), benchSentences); err != nil {
			b.Fatal(err)
		}
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N*len(benchSentences))/secs, "sentences/s")
	b.ReportMetric(float64(words)/float64(len(benchSentences)), "words/sentence")
}
