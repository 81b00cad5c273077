package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// vecNote is one note's chunk vectors. They are saved as int8 components
// with one scale per chunk (a quarter of float32's size on disk; rankings
// do not move) and held as the float32 rows a search scans, in
// vectors.arena: each row is its int8 components times its scale, so the
// save gives back the very components (quantizeRow) and the int8 copy is
// not kept (34 MiB at 100,000 notes).
type vecNote struct {
	path    string
	version string
	chunks  []Chunk
	scale   []float32
	// meta is the index's record of the document (its scope and filter
	// fields), kept current by Index.Apply; nil when the document is not
	// indexed or its vectors are of an older version.
	meta *docMeta
	span int // its entry in vectors.spans
}

// vspan is where a note's rows sit in the arena, with what the scan needs
// to skip it without touching the note (a pointer chase per note was half
// of a 100,000-note scan).
type vspan struct {
	note  *vecNote // nil once replaced or removed
	block int32    // its arena block
	start int32    // first row within the block
	rows  int32
	scope int32 // docMeta.scope; -1 when not searchable (no or stale meta)
}

// vectors holds every note's chunk vectors in memory, for exact search:
// a float32 arena of fixed blocks (arena.go) scanned in order, rows added
// as notes are embedded, compacted when a quarter of it is dead. It is
// saved as a sidecar file with a versioned header naming the model, the
// dimensions and the quantization, and a checksum per record; a file made
// by another model, or damaged anywhere, is discarded whole and the
// vectors are rebuilt (an ANN index can later replace the scan without
// changing the file).
type vectors struct {
	mu    sync.RWMutex
	model string
	dims  int
	notes map[string]*vecNote
	arena arena
	spans []vspan
	dead  int    // rows of the arena no live span holds
	gen   uint64 // counts changes, so a save knows whether it saved the last
	dirty bool
}

func newVectors(model string, dims int) *vectors {
	return &vectors{model: model, dims: dims, notes: map[string]*vecNote{}, arena: arena{dims: dims}}
}

// set adds or replaces a note whose rows' int8 components are q, a row
// of dims bytes per chunk (the caller holds mu for writing).
func (vs *vectors) set(n *vecNote, q [][]byte) {
	if old := vs.notes[n.path]; old != nil {
		vs.kill(old)
	}
	n.span = len(vs.spans)
	rows := len(n.chunks)
	block, start, dst := vs.arena.reserve(rows)
	vs.spans = append(vs.spans, vspan{note: n, block: block, start: start, rows: int32(rows)})
	dequantize(dst, n.scale, q, vs.dims)
	vs.notes[n.path] = n
	vs.setSpanMeta(n, n.meta)
	vs.dirty = true
	vs.gen++
}

func (vs *vectors) kill(n *vecNote) {
	sp := &vs.spans[n.span]
	sp.note, sp.scope = nil, -1
	vs.dead += int(sp.rows)
	delete(vs.notes, n.path)
	if vs.dead > compactMin && vs.dead*4 > vs.arena.rows {
		vs.compact()
	}
}

// compactMin is how many dead rows the arena keeps before compacting.
var compactMin = 10000

// compact rewrites the arena with the live notes only.
func (vs *vectors) compact() {
	fresh := arena{dims: vs.dims}
	spans := make([]vspan, 0, len(vs.notes))
	for _, sp := range vs.spans {
		if sp.note == nil {
			continue
		}
		block, start, dst := fresh.reserve(int(sp.rows))
		copy(dst, vs.arena.at(sp.block, sp.start, sp.rows))
		sp.note.span = len(spans)
		sp.block, sp.start = block, start
		spans = append(spans, sp)
	}
	vs.arena, vs.spans, vs.dead = fresh, spans, 0
}

func (vs *vectors) setSpanMeta(n *vecNote, m *docMeta) {
	n.meta = nil // stale vectors are skipped until made again
	if m != nil && m.Version == n.version {
		n.meta = m
	}
	sp := &vs.spans[n.span]
	sp.scope = -1
	if n.meta != nil {
		sp.scope = int32(n.meta.scope)
	}
}

// setMeta points a note's vectors at the document's new record.
func (vs *vectors) setMeta(path string, m *docMeta) {
	vs.mu.Lock()
	if n := vs.notes[path]; n != nil {
		vs.setSpanMeta(n, m)
	}
	vs.mu.Unlock()
}

// quantize turns unit vectors into int8 with a per-vector scale: a row of
// dims bytes per vector (int8 in two's complement, as saved).
func quantize(vs [][]float32, dims int) ([]float32, [][]byte) {
	scale := make([]float32, len(vs))
	all := make([]byte, len(vs)*dims)
	q := make([][]byte, len(vs))
	for i, v := range vs {
		q[i] = all[i*dims : (i+1)*dims]
		var m float32
		for _, x := range v {
			m = max(m, float32(math.Abs(float64(x))))
		}
		if m == 0 {
			continue
		}
		scale[i] = m / 127
		quantizeRow(q[i], v, scale[i])
	}
	return scale, q
}

