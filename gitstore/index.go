package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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

// indexCache is the index as this store last wrote or read it, with the
// file's identity then. A commit whose index is still that file (no git
// process replaced it since: same inode, size and modification time)
// splices it without reading and scanning it again, which at 50,000 notes
// is 5 MB read and 50,000 entries scanned per write. Its bound: one index,
// the size of .git/index plus 32 bytes an entry, and the one before it
// (Store.idxSpare), whose buffers the next splice reuses: at 100,000 notes
// a splice made 13 MB of garbage per write, and the collections it caused
// were a quarter of a write's CPU (issue 16).
type indexCache struct {
	id fileID
	pi *parsedIndex
}

// fileID is what tells one version of the index from another without
// reading it: its inode, size and modification time, and the checksum git
// ends it with (read with one pread). Inode, size and time alone are not
// enough: Linux stamps files from a clock that ticks every few
// milliseconds and gives a freed inode number to the next file made, so
// two of git's index writes in one tick (a person's git checkout right
// after git add) could look like one, and a commit spliced into the index
// it remembered, not the one on disk.
type fileID struct {
	ino         uint32
	size, mtime int64
	sum         [20]byte
}

// idOf is the identity of the index stat as fi and ending with sum; ok
// false where the platform gives no inode or git wrote no checksum (the
// index is then read at every commit, as before).
func idOf(fi os.FileInfo, sum []byte) (fileID, bool) {
	_, _, ino, _, _, ok := statFields(fi)
	id := fileID{ino: ino, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if len(sum) != len(id.sum) || bytes.Count(sum, []byte{0}) == len(sum) {
		return id, false // index.skipHash writes zeros
	}
	copy(id.sum[:], sum)
	return id, ok
}

// indexSum is the checksum at the end of index data ("" when too short).
func indexSum(data []byte) []byte {
	if len(data) < 20 {
		return nil
	}
	return data[len(data)-20:]
}

// TrackedFiles is how many of the paths git's index holds end with
// suffix (0 when there is no index, or it cannot be read): a hint of how
// many notes a vault read for the first time holds, to size its tables.
// The index is read whole: 8.8 MB at 100,000 files, read and counted
// in 8-70 ms.
func (s *Store) TrackedFiles(suffix string) int {
	data, err := os.ReadFile(filepath.Join(s.gitDir, "index"))
	if err != nil {
		return 0
	}
	pi, err := parseIndex(data)
	if err != nil {
		return 0
	}
	n, end := 0, []byte(suffix)
	for _, e := range pi.entries {
		if bytes.HasSuffix(pi.name(e), end) {
			n++
		}
	}
	return n
}

// readIndex reads and checks the index before anything changes, so that an
// index cairn cannot update refuses the commit up front. The caller holds
// index.lock.
func (s *Store) readIndex() (*indexState, error) {
	f, err := os.Open(filepath.Join(s.gitDir, "index"))
	if errors.Is(err, os.ErrNotExist) {
		pi, err := parseIndex(emptyIndex())
		return &indexState{parsed: pi}, err
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var sum [20]byte
	if fi.Size() >= 20 {
		if _, err := f.ReadAt(sum[:], fi.Size()-20); err != nil {
			return nil, fmt.Errorf("read index: %w", err)
		}
	}
	id, ok := idOf(fi, sum[:])
	if c := s.idxCache; ok && c != nil && c.id == id {
		return &indexState{parsed: c.pi}, nil
	}
	s.idxCache = nil
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("read index: %w", err)
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
	if ok {
		s.idxCache = &indexCache{id: id, pi: pi}
	}
	return &indexState{parsed: pi}, nil
}

// writeIndex renders the index updated for changes (indexBytes) and puts
// it in place through idxLock, remembering what it wrote (indexCache).
func (s *Store) writeIndex(idxLock *gitLock, st *indexState, changes []Change, blobs map[string]plumbing.Hash) error {
	data, pi, err := s.indexBytes(st, changes, blobs)
	if err != nil {
		return err
	}
	s.idxCache = nil
	fi, err := idxLock.commitStat(data)
	if err != nil {
		return err
	}
	if id, ok := idOf(fi, indexSum(data)); ok && pi != nil {
		s.idxCache = &indexCache{id: id, pi: pi}
		// The index spliced from is read by nothing after this commit:
		// the next splice writes into its buffers (idxSpare).
		s.idxSpare = st.parsed
	}
	return nil
}

// indexBytes renders the git index updated for the changed paths only,
// leaving whatever else a person staged alone, so `git status` in the vault
// stays clean. Call it after the work-tree files are written: the entries
// carry their stat data. pi is the result scanned (nil from go-git's path).
func (s *Store) indexBytes(st *indexState, changes []Change, blobs map[string]plumbing.Hash) (data []byte, pi *parsedIndex, err error) {
	updates := s.indexUpdates(changes, blobs)
	if st.parsed != nil {
		spare := s.idxSpare
		s.idxSpare = nil
		if spare == st.parsed {
			spare = nil // never write into the index being read
		}
		pi := st.parsed.splice(updates, spare)
		return pi.data, pi, nil
	}
	data, err = s.encodeIndexSlow(updates)
	return data, nil, err
}

// indexUpdates are the index entries of changes, with the stat data of
// their files as they are now.
func (s *Store) indexUpdates(changes []Change, blobs map[string]plumbing.Hash) []indexUpdate {
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
	return updates
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
