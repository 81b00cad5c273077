package search

import (
	"math/rand"
	"strings"
	"testing"
)

// BenchmarkSnippet makes the snippets of ten hits, notes of 300 words
// drawn as a language draws them (a few words often, most rarely: Zipf's
// law over 3,000 made-up words), for a query of three of those words.
//
//	go test ./search -run '^$' -bench Snippet -benchmem -count 3
func BenchmarkSnippet(b *testing.B) {
	ix, _ := openT(b, b.TempDir(), nil, nil)
	defer ix.Close()
	rng := rand.New(rand.NewSource(1))
	vocab := make([]string, 3000)
	for i := range vocab {
		w := make([]byte, 3+rng.Intn(7))
		for j := range w {
			w[j] = byte('a' + rng.Intn(26))
		}
		vocab[i] = string(w)
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	bodies := make([]string, 10)
	for i := range bodies {
		var sb strings.Builder
		for w := range 300 {
			sb.WriteString(vocab[zipf.Uint64()])
			if w%12 == 11 {
				sb.WriteString(".\n")
			} else {
				sb.WriteByte(' ')
			}
		}
		bodies[i] = sb.String()
	}
	query := vocab[3] + " " + vocab[40] + " " + vocab[700]
	for b.Loop() {
		for _, body := range bodies {
			ix.Snippet(body, query, nil)
		}
	}
}
