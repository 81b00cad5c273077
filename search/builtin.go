package search

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// wordvecTable is the word-vector table made by cmd/cairn-wordvec from GloVe
// (see wordvec/README.md): embedded so the builtin embedder works offline,
// with no model download and no server.
//
//go:embed wordvec/wordvec.bin
var wordvecTable []byte

// Table layout (cmd/cairn-wordvec writes it): a 56-byte header, then the
// payload the header's SHA-256 covers.
const (
	tableMagic      = "CAIRNWV\x00"
	tableVersion    = 1
	tableHeaderSize = 8 + 4*4 + sha256.Size
)

// SIF weighting (Arora et al. 2017, "A simple but tough-to-beat baseline for
// sentence embeddings"): a word counts a/(a+p(w)), so "the" barely moves a
// sentence and "kitten" dominates it. p(w) comes from the word's frequency
// rank by Zipf-Mandelbrot, p ∝ 1/(rank+zipfK), since the table stores ranks,
// not counts. sifA was chosen on LoCoMo retrieval (wordvec/README.md).
const (
	sifA  = 1e-3
	zipfK = 2.7
)

// builtinVersion names the tokenizer and weighting; bump it when either
// changes so vectors stored under the old ID are rebuilt.
const builtinVersion = "glove-wink-100d"

// wordTable is the loaded table: vectors stay int8 in the embedded bytes,
// pre-multiplied at use by coef (the word's scale × its SIF weight).
type wordTable struct {
	dims  int
	index map[string]int32 // word (and accent-folded alias) → row
	coef  []float32        // row → scale × SIF weight
	sif   []float32        // row → SIF weight a/(a+p(w)), for Coverage
	vecs  []byte           // row-major int8, dims per row
	// notRow is the row of "not", which "n't" stands for (-1: none).
	notRow int32
	sum    [sha256.Size]byte
	meta   string // the converter's provenance note, for debugging
}

var (
	builtinOnce sync.Once
	builtinEmb  *builtinEmbedder
	builtinErr  error
)

// Builtin returns the embedder cairn uses when nothing else is configured:
// SIF-weighted averages of GloVe word vectors. It is weaker than a neural
// model but needs nothing outside the binary and embeds hundreds of
// thousands of short sentences a second on one core. The table is checked and indexed once, on first use.
func Builtin() (Embedder, error) {
	builtinOnce.Do(func() {
		t, err := parseWordTable(wordvecTable)
		if err != nil {
			builtinErr = fmt.Errorf("builtin embedder: %w", err)
			return
		}
		builtinEmb = newBuiltin(t)
	})
	if builtinErr != nil {
		return nil, builtinErr
	}
	return builtinEmb, nil
}

