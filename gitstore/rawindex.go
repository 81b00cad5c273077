package gitstore

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// errIndexFallback says the index uses a feature spliceIndex does not
// handle (version 4 path compression, a split index); the caller then goes
// through go-git's decoder, which is correct but an order of magnitude
// slower (it reads every field of every entry through reflection).
var errIndexFallback = errors.New("index format needs the full decoder")

// indexUpdate is one path's new entry, or a removal when del is set.
type indexUpdate struct {
	name string
	hash plumbing.Hash
	fi   os.FileInfo
	del  bool
	exec bool // recorded executable (Change.Executable)
}

// parsedIndex is a version 2 or 3 git index, scanned: where each entry's
// bytes are, and the extensions worth keeping.
type parsedIndex struct {
	data    []byte
	entries []indexSpan
	exts    []byte
}

// indexSpan is where one entry is in parsedIndex.data: its bytes, and
// its name's (offsets rather than slices: a quarter less memory for an
// index kept between commits, indexCache).
type indexSpan struct {
	start, end      int
	nameAt, nameLen int
}

func (pi *parsedIndex) name(e indexSpan) []byte { return pi.data[e.nameAt : e.nameAt+e.nameLen] }

// parseIndex scans an index. errIndexFallback: a format it leaves to
// go-git (version 4); errIndexUnsupported: one nobody here can update.
func parseIndex(data []byte) (*parsedIndex, error) {
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, errors.New("index: not a git index")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version == 4 {
		return nil, errIndexFallback
	}
	if version != 2 && version != 3 {
		return nil, fmt.Errorf("index: version %d: %w", version, errIndexUnsupported)
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	pi := &parsedIndex{data: data, entries: make([]indexSpan, 0, count)}
	off := 12
	body := data[:len(data)-20]
	for i := 0; i < count; i++ {
		if off+62 > len(body) {
			return nil, errors.New("index: truncated entry")
		}
		flags := binary.BigEndian.Uint16(body[off+60 : off+62])
		hdr := 62
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, errors.New("index: extended flag in version 2")
			}
			hdr += 2
		}
		nameStart := off + hdr
		nlen := int(flags & 0xFFF)
		if nlen == 0xFFF {
			j := bytes.IndexByte(body[nameStart:], 0)
			if j < 0 {
				return nil, errors.New("index: unterminated name")
			}
			nlen = j
		}
		padded := (hdr + nlen + 8) &^ 7
		if off+padded > len(body) {
			return nil, errors.New("index: truncated name")
		}
		pi.entries = append(pi.entries, indexSpan{start: off, end: off + padded, nameAt: nameStart, nameLen: nlen})
		off += padded
	}
	// Extensions: keep resolve-undo, drop the rest that is optional; a
	// required (lower-case) one, such as a split or sparse index, is a
	// format this splice cannot keep.
	for off < len(body) {
		if off+8 > len(body) {
			return nil, errors.New("index: truncated extension")
		}
		sig := body[off : off+4]
		size := int(binary.BigEndian.Uint32(body[off+4 : off+8]))
		if off+8+size > len(body) {
			return nil, errors.New("index: truncated extension")
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, fmt.Errorf("index: extension %q (a split or sparse index): %w", sig, errIndexUnsupported)
		}
		if string(sig) == "REUC" {
			pi.exts = append(pi.exts, body[off:off+8+size]...)
		}
		off += 8 + size
	}
	return pi, nil
}

// errIndexUnsupported: an index cairn cannot update (split or sparse).
var errIndexUnsupported = errors.New("cairn cannot update this git index; run `git update-index --no-split-index` (and `git sparse-checkout disable`) in the vault")

