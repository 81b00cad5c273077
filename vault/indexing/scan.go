package indexing

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/notefile"
	"github.com/cairn-dev/cairn/search"
)

// Searching the notes the index does not hold yet: the rest of a first
// build (a fresh clone), the notes written while it runs, and the long
// notes waiting in the lane (lane.go). A search reads them from
// disk, those the caller may read only, and merges what holds its words
// into its lexical list (search.Index.Scan; docs/search-index.md, "During
// a build"). No lock is held while they are read.

// unindexed are the notes the filter f admits (its scopes and folder:
// the caller's) that the index does not hold yet, nil when there are
// none; with them, sorted, the notes among them changed since the build
// began or held by the lane (their file is read every time). b is the
// first build running, if one is.
func (k *Keeper) unindexed(b *firstBuild, f search.Filter) (*search.Unindexed, []string) {
	extra := k.lanePaths()
	if b == nil && len(extra) == 0 {
		return nil, nil
	}
	var rest []string
	if b != nil {
		b.mu.Lock()
		rest = b.todo[min(int(b.done.Load()), len(b.todo)):]
		b.mu.Unlock()
		// Written since the build began: the build's lock holds their
		// update back until it ends.
		extra = append(extra, k.notes.ChangedNotes()...)
	}
	slices.Sort(extra)
	extra = slices.Compact(extra)
	scopeOf, _ := k.notes.Scopes()
	admits := func(p string) bool {
		if f.PathPrefix != "" && !strings.HasPrefix(p, f.PathPrefix) {
			return false
		}
		scope, _, _ := scopeOf(p)
		return slices.Contains(f.Scopes, scope)
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
		return nil, nil
	}
	return &search.Unindexed{Paths: paths, Doc: k.notes.ScanDoc}, extra
}

// lanePaths are the notes the lane holds (queued or being indexed).
func (k *Keeper) lanePaths() []string {
	k.laneMu.Lock()
	out := make([]string, 0, len(k.lane.queued)+1)
	for p := range k.lane.queued {
		out = append(out, p)
	}
	if c := k.lane.current; c != "" {
		out = append(out, c)
	}
	k.laneMu.Unlock()
	return out
}

// scanUnindexed reads the notes q may find that ix does not hold yet
// (see unindexed), for q.Scanned; nil when there are none. The texts of
// the notes that did not change since b began are kept for the next
// search (scantexts.go).
func (k *Keeper) scanUnindexed(ctx context.Context, ix *search.Index, b *firstBuild, q search.Query) (*search.Scanned, error) {
	u, fresh := k.unindexed(b, q.Filter)
	if u == nil {
		return nil, nil
	}
	// Opened relative to the vault's folder: its path is not walked again
	// for each note.
	root, err := notefile.OpenDir(k.cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("scan the notes not indexed yet: %w", err)
	}
	defer notefile.CloseDir(root)
	read := func(p string, buf []byte) ([]byte, error) {
		data, _, err := notefile.ReadAt(root, p, buf, k.cfg.MaxReadBytes)
		return data, err
	}
	u.Read = read
	if b != nil && b.texts != nil {
		for _, p := range fresh {
			b.texts.forget(p)
		}
		u.Read = func(p string, buf []byte) ([]byte, error) {
			if _, changed := slices.BinarySearch(fresh, p); changed {
				return read(p, buf)
			}
			return b.texts.read(p, buf, read)
		}
	}
	return ix.Scan(ctx, q, u)
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