// quantizeRow writes row's components divided by scale, rounded, into
// dst. Given a row of the arena (int8 components times their scale) and
// its scale, it gives back the very components: each is an integer of at
// most 127 times (1 ± 2⁻²⁴) after the multiplication and the division,
// far from a rounding boundary.
func quantizeRow(dst []byte, row []float32, scale float32) {
	if scale == 0 {
		clear(dst)
		return
	}
	for j, x := range row {
		dst[j] = byte(int8(math.Round(float64(x / scale))))
	}
}

// dequantize writes the float vectors a scan multiplies (twice as fast as
// converting int8 on the fly) into dst, row by row: no division per
// component, no slice of its own (a warm start loads every note's rows).
func dequantize(dst, scale []float32, q [][]byte, dims int) {
	for r, s := range scale {
		out := dst[r*dims : (r+1)*dims]
		for j, x := range q[r] {
			out[j] = float32(int8(x)) * s
		}
	}
}

func (vs *vectors) put(path, version string, chunks []Chunk, vecs [][]float32, m *docMeta) {
	scale, q := quantize(vecs, vs.dims)
	vs.mu.Lock()
	vs.set(&vecNote{path: path, version: version, chunks: chunks, scale: scale, meta: m}, q)
	vs.mu.Unlock()
}

func (vs *vectors) remove(path string) {
	vs.mu.Lock()
	if n, ok := vs.notes[path]; ok {
		vs.kill(n)
		vs.dirty = true
		vs.gen++
	}
	vs.mu.Unlock()
}

func (vs *vectors) version(path string) (string, bool) {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	n, ok := vs.notes[path]
	if !ok {
		return "", false
	}
	return n.version, true
}

// semHit is one semantic result: a note's best chunk.
type semHit struct {
	Path  string
	Sim   float64
	Chunk Chunk
}

// vfilter is a query's filter as the scan applies it: by scope number
// alone when the query has no other filter.
type vfilter struct {
	scopeOK []bool
	only    bool // scopes are the whole filter
	full    func(path string, m *docMeta) bool
}

// search scores every chunk of every note the filter accepts against the
// query vector and keeps each note's best chunk: the n best notes, and
// how many notes it scored. Large sets are scanned by one goroutine per
// CPU. Lock order: the caller may hold Index.mu; the filter must not take
// it.
func (vs *vectors) search(qv []float32, f vfilter, n int) ([]semHit, int) {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	parts := 1
	if len(vs.spans) >= 4000 {
		parts = runtime.GOMAXPROCS(0)
	}
	tops := make([][]semHit, parts)
	scored := make([]int, parts)
	var wg sync.WaitGroup
	for w := 0; w < parts; w++ {
		lo, hi := w*len(vs.spans)/parts, (w+1)*len(vs.spans)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			tops[w], scored[w] = vs.scan(vs.spans[lo:hi], qv, f, n)
		}()
	}
	wg.Wait()
	top, count := tops[0], scored[0]
	for w, t := range tops[1:] {
		count += scored[w+1]
		for _, h := range t {
			top = insertTop(top, h, n)
		}
	}
	return top, count
}

func (vs *vectors) scan(spans []vspan, qv []float32, f vfilter, n int) ([]semHit, int) {
	count := 0
	top := make([]semHit, 0, n+1)
	d := vs.dims
	qv = qv[:d]
	for i := range spans {
		sp := &spans[i]
		if sp.scope < 0 || int(sp.scope) >= len(f.scopeOK) || !f.scopeOK[sp.scope] {
			continue
		}
		if !f.only && !f.full(sp.note.path, sp.note.meta) {
			continue
		}
		best, bestRow := float32(-2), -1
		if sp.rows > 0 {
			rows := vs.arena.at(sp.block, sp.start, sp.rows)
			for r := 0; r < int(sp.rows); r++ {
				if s := dot(qv, rows[r*d:(r+1)*d]); s > best {
					best, bestRow = s, r
				}
			}
		}
		if bestRow < 0 {
			continue
		}
		count++
		if len(top) == n && float64(best) < top[n-1].Sim {
			continue
		}
		h := semHit{Path: sp.note.path, Sim: float64(best), Chunk: sp.note.chunks[bestRow]}
		if len(top) == n && !better(h, top[n-1]) {
			continue
		}
		top = insertTop(top, h, n)
	}
	return top, count
}

