package vault

import (
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
)

// DefaultQuiet is how long a note must have been untouched on disk before
// cairn commits a person's edit to it, unless Options.Quiet says otherwise.
const DefaultQuiet = 3 * time.Second

// settleWait bounds how long, past the quiet period, a read or write waits
// for a note that keeps changing on disk before answering BusyError.
const settleWait = 2 * time.Second

// waitQuiet returns once the file at p has been untouched for the quiet
// period. An editor may write a file in several steps (truncate, write,
// pause, write): committing the file in between would record half a save,
// and writing over it would lose the rest, which the editor then writes
// into the replaced file. Reads and writes of a note that differs from
// HEAD therefore respect the same quiet period as the watcher.
func (v *Vault) waitQuiet(p string) error {
	deadline := time.Now().Add(v.quiet + settleWait)
	for {
		fi, err := os.Lstat(v.abs(p))
		if err != nil {
			return nil // gone: a deletion by hand, nothing to wait for
		}
		age := time.Since(fi.ModTime())
		// A clock far off (a file copied with a future time) cannot be
		// waited out: it counts as quiet.
		if age >= v.quiet || age < -time.Minute {
			return nil
		}
		wake := time.Now().Add(v.quiet - max(age, 0))
		if wake.After(deadline) {
			return &BusyError{Path: p, RetryAfter: v.quiet}
		}
		time.Sleep(time.Until(wake))
	}
}

// Uncommitted lists the notes whose file differs from HEAD: changed, added
// or deleted on disk and not yet committed.
func (v *Vault) Uncommitted() ([]string, error) {
	cands := map[string]bool{}
	for _, p := range v.catalog.paths() {
		cands[p] = true
	}
	tracked, err := v.store.Paths()
	if err != nil {
		return nil, err
	}
	ign := v.ignoreMatcher()
	for _, p := range tracked {
		if isNotePath(p) && !ignored(ign, p, false) {
			cands[p] = true
		}
	}
	list := make([]string, 0, len(cands))
	for p := range cands {
		list = append(list, p)
	}
	sort.Strings(list)
	changed, err := v.store.Changed(list)
	if err != nil {
		return nil, fmt.Errorf("compare notes with HEAD: %w", err)
	}
	return changed, nil
}

// CommitStrayEdits commits, as the person's, the notes changed on disk
// and quiet for the quiet period (edits made while no server ran), in one
// commit, and returns those it committed and those still settling (a
// watcher commits these once quiet).
func (v *Vault) CommitStrayEdits() (committed, settling []string, err error) {
	changed, err := v.Uncommitted()
	if err != nil {
		return nil, nil, err
	}
	for _, p := range changed {
		if fi, err := os.Lstat(v.abs(p)); err == nil && time.Since(fi.ModTime()) < v.quiet {
			settling = append(settling, p)
		} else {
			committed = append(committed, p)
		}
	}
	if len(committed) > 0 {
		if err := v.commitHandEdits(committed); err != nil {
			return nil, settling, err
		}
	}
	return committed, settling, nil
}

// Recoveries returns what was recovered of commits that crashed processes
// left (at Open, and by this process's commits since), once each.
func (v *Vault) Recoveries() []gitstore.RecoveryReport {
	v.mu.Lock()
	out := v.recoveries
	v.recoveries = nil
	v.mu.Unlock()
	return append(out, v.takeStoreRecoveries()...)
}

// takeStoreRecoveries collects the store's recoveries and brings the
// catalog up to date for the paths they changed.
func (v *Vault) takeStoreRecoveries() []gitstore.RecoveryReport {
	reps := v.store.TakeRecovered()
	if len(reps) == 0 {
		return nil
	}
	for _, r := range reps {
		v.catalog.refresh(v.root, r.Paths)
	}
	v.index.Soon()
	return reps
}
