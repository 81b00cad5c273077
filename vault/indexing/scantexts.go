package indexing

import "sync"

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
type scanTexts struct {
	mu    sync.Mutex
	texts map[string][]byte
	held  int // bytes in texts
}

// scanTextsBytes bounds the texts kept: the 10,000 notes a scan reads at
// most, of 3 KiB each.
const scanTextsBytes = 32 << 20

func newScanTexts() *scanTexts {
	return &scanTexts{texts: map[string][]byte{}}
}

// read appends the text kept for p to buf[:0], or else reads it with
// from, keeping a copy while the bound allows.
func (c *scanTexts) read(p string, buf []byte, from func(string, []byte) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	text, ok := c.texts[p]
	c.mu.Unlock()
	if ok {
		return append(buf[:0], text...), nil
	}
	data, err := from(p, buf)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.texts[p]; !ok && c.held+len(data) <= scanTextsBytes {
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
}
