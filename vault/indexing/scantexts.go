package indexing

import (
	"sync"

	"github.com/cairn-dev/cairn/internal/notefile"
)

// scanTexts keeps the text of the notes a first build has not indexed
// yet, as the searches during the build read them (scan.go), so that the
// next search takes them from memory instead of reading the same files
// again. A search every half second during a fresh 100,000-note clone's
// build read the same 10,000 notes each time (the ones the build reaches
// last: search.MaxScanNotes): 5.3 s of the build's CPU went to reading
// them, as much again to looking at their bytes.
//
// Only a note the build has not reached and that nobody changed since the
// build began is taken from here: a note written during the build (by a
// tool, or by hand once the watcher has seen it) is read from its file,
// as before. The texts go with the build: the cache is the build's.
//
// A fresh clone's open reads every note, and keeps the texts of those it
// reads last (the ones the build reaches last: Notes.OpenTexts): the
// first search of the build takes them from here too, where it read
// 10,000 files again. Those were read before the build began, and a
// change since may not have reached the catalog yet (no watcher, or its
// event not in): each is taken once its file's size and mtime are still
// those it was read with (stat, one system call where a read is four),
// else its file is read.
type scanTexts struct {
	mu    sync.Mutex
	texts map[string][]byte
	held  int // bytes in texts
	// opened are the stamps of the texts the open read, not checked yet.
	opened map[string]notefile.Stamp
	stat   func(p string) (notefile.Stamp, bool)
}

// ScanTextsBytes bounds the texts kept: the 10,000 notes a scan reads at
// most, of 3 KiB each.
const ScanTextsBytes = 32 << 20

// newScanTexts makes the cache of a build, with the texts the open read
// (their files' stamps checked with stat).
func newScanTexts(opened map[string]OpenText, stat func(string) (notefile.Stamp, bool)) *scanTexts {
	c := &scanTexts{texts: map[string][]byte{}, opened: map[string]notefile.Stamp{}, stat: stat}
	for p, o := range opened {
		if c.held+len(o.Text) <= ScanTextsBytes {
			c.texts[p], c.opened[p] = o.Text, o.Stamp
			c.held += len(o.Text)
		}
	}
	return c
}

// read appends the text kept for p to buf[:0], or else reads it with
// from, keeping a copy while the bound allows.
func (c *scanTexts) read(p string, buf []byte, from func(string, []byte) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	text, ok := c.texts[p]
	was, opened := c.opened[p]
	c.mu.Unlock()
	if ok && opened {
		// Changed since the open read it? Once checked, a change is the
		// build's to see (the fresh notes, never read from here).
		now, exists := c.stat(p)
		c.mu.Lock()
		delete(c.opened, p)
		c.mu.Unlock()
		if !exists || now.Size != was.Size || !now.Mtime.Equal(was.Mtime) {
			c.forget(p)
			ok = false
		}
	}
	if ok {
		return append(buf[:0], text...), nil
	}
	data, err := from(p, buf)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.texts[p]; !ok && c.held+len(data) <= ScanTextsBytes {
		c.texts[p] = append([]byte(nil), data...)
		c.held += len(data)
	}
	return data, nil
}

// forget drops the text kept for p (changed since it was read).
func (c *scanTexts) forget(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if text, ok := c.texts[p]; ok {
		c.held -= len(text)
		delete(c.texts, p)
	}
	delete(c.opened, p)
}

// size is the bytes of the texts kept.
func (c *scanTexts) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}
