package host

import (
	"context"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/vault"
)

// startBackground starts what the host runs beside the calls: what was
// recovered at open is reported, edits made while no host ran are
// committed (by the watcher, or at once without one), the search index
// opens, derived state is kept fresh and saved, and the heap a burst of
// calls grew is given back once the process is quiet (trim.go).
func startBackground(ctx context.Context, v *vault.Vault, o Options) {
	report := o.Report
	for _, r := range v.Recoveries() {
		report(fmt.Errorf("recovered: %s", r))
	}
	go v.Maintain(ctx, 3*time.Second, 30*time.Second, report)
	go trimWhenQuiet(ctx)
	go func() {
		// Open the search index now, so the first search does not wait.
		if _, err := v.SearchIndex(); err != nil {
			report(err)
		}
	}()
	if o.NoWatch {
		// Notes still being saved are committed at their next read or write.
		go func() {
			if _, _, err := v.CommitStrayEdits(); err != nil {
				report(fmt.Errorf("commit edits made while cairn was stopped: %w", err))
			}
		}()
		return
	}
	v.GoWatch(ctx, vault.WatchOptions{Quiet: o.Quiet, Report: report}, func(err error) {
		if err != nil {
			report(fmt.Errorf("%w; edits made by hand are picked up every 3 s instead", err))
		}
	})
}

// CloseBudget bounds the vault's Close when the host stops: SIGTERM must
// end a server within 2 s, and the handover (DrainBudget) comes first.
// Close stops the index's work at its next step (a few hundred
// milliseconds at most) and waits at most search.DefaultCloseWait for
// Bleve's disk writes (250 ms more during a first build, whose persister
// naps between writes); past the budget the process exits anyway. Every
// file is written whole or not at all, and the search index, derived
// state, is checked against its manifest at the next start.
const CloseBudget = 800 * time.Millisecond

// DrainBudget bounds a handover: the calls in progress finish and the
// front ends acknowledge within it.
const DrainBudget = time.Second

// CloseWithin closes the vault, giving up waiting after d (report says so).
func CloseWithin(v *vault.Vault, d time.Duration, report func(error)) {
	done := make(chan error, 1)
	go func() { done <- v.Close() }()
	select {
	case err := <-done:
		if err != nil {
			report(fmt.Errorf("close: %w", err))
		}
	case <-time.After(d):
		report(fmt.Errorf("still saving after %s; exiting (the search index is checked at the next start)", d))
	}
}
