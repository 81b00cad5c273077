package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/fsnotify/fsnotify"
)

// WatchOptions tune the watcher.
type WatchOptions struct {
	// Debounce is how long a burst of events (an editor's save dance, a
	// checkout) may last before the touched files are looked at.
	Debounce time.Duration
	// Quiet is how long a changed file must stay untouched before the
	// human's edit is committed (the vault's Options.Quiet when zero).
	Quiet time.Duration
	// Report receives problems (nil: ignored).
	Report func(error)
	// Ready, if set, is closed once every folder is watched.
	Ready chan struct{}
	// Reconcile is how often the whole vault is compared with what the
	// watcher knows, in case events were missed (default 5 s).
	Reconcile time.Duration
}

// Watch follows edits people make in their own editor until ctx ends:
// changed notes are reindexed at once (catalog and link graph), and
// committed as the human's once they have been quiet for a while. It never
// trusts event kinds: it looks at the files as they are. Not recursive by
// nature (inotify), it adds every folder, new ones included.
func (v *Vault) Watch(ctx context.Context, o WatchOptions) error {
	report := o.Report
	if report == nil {
		report = func(error) {}
	}
	if !v.enterWatch() {
		return nil
	}
	defer v.watchers.Done()
	return v.watch(ctx, o, report)
}

// GoWatch runs Watch in a goroutine of its own, counted as a watcher
// before it returns: a Close right after still waits for it to commit
// what it has seen. done gets Watch's error.
func (v *Vault) GoWatch(ctx context.Context, o WatchOptions, done func(error)) {
	if !v.enterWatch() {
		return
	}
	go func() {
		defer v.watchers.Done()
		report := o.Report
		if report == nil {
			report = func(error) {}
		}
		done(v.watch(ctx, o, report))
	}()
}

// enterWatch counts a watcher in, unless the vault is closing.
func (v *Vault) enterWatch() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return false
	}
	v.watchers.Add(1)
	return true
}

// watch is Watch's loop.
func (v *Vault) watch(ctx context.Context, o WatchOptions, report func(error)) error {
	if o.Debounce == 0 {
		o.Debounce = 150 * time.Millisecond
	}
	if o.Quiet == 0 {
		o.Quiet = v.quiet
	}
	if o.Reconcile == 0 {
		o.Reconcile = 5 * time.Second
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Close()
	l := &watchLoop{v: v, o: o, w: w, report: report, touched: map[string]time.Time{}, pending: map[string]time.Time{}}
	l.watchTree(v.root)
	if o.Ready != nil {
		close(o.Ready)
	}
	reconcile := time.NewTicker(o.Reconcile)
	defer reconcile.Stop()
	v.pendStray(l.pending, report)
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	// The quiet period counts from the last event, and is checked often,
	// so an edit is committed at most a tick after it.
	tick := time.NewTicker(min(o.Quiet/10, 25*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return l.stop()
		case <-v.closing:
			return l.stop()
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			l.onError(err)
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if rel, err := filepath.Rel(v.root, ev.Name); err == nil && !strings.HasPrefix(rel, "..") {
				l.touched[filepath.ToSlash(rel)] = time.Now()
				debounce.Reset(o.Debounce)
			}
		case <-debounce.C:
			l.lookAtTouched()
		case <-reconcile.C:
			l.reconcile()
		case <-tick.C:
			l.commitQuiet()
		}
	}
}

// watchLoop is the state of one watcher's loop (watch).
type watchLoop struct {
	v      *Vault
	o      WatchOptions
	w      *fsnotify.Watcher
	report func(error)
	// touched are the vault paths seen in events, not yet looked at,
	// each with its last event.
	touched map[string]time.Time
	// pending are the notes changed by hand, not yet committed, each with
	// its last change.
	pendingMu sync.Mutex
	pending   map[string]time.Time
}

// watchTree watches dir and every folder below it that is not hidden or
// ignored.
func (l *watchLoop) watchTree(dir string) {
	ign := l.v.ignoreMatcher()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(l.v.root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || ignored(ign, rel, true)) {
			return filepath.SkipDir
		}
		if err := l.w.Add(p); err != nil {
			l.report(fmt.Errorf("watch %s: %w", rel, err))
		}
		return nil
	})
}

