package gitstore

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// updateIndex makes the git index agree with the commit for the changed
// paths only, leaving whatever else a person staged alone, so `git status`
// in the vault stays clean. Written through index.lock like git does.
func (s *Store) updateIndex(changes []Change, blobs map[string]plumbing.Hash) error {
	idx, err := s.repo.Storer.Index()
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	for _, c := range changes {
		if c.Delete {
			idx.Remove(c.Path)
			continue
		}
		e, err := idx.Entry(c.Path)
		if err != nil {
			e = idx.Add(c.Path)
		}
		e.Hash = blobs[c.Path]
		if e.Mode != filemode.Executable {
			e.Mode = filemode.Regular
		}
		e.Stage = 0 // merged; go-git's index.Merged constant is 1, which git reads as a conflict stage
		if fi, err := os.Lstat(filepath.Join(s.dir, filepath.FromSlash(c.Path))); err == nil {
			e.Size = uint32(fi.Size())
			e.ModifiedAt = fi.ModTime()
			fillStat(e, fi)
		}
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	idx.Cache = nil // the cached tree extension would be stale
	lock := filepath.Join(s.gitDir, "index.lock")
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("the index is locked by another git process (%s)", lock)
		}
		return err
	}
	bw := bufio.NewWriter(f)
	if err := index.NewEncoder(bw).Encode(idx); err != nil {
		f.Close()
		os.Remove(lock)
		return fmt.Errorf("encode index: %w", err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		os.Remove(lock)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return err
	}
	if err := os.Rename(lock, filepath.Join(s.gitDir, "index")); err != nil {
		os.Remove(lock)
		return err
	}
	return nil
}
