package vault

import (
	"sync"
	"sync/atomic"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/indexing"
)

// openTexts keeps the texts of the notes a fresh clone's open reads last,
// for the searches made during the index build that follows: those scan
// the notes the build has not reached, the ones it reaches last, and the
// first of them read 10,000 files again a moment after the open had read
// them (0.64-0.85 s after a 2.4-3.4 s open at 100,000 notes, on a machine
// where a file's system calls cost much). The walk lists the notes in
// the order the build sorts them (by path, folder by folder), so the
// notes read last are the ones it reaches last; those it does not match
// are read from their files, as before. The keeper takes them once
// (indexNotes.OpenTexts) and checks each one's file is as it was read
// before using it (indexing/scantexts.go).
type openTexts struct {
	taken atomic.Int64 // the notes the readers have taken from the walk
	total atomic.Int64 // the notes the walk found, once it ended (0 before)

	mu    sync.Mutex
	texts map[string]indexing.OpenText
	held  int // bytes in texts
}

// openFeed is the walk's queue of notes to read at an open: long enough
// that the walk, faster than the readers, ends before they take the last
// search.MaxScanNotes, whose texts are kept only once total is known.
const openFeed = search.MaxScanNotes + 4096

func newOpenTexts() *openTexts {
	return &openTexts{texts: map[string]indexing.OpenText{}}
}

// next says whether the note a reader has just taken from the walk is
// one of the last search.MaxScanNotes, whose text is kept. A later walk
// that fills the catalog before the keeper took them (one that found it
// empty again) adds to them, within the same bound.
//
// A vault of search.MaxScanNotes notes or fewer keeps none: a search
// reads all of them then, the texts would be every note's, held from the
// open into the build, and they raised a 10,000-note build's peak from
// 143-145 to 157-160 MiB (1.6 times the steady state, issue 16 asks
// 1.5; `membench -notes 10000 -starts cold`).
func (o *openTexts) next() bool {
	i := o.taken.Add(1) - 1
	t := o.total.Load()
	return t > openTextsAbove && i >= t-search.MaxScanNotes
}

// openTextsAbove is the notes a vault holds past which its open keeps
// texts (a variable for tests).
var openTextsAbove int64 = search.MaxScanNotes

// keep keeps a copy of p's text, read with stamp st, while the bound
// (indexing.ScanTextsBytes) allows.
func (o *openTexts) keep(p string, text []byte, st fileStamp) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held+len(text) > indexing.ScanTextsBytes {
		return
	}
	o.texts[p] = indexing.OpenText{Text: append([]byte(nil), text...), Stamp: st}
	o.held += len(text)
}

// take hands the texts over, once.
func (o *openTexts) take() map[string]indexing.OpenText {
	o.mu.Lock()
	defer o.mu.Unlock()
	texts := o.texts
	o.texts, o.held = nil, 0
	return texts
}

// OpenTexts hands the index keeper the texts the open kept, once.
func (n indexNotes) OpenTexts() map[string]indexing.OpenText {
	n.v.mu.Lock()
	o := n.v.openTexts
	n.v.openTexts = nil
	n.v.mu.Unlock()
	if o == nil {
		return nil
	}
	return o.take()
}