// stop commits what the watcher has seen, as its last act.
func (l *watchLoop) stop() error {
	l.pendingMu.Lock()
	defer l.pendingMu.Unlock()
	l.v.commitSeen(l.v.lookAt(l.touched, l.watchTree), l.pending, l.report)
	return nil
}

// onError handles a watcher's error: after an overflow (events were
// lost) everything is looked at again.
func (l *watchLoop) onError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		l.v.rescan()
		l.v.syncHead()
		return
	}
	l.report(fmt.Errorf("watch: %w", err))
}

// lookAtTouched looks at the paths a burst of events touched, once the
// burst is over, and makes the changed notes pending.
func (l *watchLoop) lookAtTouched() {
	batch := l.touched
	l.touched = map[string]time.Time{}
	changed := l.v.lookAt(batch, l.watchTree)
	l.v.index.Soon()
	l.pendingMu.Lock()
	defer l.pendingMu.Unlock()
	for _, p := range changed {
		at, ok := batch[p]
		if !ok { // found under a touched folder
			at = time.Now()
		}
		l.pending[p] = at
	}
}

// reconcile finds whatever changed without an event reaching the watcher
// (a watch not yet in place, an overflow) by size and mtime, paced by the
// rescan's cost (scanDue).
func (l *watchLoop) reconcile() {
	if !l.v.scanDue(l.o.Reconcile) {
		return
	}
	changed, err := l.v.rescanChanged()
	if err != nil {
		l.report(err)
		return
	}
	now := time.Now()
	l.pendingMu.Lock()
	defer l.pendingMu.Unlock()
	for _, p := range changed {
		if d, err := l.v.store.Dirty(p); err == nil && d {
			l.pending[p] = now
		}
	}
}

// commitQuiet commits the pending edits that have been quiet for the
// quiet period; what fails is tried again at a later tick.
func (l *watchLoop) commitQuiet() {
	l.pendingMu.Lock()
	var due []string
	for p, at := range l.pending {
		if time.Since(at) >= l.o.Quiet {
			due = append(due, p)
			delete(l.pending, p)
		}
	}
	l.pendingMu.Unlock()
	if len(due) == 0 {
		return
	}
	if err := l.v.commitHandEdits(due); err != nil {
		l.report(err)
		l.pendingMu.Lock()
		defer l.pendingMu.Unlock()
		for _, p := range due {
			if _, ok := l.pending[p]; !ok {
				l.pending[p] = time.Now()
			}
		}
	}
}

// commitSeen commits, as a stopping watcher's last act, the edits it has
// seen and not committed (pending, and changed: found in events not yet
// looked at), without waiting for their quiet period: a server that ran
// for under a second would otherwise leave an edit made just before it
// started for the next one. A file written to in the last 50 ms may be a
// save in progress (an editor writes one in milliseconds): it is left, and
// the next start commits it once quiet.
func (v *Vault) commitSeen(changed []string, pending map[string]time.Time, report func(error)) {
	seen := map[string]bool{}
	for _, p := range changed {
		seen[p] = true
	}
	for p := range pending {
		seen[p] = true
	}
	var due []string
	for p := range seen {
		if fi, err := os.Lstat(v.abs(p)); err != nil || time.Since(fi.ModTime()) > 50*time.Millisecond {
			due = append(due, p)
		}
	}
	if len(due) == 0 {
		return
	}
	sort.Strings(due)
	if err := v.commitHandEdits(due); err != nil {
		report(fmt.Errorf("commit the edits seen before stopping: %w", err))
	}
}

// pendStray adds to pending the notes that differ from HEAD when the
// watcher starts (edits made while no server watched: stopped, crashed,
// --no-watch), as of their file's time, so they are committed like any
// other edit once quiet.
func (v *Vault) pendStray(pending map[string]time.Time, report func(error)) {
	stray, err := v.Uncommitted()
	if err != nil {
		report(err)
		return
	}
	for _, p := range stray {
		var at time.Time // a deleted note is due at once
		if fi, err := os.Lstat(v.abs(p)); err == nil {
			at = fi.ModTime()
		}
		pending[p] = at
	}
}

// ignorable are the temporary and swap files editors write beside notes.
func ignorable(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") || strings.HasPrefix(name, "#") ||
		strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".swx") || strings.HasSuffix(name, ".tmp")
}

