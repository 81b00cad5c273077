package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// deferIndexBytes is the size of git index from which a commit leaves
// writing it to the background (pendingIndex): about 15,000 notes. Under
// it the index is written before Commit returns, as git does. A variable
// so that tests can defer every index.
var deferIndexBytes = 2 << 20

// pendingIndex is the git index of commits that have landed (objects,
// work tree, branch) but whose index is not in place yet. Rewriting the
// whole index is the one part of a commit that grows with the vault (13
// MB spliced, checksummed and written per write at 100,000 notes), so in
// a big vault a commit hands it to a background writer and returns; the
// commits that land meanwhile add their paths, and one write covers them
// all (writePending).
//
// Until the index is in place the store keeps what a commit holds: the
// write lock, whose intent names the commit the index on disk matches
// (writeLock.indexBase, so that a crash is repaired at the next open,
// recover.go), and git's index.lock, so that no git process reads the
// index to commit from it, or writes it, meanwhile. `git status` in that
// window reports from the index as it was, as it does during any commit.
type pendingIndex struct {
	wl   *writeLock // the store's write lock, held
	lock *gitLock   // index.lock, held
	// base is the index the updates apply to: the file on disk, then each
	// pass's splice (written to a temporary file, not yet in place).
	base    *parsedIndex
	spare   *parsedIndex           // an index nothing reads: the next splice's buffers
	updates map[string]indexUpdate // by path, the last commit's
	// oldest is the earliest modification time among the entries written
	// since the index was last in place (see publish).
	oldest time.Time
	// urgent asks the writer to start at once and to finish while holding
	// the store's lock (settleIndexLocked waits for it); hurry is closed
	// then.
	urgent bool
	hurry  chan struct{}
	since  time.Time     // when the first of its commits landed
	done   chan struct{} // closed once the index is in place, or given up
}

// maxCoalesce bounds how long the writer lets commits gather before its
// first pass (coalesceDelay).
const maxCoalesce = 100 * time.Millisecond

// coalesceDelay is how long the writer waits, after the first commit,
// before its first pass: four times what the last index write took, at
// most maxCoalesce. One client writing flat out at 100,000 notes lands a
// commit every 15-35 ms while an index write takes about 15 ms of CPU;
// written after each commit, the index took 9.0 s of CPU over 600 writes,
// and 4.5 s with the wait (vaultbench -cpuprofile), for a git index that
// stays out of place (index.lock held) at most that much longer.
func (s *Store) coalesceDelay(p *pendingIndex) time.Duration {
	return min(4*s.idxWriteCost, maxCoalesce) - time.Since(p.since)
}

// writerGate, when a test sets it, is called by the writer before each
// pass: a test blocks it to let commits pile up behind one index write.
var writerGate = func() {}

func (p *pendingIndex) add(updates []indexUpdate) {
	for _, u := range updates {
		p.updates[u.name] = u
		if u.fi != nil && (p.oldest.IsZero() || u.fi.ModTime().Before(p.oldest)) {
			p.oldest = u.fi.ModTime()
		}
	}
}

func (p *pendingIndex) take() []indexUpdate {
	out := make([]indexUpdate, 0, len(p.updates))
	for _, u := range p.updates {
		out = append(out, u)
	}
	clear(p.updates)
	return out
}

// commitLock is the write lock for a commit: the one the pending index
// holds (the same process already owns it; taking it again on another
// file descriptor would wait for ourselves), else taken, with recovery.
func (s *Store) commitLock() (*writeLock, error) {
	if s.pend != nil {
		return s.pend.wl, nil
	}
	return s.lockAndRecover()
}

// releaseUnlessPending releases wl, unless the pending index holds it.
func (s *Store) releaseUnlessPending(wl *writeLock) {
	if s.pend == nil || s.pend.wl != wl {
		wl.release()
	}
}

// indexLock is index.lock for a commit: the pending index's, else taken.
func (s *Store) indexLock(nonce, tpl string) (*gitLock, error) {
	if s.pend != nil {
		return s.pend.lock, nil
	}
	return s.takeLock(filepath.Join(s.gitDir, "index"), "the index", nonce, tpl)
}

// currentIndex is the index a commit updates: nil while one is pending
// (the commit adds its paths to it), else the file read and checked
// before anything changes (readIndex).
func (s *Store) currentIndex() (*indexState, error) {
	if s.pend != nil {
		return nil, nil
	}
	return s.readIndex()
}

