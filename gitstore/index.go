package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// indexState is the index as read under index.lock: scanned for the
// fast splice, or (version 4) left to go-git.
type indexState struct {
	parsed *parsedIndex
}

// readIndex reads and checks the index before anything changes, so that an
// index cairn cannot update refuses the commit up front.
func (s *Store) readIndex() (*indexState, error) {
	data, err := os.ReadFile(filepath.Join(s.gitDir, "index"))
	if errors.Is(err, os.ErrNotExist) {
		data = emptyIndex()
	} else if err != nil {
		return nil, err
	}
	pi, err := parseIndex(data)
	if errors.Is(err, errIndexFallback) {
		if _, gerr := s.repo.Storer.Index(); gerr != nil {
			return nil, fmt.Errorf("%w (%v)", errIndexUnsupported, gerr)
		}
		return &indexState{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &indexState{parsed: pi}, nil
}

// indexBytes renders the git index updated for the changed paths only,
// leaving whatever else a person staged alone, so `git status` in the vault
// stays clean. Call it after the work-tree files are written: the entries
// carry their stat data.
func (s *Store) indexBytes(st *indexState, changes []Change, blobs map[string]plumbing.Hash) ([]byte, error) {
	updates := make([]indexUpdate, 0, len(changes))
	for _, c := range changes {
		u := indexUpdate{name: c.Path, hash: blobs[c.Path], del: c.Delete, exec: c.Executable}
		// A file committed as it was on disk may have changed since: no
		// stat data, so git looks at its content rather than trust it.
		if !c.Delete && !c.OnDisk {
			if fi, err := os.Lstat(filepath.Join(s.dir, filepath.FromSlash(c.Path))); err == nil {
				u.fi = fi
			}
		}
		updates = append(updates, u)
	}
	if st.parsed != nil {
		return st.parsed.splice(updates), nil
	}
	return s.encodeIndexSlow(updates)
}

// emptyIndex is a version 2 index with no entries (its checksum is
// recomputed by spliceIndex).
func emptyIndex() []byte {
	return append([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"), make([]byte, 20)...)
}

// encodeIndexSlow is the go-git path, for index formats spliceIndex leaves
// alone (version 4, split index).
func (s *Store) encodeIndexSlow(updates []indexUpdate) ([]byte, error) {
	idx, err := s.repo.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	for _, u := range updates {
		if u.del {
			idx.Remove(u.name)
			continue
		}
		e, err := idx.Entry(u.name)
		if err != nil {
			e = idx.Add(u.name)
		}
		e.Hash = u.hash
		if u.exec {
			e.Mode = filemode.Executable
		} else if e.Mode != filemode.Executable {
			e.Mode = filemode.Regular
		}
		e.Stage = 0 // merged; go-git's index.Merged constant is 1, which git reads as a conflict stage
		if u.fi != nil {
			e.Size = uint32(u.fi.Size())
			e.ModifiedAt = u.fi.ModTime()
			fillStat(e, u.fi)
		}
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	idx.Cache = nil // the cached tree extension would be stale
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	if err := index.NewEncoder(bw).Encode(idx); err != nil {
		return nil, fmt.Errorf("encode index: %w", err)
	}
	bw.Flush()
	return buf.Bytes(), nil
}
