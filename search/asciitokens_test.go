package search

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// sameTokens fails t unless asciiWords gives for text exactly the tokens
// Bleve's unicode tokenizer gives.
func sameTokens(t testing.TB, text []byte) {
	t.Helper()
	want := unicodetok.NewUnicodeTokenizer().Tokenize(text)
	got := asciiWords(text)
	if len(got) != len(want) {
		t.Fatalf("%q: %d tokens %s, Bleve's %d %s", text, len(got), tokenList(got), len(want), tokenList(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Term, w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type {
			t.Fatalf("%q: token %d is %+v, Bleve's %+v\ngot  %s\nwant %s", text, i, *g, *w, tokenList(got), tokenList(want))
		}
	}
}

func tokenList(ts analysis.TokenStream) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString("[" + string(t.Term) + "]")
	}
	return b.String()
}

// Random text made of the characters the word-boundary rules name (and a
// few they do not) splits as Bleve splits it.
func TestASCIIWordsAreBlevesOnRandomText(t *testing.T) {
	const alphabet = "abZ09_:.',;\" \t\r\n\v\f-!/#x7"
	r := rand.New(rand.NewPCG(1, 2))
	cases := 200_000
	if testing.Short() {
		cases = 20_000
	}
	buf := make([]byte, 0, 48)
	for range cases {
		buf = buf[:0]
		for range r.IntN(48) {
			buf = append(buf, alphabet[r.IntN(len(alphabet))])
		}
		sameTokens(t, buf)
	}
}

// Hand-picked corners of the rules, and every note of the sample vault
// in ASCII.
func TestASCIIWordsAreBlevesOnCornersAndNotes(t *testing.T) {
	for _, s := range []string{
		"", " ", "_", "__", "a", "1", "a_", "_1", "1_", "1_a", "a_1", "1_2",
		"a.b", "a..b", "a.b.c", "a.", ".a", "1.2", "1..2", "1.2.3", "1.a", "a.1",
		"1.2a", "a1.2", "a1b.c", "1,000", "a,b", "1;2", "a;b", "1:2", "a:b",
		"can't", "1'2", "'quoted'", "e.g.", "x'", "'x", "a_.b", "a._b",
		"3.14abc", "abc.123", "C++", "foo-bar", "\r\n", "a\r\nb", "tab\there",
		"ver 1.2.3-beta_4 (c) 2024", "mail: bob@example.com, http://x.y/z?q=1",
	} {
		sameTokens(t, []byte(s))
	}
	root := filepath.Join("..", "sample-vault")
	seen := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if asciiOnly(data) {
			sameTokens(t, data)
			seen++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no note of the sample vault is in ASCII alone")
	}
}

// Text with any byte past ASCII is Bleve's to split.
func TestASCIIFirstLeavesOtherTextToBleve(t *testing.T) {
	text := []byte("Café déjà vu, l'été 2024")
	want := unicodetok.NewUnicodeTokenizer().Tokenize(text)
	got := asciiFirst{unicodetok.NewUnicodeTokenizer()}.Tokenize(text)
	if tokenList(got) != tokenList(want) || len(got) != 5 {
		t.Fatalf("got %s, want %s", tokenList(got), tokenList(want))
	}
}

func FuzzASCIIWords(f *testing.F) {
	for _, s := range []string{"a.b", "1,000.5", "can't stop_now", "x:y:z 1;2;3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if asciiOnly(text) {
			sameTokens(t, text)
		}
	})
}

func BenchmarkTokenize(b *testing.B) {
	text := []byte(strings.Repeat("The meeting on 2024-03-12 moved the rollout of v1.2 to Q3; Bob's notes say it can't slip again, e.g. for the_api. ", 20))
	for _, tc := range []struct {
		name string
		tok  analysis.Tokenizer
	}{{"bleve", unicodetok.NewUnicodeTokenizer()}, {"ascii", asciiFirst{unicodetok.NewUnicodeTokenizer()}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tc.tok.Tokenize(text)
			}
		})
	}
}
