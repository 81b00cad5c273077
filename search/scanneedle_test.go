package search

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// countIn, which looks for the needles' first bytes with bytes.IndexByte,
// counts what countEach, which looks at every byte, counts: on random
// texts and needles made of letters of both cases, digits, underscores,
// spaces, punctuation and UTF-8, collapsed or not, with words of many
// first bytes (past maxFirsts), counts reaching 255, and needles at the
// text's first and last bytes.
func TestCountInCountsAsEveryByteDoes(t *testing.T) {
	const alphabet = "aAbBgGsS_0 9.-'éÉ\n"
	rng := rand.New(rand.NewSource(1))
	pick := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return b
	}
	checked, passes := 0, 0
	for round := range 20000 {
		var words []scanWord
		for range 1 + rng.Intn(6) {
			w := scanWord{collapsed: rng.Intn(2) == 0}
			for range 1 + rng.Intn(3) {
				n := pick(1 + rng.Intn(3))
				for i, c := range n {
					n[i] = lowerASCII[c] // needles are lower case, as the analysers make terms
				}
				w.needles = append(w.needles, n)
			}
			words = append(words, w)
		}
		m := newScanMatcher(words)
		text := pick(rng.Intn(300))
		if round%100 == 0 {
			text = slices.Repeat([]byte("a "), 400) // past 255 counts
		}
		want := make([]uint8, m.words)
		got := make([]uint8, m.words)
		wf, gf := m.countEach(want, text), m.countIn(got, text)
		if wf != gf || !slices.Equal(want, got) {
			t.Fatalf("text %q, words %+v: countIn %v %v, countEach %v %v", text, words, got, gf, want, wf)
		}
		checked++
		if len(m.firsts) <= maxFirsts {
			passes++
		}
	}
	if passes < checked/4 {
		t.Fatalf("only %d of %d rounds took countIn's own way", passes, checked)
	}
}

// BenchmarkCountIn matches a three-word query against a sample vault's
// notes, against countEach: `go test ./search -run '^$' -bench Count`.
func BenchmarkCountIn(b *testing.B)   { benchmarkCount(b, (*scanMatcher).countIn) }
func BenchmarkCountEach(b *testing.B) { benchmarkCount(b, (*scanMatcher).countEach) }

func benchmarkCount(b *testing.B, count func(*scanMatcher, []uint8, []byte) bool) {
	var texts [][]byte
	size := 0
	for _, glob := range []string{"../sample-vault/*/*.md", "../sample-vault/*/*/*.md"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			texts = append(texts, data)
			size += len(data)
		}
	}
	words := []scanWord{{needles: [][]byte{[]byte("garden")}}, {needles: [][]byte{[]byte("pric")}}, {needles: [][]byte{[]byte("caroline")}}}
	m := newScanMatcher(words)
	out := make([]uint8, m.words)
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, t := range texts {
			count(m, out, t)
		}
	}
}