// splice replaces or removes the entries of the given paths and copies
// every other entry's bytes as they are. The cache-tree extension (stale
// now) and offset tables are dropped; git rebuilds them when it needs them.
// The result is the new index file (data) already scanned, so that the
// next commit need not read and scan it again (indexCache). It is built in
// spare's buffers when they are large enough (spare is then overwritten;
// nil: new buffers).
func (pi *parsedIndex) splice(updates []indexUpdate, spare *parsedIndex) *parsedIndex {
	sort.Slice(updates, func(i, j int) bool { return updates[i].name < updates[j].name })
	size := len(pi.data) + len(pi.exts) + 20
	for _, u := range updates {
		size += 72 + len(u.name)
	}
	var out []byte
	var spans []indexSpan
	if spare != nil && cap(spare.data) >= size {
		out = spare.data[:0]
	} else {
		out = make([]byte, 0, size+size/16) // room for the next few creates
	}
	if n := len(pi.entries) + len(updates); spare != nil && cap(spare.entries) >= n {
		spans = spare.entries[:0]
	} else {
		spans = make([]indexSpan, 0, n+n/16)
	}
	out = append(out, pi.data[:12]...)
	// Entries lie end to end in name order, so each run between two
	// updated paths is copied in one piece (at 100,000 notes, a copy per
	// entry was a third of the splice).
	next := 0 // the first entry of pi not yet copied or dropped
	for _, u := range updates {
		at := next + sort.Search(len(pi.entries)-next, func(k int) bool {
			return string(pi.name(pi.entries[next+k])) >= u.name
		})
		out, spans = pi.copyRun(out, spans, next, at)
		for at < len(pi.entries) && string(pi.name(pi.entries[at])) == u.name {
			at++ // every stage of a replaced path goes
		}
		next = at
		if !u.del {
			start := len(out)
			out = append(out, encodeEntry(u)...)
			spans = append(spans, indexSpan{start: start, end: len(out), nameAt: start + 62, nameLen: len(u.name)})
		}
	}
	out, spans = pi.copyRun(out, spans, next, len(pi.entries))
	out = append(out, pi.exts...)
	binary.BigEndian.PutUint32(out[8:12], uint32(len(spans)))
	sum := sha1.Sum(out)
	out = append(out, sum[:]...)
	return &parsedIndex{data: out, entries: spans, exts: pi.exts}
}

// copyRun appends entries [i, j) of pi to out in one copy, and their
// spans moved to where they now are.
func (pi *parsedIndex) copyRun(out []byte, spans []indexSpan, i, j int) ([]byte, []indexSpan) {
	if i >= j {
		return out, spans
	}
	from := pi.entries[i].start
	delta := len(out) - from
	out = append(out, pi.data[from:pi.entries[j-1].end]...)
	for _, e := range pi.entries[i:j] {
		spans = append(spans, indexSpan{start: e.start + delta, end: e.end + delta, nameAt: e.nameAt + delta, nameLen: e.nameLen})
	}
	return out, spans
}

// encodeEntry renders one stage-0 entry of a regular file.
func encodeEntry(u indexUpdate) []byte {
	var b [62]byte
	var ctime, mtime [2]uint32
	var dev, ino, uid, gid uint32
	size := uint32(0)
	if u.fi != nil {
		m := u.fi.ModTime()
		mtime = [2]uint32{uint32(m.Unix()), uint32(m.Nanosecond())}
		ctime = mtime
		size = uint32(u.fi.Size())
		if c, d, i, u2, g, ok := statFields(u.fi); ok {
			ctime, dev, ino, uid, gid = c, d, i, u2, g
		}
	}
	be := binary.BigEndian
	be.PutUint32(b[0:], ctime[0])
	be.PutUint32(b[4:], ctime[1])
	be.PutUint32(b[8:], mtime[0])
	be.PutUint32(b[12:], mtime[1])
	be.PutUint32(b[16:], dev)
	be.PutUint32(b[20:], ino)
	mode := uint32(0o100644)
	if u.exec || (u.fi != nil && u.fi.Mode()&0o111 != 0) {
		mode = 0o100755
	}
	be.PutUint32(b[24:], mode)
	be.PutUint32(b[28:], uid)
	be.PutUint32(b[32:], gid)
	be.PutUint32(b[36:], size)
	copy(b[40:60], u.hash[:])
	nlen := len(u.name)
	if nlen > 0xFFF {
		nlen = 0xFFF
	}
	be.PutUint16(b[60:], uint16(nlen))
	entry := append(b[:], u.name...)
	padded := (len(entry) + 8) &^ 7
	return append(entry, make([]byte, padded-len(entry))...)
}
