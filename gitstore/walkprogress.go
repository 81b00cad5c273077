package gitstore

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// walkProgress is what the version map's walk by git (gitLogVersions)
// has read so far, for the reads that ask git for one path's version
// meanwhile (ondemand.go). The walk lists each commit's changed paths,
// newest first: a path it has named has its version already, and a path
// it has not named was changed by none of the commits it has read
// through, so an ask need only walk on from there. Beside a fresh
// 100,000-note clone's index build, the walk reaches the oldest notes
// 9-19 s in; the first reads, 2-8 s in, each asked git to walk all of it
// again from the head (docs/benchmarks.md, "Reads while the version map
// is built").
type walkProgress struct {
	mu sync.Mutex
	// out is the map the walk fills (nil until it starts listing).
	out map[string]plumbing.Hash
	// through is the last commit whose changed paths have all been read
	// (zero: none yet).
	through plumbing.Hash
	// hurry is set when a read asks git: a walk at a lower priority then
	// goes on at normal priority (gitLogVersions), from resume, the
	// commit whose paths it was about to read. niced says the walk runs
	// at the lower one. niced and resume are the walk's own goroutine's.
	hurry  atomic.Bool
	niced  bool
	resume plumbing.Hash
	// pause stops the walk's git while an ask runs (walkpause.go);
	// guarded by mu.
	pause walkPause
}

// errHurry ends a niced walk's read of git's output when a read has asked
// git meanwhile: it goes on at normal priority (gitLogVersions).
var errHurry = errors.New("version map walk hurried")

// hurried says whether the niced walk should go on at normal priority.
func (w *walkProgress) hurried() bool {
	return w != nil && w.niced && w.hurry.Load()
}

// start gives the progress the map the walk fills.
func (w *walkProgress) start(out map[string]plumbing.Hash) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.out = out
	w.mu.Unlock()
}

// found records that the walk gave path its version.
func (w *walkProgress) found(path string, version plumbing.Hash, out map[string]plumbing.Hash) {
	if w == nil {
		out[path] = version
		return
	}
	w.mu.Lock()
	out[path] = version
	w.mu.Unlock()
}

// read records that every path commit changed has been read.
func (w *walkProgress) read(commit plumbing.Hash) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.through = commit
	w.mu.Unlock()
}

// walked says what the walk knows of path so far: its version when it
// has named it (found), else the commit to walk on from (zero: none read
// yet, walk from the head).
func (w *walkProgress) walked(path string) (version plumbing.Hash, found bool, from plumbing.Hash) {
	if w == nil {
		return plumbing.ZeroHash, false, plumbing.ZeroHash
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if v, ok := w.out[path]; ok {
		return v, true, plumbing.ZeroHash
	}
	return plumbing.ZeroHash, false, w.through
}
