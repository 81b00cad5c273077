package indexing

import (
	"context"

	"github.com/cairn-dev/cairn/search"
)

// Search runs q on the index, brought up to date first with every note the
// vault has seen, so a search never misses a write of a note up to
// LargeNoteBytes; longer ones are indexed in the lane, and a search does
// not wait for them: it reads them instead (scan.go). During a first
// build, with Config.AnswerDuringBuild, it answers from the notes indexed
// so far and those it reads (firstbuild.go).
//
// The index it returns may be closed by a Rebuild's swap as soon as it
// returns: the caller only analyses text with it (Snippet, FirstMatch,
// MatchesIn), which needs no open index.
func (k *Keeper) Search(ctx context.Context, q search.Query) (*search.Index, *search.Result, error) {
	defer k.SearchRuns()()
	if !k.ready.Load() && k.cfg.AnswerDuringBuild {
		if ix, res, ok, err := k.partialSearch(ctx, q); ok {
			return ix, res, err
		}
	}
	for {
		ix, err := k.Index(ctx)
		if err != nil {
			return nil, nil, err
		}
		if q.Scanned == nil {
			// Long notes waiting in the lane, read before useMu is taken.
			if q.Scanned, err = k.scanUnindexed(ctx, ix, nil, q); err != nil {
				return nil, nil, err
			}
		}
		// Taken once the index is known (never while waiting for a build,
		// which a swap may be part of); a swap in between replaced it.
		k.useMu.RLock()
		if k.ix.Load() != ix || !k.ready.Load() {
			k.useMu.RUnlock()
			continue
		}
		res, err := k.searchOn(ctx, ix, q)
		k.useMu.RUnlock()
		if err != nil {
			return nil, nil, err
		}
		return ix, res, nil
	}
}

// searchOn brings ix up to date with the vault, then runs q on it; the
// caller holds useMu (read).
func (k *Keeper) searchOn(ctx context.Context, ix *search.Index, q search.Query) (*search.Result, error) {
	if err := k.Sync(false); err != nil {
		return nil, err
	}
	return ix.Search(ctx, q)
}