// parseWordTable verifies and indexes a table. Every length is checked
// against what remains, so a damaged table is an error, never a panic; the
// checksum catches damage that still parses.
func parseWordTable(b []byte) (*wordTable, error) {
	if len(b) < tableHeaderSize || string(b[:8]) != tableMagic {
		return nil, errors.New("word table: not a cairn word-vector table")
	}
	le := binary.LittleEndian
	ver, dims, count, vocab := le.Uint32(b[8:]), int(le.Uint32(b[12:])), int(le.Uint32(b[16:])), le.Uint32(b[20:])
	if ver != tableVersion {
		return nil, fmt.Errorf("word table: version %d, want %d", ver, tableVersion)
	}
	t := &wordTable{dims: dims}
	copy(t.sum[:], b[24:tableHeaderSize])
	p := b[tableHeaderSize:]
	if sha256.Sum256(p) != t.sum {
		return nil, errors.New("word table: checksum mismatch (damaged table)")
	}
	// Bounds keep a bad but re-checksummed table from costing much: vocab
	// sizes the Zipf sum below.
	if dims <= 0 || dims > 4096 || count <= 0 || uint64(count) > uint64(vocab) || vocab > 1<<24 || count > len(p) {
		return nil, fmt.Errorf("word table: implausible header (dims %d, count %d, vocab %d)", dims, count, vocab)
	}
	r := reader{b: p}
	t.meta = string(r.bytes(r.uvarint()))
	words := make([]string, count)
	for i := range words {
		words[i] = string(r.bytes(r.uvarint()))
	}
	ranks := make([]uint64, count)
	var rank uint64
	for i := range ranks {
		rank += r.uvarint()
		ranks[i] = rank
	}
	scales := r.bytes(uint64(count) * 4)
	t.vecs = r.bytes(uint64(count) * uint64(dims))
	if r.err != nil || len(r.b) != 0 || rank >= uint64(vocab) {
		return nil, errors.New("word table: payload does not match its header")
	}

	// p(w) = 1/((rank+k)·H) with H normalising over the source vocabulary.
	h := 0.0
	for r := range int(vocab) {
		h += 1 / (float64(r) + zipfK)
	}
	t.coef = make([]float32, count)
	t.sif = make([]float32, count)
	t.index = make(map[string]int32, count)
	for i, w := range words {
		p := 1 / ((float64(ranks[i]) + zipfK) * h)
		scale := math.Float32frombits(le.Uint32(scales[4*i:]))
		if !(scale > 0) || math.IsInf(float64(scale), 0) {
			return nil, fmt.Errorf("word table: word %q has scale %v", w, scale)
		}
		t.sif[i] = float32(sifA / (sifA + p))
		t.coef[i] = scale * t.sif[i]
		if _, dup := t.index[w]; !dup {
			t.index[w] = int32(i)
		}
	}
	t.notRow = -1
	if row, ok := t.index["not"]; ok {
		t.notRow = row
	}
	// An accented word is also found by its plain spelling ("école" by
	// "ecole"); the more frequent word keeps a shared spelling.
	var fold []byte
	var nfd norm.Iter
	for i, w := range words {
		if !isASCII(w) {
			fold = foldAccents(fold[:0], []byte(w), &nfd)
			if _, ok := t.index[string(fold)]; !ok {
				t.index[string(fold)] = int32(i)
			}
		}
	}
	return t, nil
}

// reader takes length-checked pieces off a byte slice; after the first
// short read it returns nothing and remembers the error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad varint")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errors.New("short table")
		r.b = nil
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// builtinEmbedder is the Embedder over a wordTable.
type builtinEmbedder struct {
	t  *wordTable
	id string
}

func newBuiltin(t *wordTable) *builtinEmbedder {
	// The checksum prefix ties stored vectors to this exact table.
	return &builtinEmbedder{t: t, id: "builtin:" + builtinVersion + ":" + hex.EncodeToString(t.sum[:4])}
}

// ID is "builtin:glove-wink-100d:<first 8 hex of the table's SHA-256>".
func (e *builtinEmbedder) ID() string { return e.id }

// Dims is the table's vector length (100).
func (e *builtinEmbedder) Dims() int { return e.t.dims }

// Embed returns one unit vector per text. A text with no known word (empty,
// numbers only, another script) gets the zero vector, whose cosine with
// anything is 0, so it never ranks above a text that shares meaning.
func (e *builtinEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	dims := e.t.dims
	slab := make([]float32, len(texts)*dims)
	out := make([][]float32, len(texts))
	var s tokenState
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := slab[i*dims : (i+1)*dims : (i+1)*dims]
		e.t.embed(v, text, &s)
		out[i] = v
	}
	return out, nil
}

// Languages are the languages of the table's words: its vectors were
// trained on English text.
func (e *builtinEmbedder) Languages() []string { return []string{"en"} }

// Coverage is the share of text's weight the table knows: each word
// weighs its SIF weight (near 0 for "the" or "which", near 1 for a rare
// word) and a word the table lacks weighs 1, as the rarest word would.
// So stop words neither add to a query's coverage nor dilute it, and a
// query whose content words are all unknown has coverage 0 (and the zero
// vector). Search weighs the semantic list by it (docs/search-ranking.md, "How
// the two lists are fused").
func (e *builtinEmbedder) Coverage(text string) float64 {
	var s tokenState
	v := make([]float32, e.t.dims)
	e.t.embed(v, text, &s)
	if s.total == 0 {
		return 0
	}
	return s.known / s.total
}