// lookAt examines the paths a burst of events touched: new folders are
// watched (and their notes looked at), notes are reindexed at once. It
// returns the notes whose content on disk is not what HEAD holds.
func (v *Vault) lookAt(batch map[string]time.Time, watchTree func(string)) []string {
	var notes []string
	for rel := range batch {
		if baseName(rel) == ProjectMarker && !hiddenSegment(parentDir(rel)) {
			notes = append(notes, rel) // a dotfile, but one that makes a project
			continue
		}
		if ignorable(baseName(rel)) || hiddenSegment(rel) {
			continue
		}
		full := v.abs(rel)
		fi, err := os.Lstat(full)
		if err == nil && fi.IsDir() {
			watchTree(full)
			// A folder made and filled in one go (mkdir -p a/b && write a/b/x):
			// its files came before its watch.
			filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					r, _ := filepath.Rel(v.root, p)
					notes = append(notes, filepath.ToSlash(r))
				}
				return nil
			})
			continue
		}
		notes = append(notes, rel)
		notes = append(notes, v.catalog.knownUnder(rel)...)
	}
	sort.Strings(notes)
	ign := v.ignoreMatcher()
	var dirty []string
	seen := map[string]bool{}
	markers := false
	for _, p := range notes {
		if baseName(p) == ProjectMarker && !hiddenSegment(parentDir(p)) {
			// Written, changed or removed by hand: who may see what changes
			// now, not at the next rescan.
			markers = true
			continue
		}
		if !seen[p] && isOtherFile(p) && !ignored(ign, p, false) {
			seen[p] = true
			v.catalog.refreshFile(v.root, p) // an attachment added or removed: links to it resolve or not
			continue
		}
		if seen[p] || !isNotePath(p) || ignored(ign, p, false) {
			continue
		}
		seen[p] = true
		v.catalog.refresh(v.root, []string{p})
		if d, err := v.store.Dirty(p); err == nil && d {
			dirty = append(dirty, p)
		}
	}
	if markers {
		v.rescan()
	}
	return dirty
}

// commitHandEdits commits, as the human's, the notes among paths whose
// content on disk still differs from HEAD (a person who committed by hand
// first is respected: nothing is left to commit).
func (v *Vault) commitHandEdits(paths []string) error {
	var changes []gitstore.Change
	for _, p := range paths {
		dirty, err := v.store.Dirty(p)
		if err != nil || !dirty {
			continue
		}
		data, rerr := readFileNoFollow(v.abs(p))
		switch {
		case gitstore.Missing(rerr):
			if _, tracked, _ := v.store.Version(p); tracked {
				changes = append(changes, gitstore.Change{Path: p, Delete: true, Absent: true})
			}
		case rerr != nil || len(data) > MaxNoteBytes || unshareableName(p) != "":
			continue // never commit what cairn cannot serve or share; doctor reports it
		default:
			changes = append(changes, gitstore.Change{Path: p, Content: data, OnDisk: true})
		}
	}
	if len(changes) == 0 {
		return nil
	}
	msg := "Edit by hand: " + changes[0].Path
	if len(changes) > 1 {
		msg = fmt.Sprintf("Edit by hand: %d notes", len(changes))
	}
	human := access.Caller{Principal: v.Owner(), Actor: "human", Tool: "editor"}
	_, err := v.commit(human, msg, "", changes)
	if errors.Is(err, gitstore.ErrNothingToCommit) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("commit edits made by hand: %w", err)
	}
	return nil
}

// Reconcile compares the whole vault with what the vault knows (size and
// mtime of every note, then the content of those that differ) and brings
// the catalog and the link graph up to date. It returns the notes found
// changed. The watcher runs it periodically; it is the answer to missed
// events.
func (v *Vault) Reconcile() ([]string, error) {
	if err := v.syncHead(); err != nil {
		return nil, err
	}
	return v.rescanChanged()
}

// Indexed reports whether the note at path is known as the catalog last
// read it: in the link graph and, once the search index is open, in the
// search index (for tests and benchmarks of the watcher).
func (v *Vault) Indexed(path string) bool {
	ver, ok := v.catalog.stamp(path)
	if !ok {
		return false
	}
	ix := v.index.Current()
	return ix == nil || ix.Version(path) == ver
}