// dot is the dot product of two vectors of the same length, four
// components at a time.
func dot(q, row []float32) float32 {
	row = row[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * row[i]
		s1 += q[i+1] * row[i+1]
		s2 += q[i+2] * row[i+2]
		s3 += q[i+3] * row[i+3]
	}
	for ; i < len(q); i++ {
		s0 += q[i] * row[i]
	}
	return s0 + s1 + s2 + s3
}

func insertTop(top []semHit, h semHit, n int) []semHit {
	i := sort.Search(len(top), func(i int) bool { return better(h, top[i]) })
	if i >= n {
		return top
	}
	top = append(top, semHit{})
	copy(top[i+1:], top[i:])
	top[i] = h
	if len(top) > n {
		top = top[:n]
	}
	return top
}

func better(a, b semHit) bool {
	if a.Sim != b.Sim {
		return a.Sim > b.Sim
	}
	return a.Path < b.Path
}

// The sidecar file.
const (
	vecMagic   = "CAIRNVEC"
	vecFormat  = 2 // 2: titles embedded without their numbers (chunkText)
	quantInt8  = 1
	maxRecord  = 64 << 20
	maxStrings = 1 << 16
	minRecord  = 4 + 2 + 2 + 4 + 4 // length, path, version, chunk count, checksum
)

var errVecFile = errors.New("vector file")

// save writes the vectors atomically: the notes and their rows taken
// under the read lock, serialised and written without it (a search or an
// Apply never waits for the encoding nor the disk; encoding took 200–270
// ms at 100,000 notes, and every write's Apply waited for it), to a
// temporary file of its own, synced, renamed into place.
func (vs *vectors) save(file string) error {
	vs.mu.RLock()
	if !vs.dirty {
		vs.mu.RUnlock()
		return nil
	}
	gen := vs.gen
	notes := vs.snapshot()
	vs.mu.RUnlock()
	err := writeFileWith(file, func(w io.Writer) error { return writeNotes(w, vs.model, vs.dims, notes) })
	if err != nil {
		return fmt.Errorf("save vectors: %w", err)
	}
	vs.mu.Lock()
	if vs.gen == gen {
		vs.dirty = false
	}
	vs.mu.Unlock()
	return nil
}

// savedNote is a note as a save takes it: its vecNote (whose version,
// chunks and scales never change once set) and its rows in the arena.
// The rows stay as they are after the lock is let go: the arena only
// adds rows after its last, and a compaction writes a new arena.
type savedNote struct {
	path string
	n    *vecNote
	rows []float32
}

// snapshot is every note, by path (the caller holds mu).
func (vs *vectors) snapshot() []savedNote {
	out := make([]savedNote, 0, len(vs.notes))
	for p, n := range vs.notes {
		sp := vs.spans[n.span]
		out = append(out, savedNote{path: p, n: n, rows: vs.arena.at(sp.block, sp.start, sp.rows)})
	}
	return out
}

