package gitstore

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// statEntry is what git's index remembers of a file it last saw: its blob
// and the size and mtime it had then.
type statEntry struct {
	hash  plumbing.Hash
	size  uint32
	mtime time.Time
}

// statCache is git's index read for its stat data, so that a file whose
// size and mtime are those the index recorded can be known unchanged
// without reading it (what git status does). Nil when the index cannot be
// read this way: every file is then read.
type statCache struct {
	entries map[string]statEntry
	written time.Time // the index file's mtime
}

func (s *Store) loadStatCache() *statCache {
	file := filepath.Join(s.gitDir, "index")
	fi, err := os.Stat(file)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	pi, err := parseIndex(data)
	if err != nil {
		return nil
	}
	c := &statCache{entries: make(map[string]statEntry, len(pi.entries)), written: fi.ModTime()}
	be := binary.BigEndian
	for _, e := range pi.entries {
		b := pi.data[e.start:e.end]
		if (be.Uint16(b[60:62])>>12)&3 != 0 {
			continue // a conflict stage
		}
		var h plumbing.Hash
		copy(h[:], b[40:60])
		c.entries[string(pi.name(e))] = statEntry{hash: h, size: be.Uint32(b[36:40]),
			mtime: time.Unix(int64(be.Uint32(b[8:12])), int64(be.Uint32(b[12:16])))}
	}
	return c
}

// clean reports whether path is known, without reading it, to hold blob
// committed: the index has that blob for it, with the file's present size
// and mtime, and the file changed before the index was written (a change
// in the same instant as the index could keep both: git's "racy" case).
func (c *statCache) clean(dir, path string, committed plumbing.Hash) bool {
	if c == nil || committed.IsZero() {
		return false
	}
	e, ok := c.entries[path]
	if !ok || e.hash != committed {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(path)))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return uint32(fi.Size()) == e.size && fi.ModTime().Equal(e.mtime) && fi.ModTime().Before(c.written)
}
