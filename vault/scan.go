package vault

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/cairn-dev/cairn/search"
)

// Searching the notes the index does not hold yet: the rest of a first
// build (a fresh clone), the notes written while it runs, and the long
// notes waiting in the lane (indexlane.go). A search reads them from
// disk, those the caller may read only, and merges what holds its words
// into its lexical list (search.Index.Scan; docs/search-index.md, "During
// a build"). No lock is held while they are read.

// unindexed are the notes the filter f admits (its scopes and folder:
// the caller's) that the index does not hold yet, nil when there are
// none. b is the first build running, if one is.
func (v *Vault) unindexed(b *firstBuild, f search.Filter) *search.Unindexed {
	extra := v.lanePaths()
	if b == nil && len(extra) == 0 {
		return nil
	}
	var rest []string
	if b != nil {
		b.mu.Lock()
		rest = b.todo[min(int(b.done.Load()), len(b.todo)):]
		b.mu.Unlock()
		// Written since the build began: the build's lock holds their
		// update back until it ends.
		extra = append(extra, v.catalog.changedNotes()...)
	}
	slices.Sort(extra)
	extra = slices.Compact(extra)
	ps := v.projectSet()
	// A note's scope is its folder's (but for a file right under people/
	// or banks/, named as its scope is): known once per folder.
	inScope := map[string]bool{}
	admits := func(p string) bool {
		if f.PathPrefix != "" && !strings.HasPrefix(p, f.PathPrefix) {
			return false
		}
		dir := parentDir(p)
		ok, known := inScope[dir]
		if !known {
			scope, _, _ := scopeIn(ps, p)
			ok = slices.Contains(f.Scopes, scope)
			if dir != PeopleDir && dir != BanksDir {
				inScope[dir] = ok
			}
		}
		return ok
	}
	// In the order a bounded scan should read them (search.MaxScanNotes):
	// the notes written since the build began and the lane's first (few,
	// and just written: a note an agent wrote is found), then the rest of
	// the build from its end, the notes it will reach last, since those it
	// reaches next will be in the index in a moment.
	var paths []string
	for _, p := range extra {
		if admits(p) {
			paths = append(paths, p)
		}
	}
	for i := len(rest) - 1; i >= 0; i-- {
		p := rest[i]
		if _, found := slices.BinarySearch(extra, p); !found && admits(p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	return &search.Unindexed{Paths: paths, Doc: v.scanDoc}
}

// lanePaths are the notes the lane holds (queued or being indexed).
func (v *Vault) lanePaths() []string {
	v.index.laneMu.Lock()
	out := make([]string, 0, len(v.index.lane.queued)+1)
	for p := range v.index.lane.queued {
		out = append(out, p)
	}
	if c := v.index.lane.current; c != "" {
		out = append(out, c)
	}
	v.index.laneMu.Unlock()
	return out
}

// scanUnindexed reads the notes q may find that ix does not hold yet
// (see unindexed), for q.Scanned; nil when there are none.
func (v *Vault) scanUnindexed(ctx context.Context, ix *search.Index, b *firstBuild, q search.Query) (*search.Scanned, error) {
	u := v.unindexed(b, q.Filter)
	if u == nil {
		return nil, nil
	}
	// Opened relative to the vault's folder: its path is not walked again
	// for each note.
	root, err := syscall.Open(v.root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("scan the notes not indexed yet: %w", err)
	}
	defer syscall.Close(root)
	u.Read = func(p string, buf []byte) ([]byte, error) { return readForScan(root, p, buf) }
	return ix.Scan(ctx, q, u)
}

// readForScan reads the note at p in the folder root (a descriptor), into
// buf when it is large enough, as readFileNoFollow does (no symbolic link,
// a regular file, bounded), with the system calls alone: an os.File costs
// a scan of 100,000 notes as much again (the poller's registration, a
// finalizer).
func readForScan(root int, p string, buf []byte) ([]byte, error) {
	fd, err := syscall.Openat(root, p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if st.Size > maxReadBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxReadBytes)
	}
	size := int(st.Size)
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	n := 0
	for n < size { // shorter: cut since; longer: grown since (its start)
		k, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		if k == 0 {
			break
		}
		n += k
	}
	return buf[:n], nil
}

// scanDoc is the note at p, whose file holds data, as the index would
// see it, less its sequence and context (nil when it is gone).
func (v *Vault) scanDoc(p string, data []byte) *search.Doc {
	fi, err := os.Lstat(v.abs(p))
	if err != nil {
		return nil
	}
	d, _ := v.docOf(p, data, fi)
	return d
}

// scanNotice is what the notice of an answer made during a build says
// of the notes read for it.
func scanNotice(r *search.ScanReport) string {
	if r == nil || r.Notes == 0 {
		return ""
	}
	s := fmt.Sprintf("%d not indexed were read instead, %d may hold your words (%d of the results come from them, ranked by their words alone: semantic search does not know them yet)", r.Read, r.Matched, r.Found)
	if r.Cut {
		s += fmt.Sprintf("; the reading stopped at a bound (%d notes or %d MiB read, %d MiB analysed): some may be missing", search.MaxScanNotes, search.MaxScanBytes>>20, search.ScanAnalysedBytes>>20)
	}
	return s
}