// writeNotes writes the file of notes to w, one record at a time through
// a buffer of the largest record's size: the file built whole in memory
// (44 MiB at 100,000 notes) sat on top of a build's peak at every save
// during the build (issue 16).
func writeNotes(w io.Writer, model string, dims int, notes []savedNote) error {
	sort.Slice(notes, func(i, j int) bool { return notes[i].path < notes[j].path })
	le := binary.LittleEndian
	b := make([]byte, 0, 64<<10)
	b = append(b, vecMagic...)
	b = le.AppendUint32(b, vecFormat)
	b = le.AppendUint32(b, uint32(dims))
	b = append(b, quantInt8)
	b = appendStr(b, model)
	b = le.AppendUint32(b, uint32(len(notes)))
	b = le.AppendUint32(b, crc32.ChecksumIEEE(b))
	if _, err := w.Write(b); err != nil {
		return err
	}
	for _, sn := range notes {
		n := sn.n
		size := 4 + strSize(sn.path) + strSize(n.version) + 4 + 4
		for _, c := range n.chunks {
			size += 4 + 4 + strSize(c.Heading) + 4 + dims
		}
		b = slices.Grow(b[:0], size)
		b = append(b, 0, 0, 0, 0) // the record's length, set below
		b = appendStr(b, sn.path)
		b = appendStr(b, n.version)
		b = le.AppendUint32(b, uint32(len(n.chunks)))
		for i, c := range n.chunks {
			b = le.AppendUint32(b, uint32(c.Start))
			b = le.AppendUint32(b, uint32(c.End))
			b = appendStr(b, c.Heading)
			b = le.AppendUint32(b, math.Float32bits(n.scale[i]))
			quantizeRow(b[len(b):len(b)+dims], sn.rows[i*dims:(i+1)*dims], n.scale[i])
			b = b[:len(b)+dims]
		}
		rec := b[4:]
		le.PutUint32(b, uint32(len(rec)))
		b = le.AppendUint32(b, crc32.ChecksumIEEE(rec))
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// strSize is what appendStr adds for s.
func strSize(s string) int { return 2 + min(len(s), maxStrings-1) }

// appendStr appends s, cut to maxStrings-1 bytes, after its length.
func appendStr(b []byte, s string) []byte {
	if len(s) >= maxStrings {
		s = s[:maxStrings-1]
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// loadVectors reads a sidecar file made for model and dims. Any mismatch
// or damage is an error (wrapping errVecFile) and the caller rebuilds.
// The file is read whole and decoded in place: a warm start waits for it
// (issue 16), and a reader allocating per field took 53 ms at 10,000
// notes where this takes 27 (165 ms against about 40 in a server
// starting on a busy machine).
func loadVectors(file, model string, dims int) (*vectors, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	rd := &fieldReader{b: data}
	magic := rd.bytes(len(vecMagic))
	format := rd.u32()
	fdims := rd.u32()
	quant := rd.byte()
	fmodel := rd.str()
	count := rd.u32()
	hdrLen := len(data) - len(rd.b)
	if sum := rd.u32(); rd.err != nil || sum != crc32.ChecksumIEEE(data[:hdrLen]) {
		return nil, fmt.Errorf("%w: header checksum mismatch", errVecFile)
	}
	switch {
	case string(magic) != vecMagic:
		return nil, fmt.Errorf("%w: not a cairn vector file", errVecFile)
	case format != vecFormat:
		return nil, fmt.Errorf("%w: format %d, want %d", errVecFile, format, vecFormat)
	case quant != quantInt8:
		return nil, fmt.Errorf("%w: unknown quantization %d", errVecFile, quant)
	case fmodel != model || int(fdims) != dims:
		return nil, fmt.Errorf("%w: made by %s (%d dimensions), the embedder is now %s (%d)", errVecFile, fmodel, fdims, model, dims)
	}
	vs := newVectors(model, dims)
	vs.notes = make(map[string]*vecNote, min(int(count), len(rd.b)/minRecord))
	vs.arena.expect(len(rd.b)) // a row takes at least dims bytes of the file
	for i := uint32(0); i < count; i++ {
		size := rd.u32()
		if rd.err != nil || size > maxRecord {
			return nil, fmt.Errorf("%w: record %d: bad length", errVecFile, i)
		}
		rec := rd.bytes(int(size))
		sum := rd.u32()
		if rd.err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", errVecFile, i, rd.err)
		}
		if sum != crc32.ChecksumIEEE(rec) {
			return nil, fmt.Errorf("%w: record %d: checksum mismatch", errVecFile, i)
		}
		p, n, q, err := decodeRecord(rec, dims)
		if err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", errVecFile, i, err)
		}
		n.path = p
		vs.set(n, q)
	}
	if len(rd.b) != 0 {
		return nil, fmt.Errorf("%w: trailing bytes", errVecFile)
	}
	return vs, nil
}

// decodeRecord decodes a note's record; q are its rows' components, slices
// of rec.
func decodeRecord(rec []byte, dims int) (string, *vecNote, [][]byte, error) {
	rd := &fieldReader{b: rec}
	p := rd.str()
	n := &vecNote{version: rd.str()}
	count := rd.u32()
	if rd.err != nil || int(count)*dims > len(rec) {
		return "", nil, nil, fmt.Errorf("bad chunk count")
	}
	n.chunks = make([]Chunk, count)
	n.scale = make([]float32, count)
	q := make([][]byte, count)
	for i := range n.chunks {
		n.chunks[i] = Chunk{Start: int(rd.u32()), End: int(rd.u32()), Heading: rd.str()}
		n.scale[i] = math.Float32frombits(rd.u32())
		q[i] = rd.bytes(dims)
	}
	if rd.err != nil {
		return "", nil, nil, rd.err
	}
	return p, n, q, nil
}

// fieldReader reads little-endian fields from b, keeping the first error
// (io.ErrUnexpectedEOF); once failed, every read gives zeros.
type fieldReader struct {
	b   []byte
	err error
}

// zeros is what a failed read of up to its length gives.
var zeros [64]byte

// bytes is the next n bytes, a slice of the buffer (not a copy).
func (r *fieldReader) bytes(n int) []byte {
	if r.err == nil && n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
	}
	if r.err != nil {
		if n <= len(zeros) {
			return zeros[:n]
		}
		return make([]byte, n)
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *fieldReader) u32() uint32 { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *fieldReader) byte() byte  { return r.bytes(1)[0] }
func (r *fieldReader) str() string {
	n := binary.LittleEndian.Uint16(r.bytes(2))
	return string(r.bytes(int(n)))
}
