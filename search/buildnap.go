package search

import (
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// buildNap is how long Bleve's persister waits between two disk writes
// while an index is built from nothing (PersisterNapTimeMSec). Without
// it, each step of a build (Step notes, a batch) is written to disk as a
// segment of its own, which the merger then reads back and merges; with
// it, the steps introduced meanwhile are merged in memory and written as
// one. Measured on a fresh 10,000-note clone: docs/benchmarks.md, "The
// persister naps during a first build".
const buildNap = 250 * time.Millisecond

// napConfig is scorchConfig for an index built from nothing: its
// persister naps until BuildDone.
func napConfig() map[string]any {
	c := scorchConfig()
	c["scorchPersisterOptions"] = napOptions(buildNap)
	return c
}

// napOptions are Bleve's persister options with a nap of d.
func napOptions(d time.Duration) map[string]any {
	return map[string]any{"PersisterNapTimeMSec": int(d / time.Millisecond)}
}

// napState is what the index knows of its persister's nap: whether it
// naps (opened with napConfig, BuildDone not called yet) and when the
// last nap may end once it stopped.
type napState struct {
	on    atomic.Bool
	ended atomic.Int64 // unix nanoseconds of BuildDone, 0 before
}

// BuildDone tells the index that its build from nothing is done: from
// here a batch reaches the disk as soon as Bleve can write it, as in an
// index opened warm. Without it, a write's batch would reach the disk up
// to buildNap after it is searchable, for as long as the index is open.
//
// Bleve reads the nap once, when it opens the index, and offers no way to
// change it; but its persister naps only while no event of Bleve's is in
// progress (Scorch.NumEventsBlocking, the events started less those
// completed, read from its exported Stats). BuildDone counts one event
// started that never completes, so the persister does not nap again; a
// nap already begun ends within buildNap. TestTheNapEndsWithTheBuild
// checks that reading of Bleve on every upgrade. Calling it again, or on
// an index that does not nap, does nothing.
func (ix *Index) BuildDone() {
	if !ix.nap.on.CompareAndSwap(true, false) {
		return
	}
	ix.nap.ended.Store(time.Now().UnixNano())
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return
	}
	if st, ok := s.Stats().(*scorch.Stats); ok {
		atomic.AddUint64(&st.TotEventTriggerStarted, 1)
	}
}

// napLeft is how long a nap of the persister may still last: what Close
// adds to its wait for the last batches.
func (ix *Index) napLeft() time.Duration {
	if ix.nap.on.Load() {
		return buildNap
	}
	ended := ix.nap.ended.Load()
	if ended == 0 {
		return 0
	}
	return max(0, buildNap-time.Since(time.Unix(0, ended)))
}

// Napping says whether the persister may still nap: the index was built
// from nothing and BuildDone was not called yet.
func (ix *Index) Napping() bool { return ix.nap.on.Load() }