// updateIndex brings git's index up to date for a commit that has landed
// (commit, on top of head): added to the pending index if there is one,
// handed to a new one in a big vault, else written now.
func (s *Store) updateIndex(wl *writeLock, idxLock *gitLock, st *indexState, head, commit plumbing.Hash, changes []Change, blobs map[string]plumbing.Hash) error {
	if s.pend != nil {
		s.pend.add(s.indexUpdates(changes, blobs))
		wl.landed = commit
		crashPoint("pending")
		return nil
	}
	if st.parsed == nil || len(st.parsed.data) < deferIndexBytes || wl.f == nil {
		return s.writeIndex(idxLock, st, changes, blobs)
	}
	// The writer's first splice reuses the buffers of the index before
	// last, as a commit's own splice does: at 100,000 notes a new 13 MB
	// index and 3 MB of spans per index write were most of a burst's
	// garbage.
	spare := s.idxSpare
	if spare == st.parsed {
		spare = nil // never write into the index being read
	}
	p := &pendingIndex{wl: wl, lock: idxLock, base: st.parsed, spare: spare, updates: map[string]indexUpdate{},
		since: time.Now(), hurry: make(chan struct{}), done: make(chan struct{})}
	p.add(s.indexUpdates(changes, blobs))
	wl.indexBase, wl.landed = head, commit
	s.idxCache, s.idxSpare = nil, nil // the writer owns the buffers now
	s.pend = p
	crashPoint("pending")
	go s.writePending(p)
	return nil
}

// writePending is the background writer: it splices what is pending into
// a temporary file without the store's lock, so commits go on meanwhile;
// once a pass has caught up with them, it puts the file in place and lets
// the locks go. The third pass (or an urgent one) runs under the store's
// lock, so that a steady stream of commits cannot keep the index out of
// place for more than about three index writes.
func (s *Store) writePending(p *pendingIndex) {
	s.mu.Lock()
	delay := s.coalesceDelay(p)
	s.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-p.hurry:
			t.Stop()
		}
	}
	for pass := 0; ; pass++ {
		writerGate()
		s.mu.Lock()
		hold := pass >= 2 || p.urgent
		updates, base, spare := p.take(), p.base, p.spare
		if !hold {
			s.mu.Unlock()
		}
		t0 := time.Now()
		next := base.splice(updates, spare)
		tmp, err := writeTemp(p.lock, next.data)
		cost := time.Since(t0)
		if !hold {
			s.mu.Lock()
		}
		s.idxWriteCost = cost
		p.base, p.spare = next, base
		if err == nil && len(p.updates) > 0 {
			s.mu.Unlock()
			continue // commits landed during the pass: splice them in too
		}
		if err == nil {
			err = s.publish(p, tmp, next)
		}
		if err != nil {
			os.Remove(tmp)
			s.indexWarning = fmt.Sprintf("commit %s made, but the git index was not updated (run `git reset` in the vault): %v", p.wl.landed, err)
		}
		p.lock.release()
		p.wl.indexBase, p.wl.landed = plumbing.ZeroHash, plumbing.ZeroHash
		p.wl.release()
		s.pend = nil
		close(p.done)
		s.mu.Unlock()
		return
	}
}

// writeTemp writes an index to the lock's temporary file (not in place).
func writeTemp(l *gitLock, data []byte) (string, error) {
	tmp := l.temp()
	_, err := writeTempFile(tmp, data, false)
	return tmp, err
}

// publish puts the written index in place. Its modification time is set
// back to the oldest entry written since the last one: git trusts an
// entry's stat data only when the file is older than the index, so a
// person's save landing in the same clock tick as cairn's write (same
// size, same coarse time stamp) is still compared by content, as it would
// be had the index been written at once.
func (s *Store) publish(p *pendingIndex, tmp string, pi *parsedIndex) error {
	if !p.oldest.IsZero() {
		if err := os.Chtimes(tmp, time.Now(), p.oldest); err != nil {
			return err
		}
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p.lock.path); err != nil {
		return err
	}
	if id, ok := idOf(fi, indexSum(pi.data)); ok {
		s.idxCache = &indexCache{id: id, pi: pi}
		s.idxSpare = p.spare
	}
	return nil
}

// settleIndexLocked returns once no index write is pending, asking the
// writer to hurry. The caller holds s.mu, which is let go while waiting.
// Whatever else takes the write lock, or reads the index, calls it first.
func (s *Store) settleIndexLocked() {
	for s.pend != nil {
		p := s.pend
		if !p.urgent {
			p.urgent = true
			close(p.hurry)
		}
		s.mu.Unlock()
		<-p.done
		s.mu.Lock()
	}
}

// SettleIndex returns once git's index is in place for every commit made
// so far (in a big vault a commit returns before it is: pendingIndex).
func (s *Store) SettleIndex() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleIndexLocked()
}
