package search

// arena holds the float32 rows the semantic scan multiplies, in blocks of
// at most arenaBlock floats; a note's rows sit together in one block.
//
// It used to be one slice grown by append. At 100,000 notes that slice is
// 130 MB, and each time it grew, the runtime allocated the next one
// (a quarter larger) while the old one was still held: the build's peak
// held 227 MB of arena for 126 MB of rows (bench/membench, issue 16).
// Blocks are never copied: the only slack is the last block's free tail.
type arena struct {
	dims   int
	blocks [][]float32
	rows   int // rows placed, live or dead
}

// arenaBlock is a block's size in floats (4 MiB): small beside a big
// vault's arena, large enough that a scan seldom changes block. A note
// with more rows than that gets a block of its own. The first block grows
// by append up to this size, so a small vault holds no empty megabytes.
var arenaBlock = 1 << 20

// reserve makes room for n rows and returns where they are: the block,
// the first row within it, and the floats to fill.
func (a *arena) reserve(n int) (block, start int32, dst []float32) {
	need := n * a.dims
	last := len(a.blocks) - 1
	if last < 0 || len(a.blocks[last])+need > arenaBlock {
		size := arenaBlock
		if last < 0 || need > arenaBlock {
			size = need
		}
		a.blocks = append(a.blocks, make([]float32, 0, size))
		last++
	}
	b := a.blocks[last]
	at := len(b)
	if at+need > cap(b) { // only the first block, never past arenaBlock
		nb := make([]float32, at, min(max(2*cap(b), at+need), arenaBlock))
		copy(nb, b)
		b = nb
	}
	b = b[:at+need]
	a.blocks[last] = b
	a.rows += n
	return int32(last), int32(at / a.dims), b[at:]
}

// expect sizes an empty arena's first block for about floats floats, so a
// load does not regrow it.
func (a *arena) expect(floats int) {
	if len(a.blocks) == 0 && floats > 0 {
		a.blocks = append(a.blocks, make([]float32, 0, min(floats, arenaBlock)))
	}
}

// at is the floats of rows rows from start in block.
func (a *arena) at(block, start, rows int32) []float32 {
	d := int32(a.dims)
	return a.blocks[block][start*d : (start+rows)*d]
}