// tokenState holds the buffers one Embed call reuses for every token, so
// embedding allocates per call, not per word; known and total sum the
// SIF weights of the words found and of all words (Coverage).
type tokenState struct {
	tok, fold, cand []byte
	nfd             norm.Iter
	known, total    float64
}

// embed writes the normalised SIF average of text's word vectors into v.
// The average's 1/n is dropped: normalising removes it anyway.
func (t *wordTable) embed(v []float32, text string, s *tokenState) {
	tok := s.tok[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				tok = append(tok, c)
			case 'A' <= c && c <= 'Z':
				tok = append(tok, c+'a'-'A')
			case c == '\'' && len(tok) > 0:
				var skip int
				tok, skip = t.clitic(v, tok, text[i+1:], s)
				i += skip
			default:
				t.add(v, tok, s)
				tok = tok[:0]
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			tok = utf8.AppendRune(tok, unicode.ToLower(r))
		case unicode.Is(unicode.Mn, r) && len(tok) > 0:
			tok = utf8.AppendRune(tok, r) // decomposed accent: folded on lookup
		case r == '’' && len(tok) > 0:
			var skip int
			tok, skip = t.clitic(v, tok, text[i+size:], s)
			i += skip
		default:
			t.add(v, tok, s)
			tok = tok[:0]
		}
		i += size
	}
	t.add(v, tok, s)
	s.tok = tok
	normalize(v)
}

// clitic handles an apostrophe after a word. GloVe's tokenizer split
// "don't" as "do n't" and "can't" as "ca n't", so "n't" becomes "not" and
// the "n" goes back to the verb; 's 're 've 'll 'd 'm are dropped (stop
// words with no weight to speak of). Anything else ("o'neil") splits. It
// returns the token to continue with and how many bytes of rest it used.
func (t *wordTable) clitic(v []float32, tok []byte, rest string, s *tokenState) ([]byte, int) {
	n := 0
	for n < len(rest) && n < 3 && 'a' <= rest[n]|0x20 && rest[n]|0x20 <= 'z' {
		n++
	}
	if n < len(rest) && rest[n] < utf8.RuneSelf && ('a' <= rest[n]|0x20 && rest[n]|0x20 <= 'z' || '0' <= rest[n] && rest[n] <= '9') {
		n = 0 // a longer word follows: not a clitic
	}
	var low [3]byte
	for i := range n {
		low[i] = rest[i] | 0x20
	}
	switch string(low[:n]) {
	case "t":
		if tok[len(tok)-1] == 'n' && len(tok) > 1 {
			t.add(v, tok[:len(tok)-1], s)
			t.addRow(v, t.notRow, s)
			return tok[:0], n
		}
	case "s", "re", "ve", "ll", "d", "m":
		t.add(v, tok, s)
		return tok[:0], n
	}
	t.add(v, tok, s)
	return tok[:0], 0
}

// add adds one token's weighted vector to v; unknown tokens add nothing.
func (t *wordTable) add(v []float32, tok []byte, s *tokenState) {
	if len(tok) == 0 {
		return
	}
	if row, ok := t.lookup(tok, s); ok {
		t.addRow(v, row, s)
		return
	}
	s.total++
}

func (t *wordTable) addRow(v []float32, row int32, s *tokenState) {
	if row < 0 {
		return
	}
	s.known += float64(t.sif[row])
	s.total += float64(t.sif[row])
	c := t.coef[row]
	q := t.vecs[int(row)*t.dims : int(row+1)*t.dims]
	v = v[:len(q)]
	for d, x := range q {
		v[d] += c * float32(int8(x))
	}
}

func normalize(v []float32) {
	var ss float32
	for _, x := range v {
		ss += x * x
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(float64(ss)))
	for d := range v {
		v[d] *= inv
	}
}
