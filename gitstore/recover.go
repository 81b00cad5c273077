package gitstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Outcomes of a recovery.
const (
	// RecoveredLanded: the branch had moved; only git's index lagged.
	RecoveredLanded = "landed"
	// RecoveredFinished: the new content had reached the work tree; the
	// commit was completed, as its author's, in the commit it was making.
	RecoveredFinished = "finished"
	// RecoveredDropped: nothing of the commit had reached the work tree.
	RecoveredDropped = "dropped"
	// RecoveredAbandoned: the branch moved since (a commit by hand): what
	// the dead commit put on disk is left there as uncommitted edits.
	RecoveredAbandoned = "abandoned"
)

// RecoveryReport says what was done about a commit a dead process left.
type RecoveryReport struct {
	Pid     int    // the process that died
	Outcome string // one of the Recovered… constants
	Commit  string // the commit it was making ("" when not yet built)
	Subject string
	Author  string
	// Paths the commit changed; KeptOnDisk those a person changed since,
	// left as they are (committed later as that person's edit).
	Paths, KeptOnDisk []string
	RemovedLocks      []string // git lock files it held, removed
	RemovedTemps      int      // its temporary files, removed
}

func (r RecoveryReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "a commit interrupted when process %d died was %s", r.Pid, r.Outcome)
	if r.Subject != "" {
		fmt.Fprintf(&b, " (%q by %s", r.Subject, r.Author)
		if r.Commit != "" {
			fmt.Fprintf(&b, ", %s", r.Commit[:min(12, len(r.Commit))])
		}
		b.WriteString(")")
	}
	if len(r.KeptOnDisk) > 0 {
		fmt.Fprintf(&b, "; changed on disk since and kept: %s", strings.Join(r.KeptOnDisk, ", "))
	}
	if len(r.RemovedLocks) > 0 {
		fmt.Fprintf(&b, "; removed its locks %s", strings.Join(r.RemovedLocks, ", "))
	}
	if r.RemovedTemps > 0 {
		fmt.Fprintf(&b, "; removed %d temporary file(s)", r.RemovedTemps)
	}
	return b.String()
}

// Recover finishes or drops the commit a crashed process left, if any (a
// cheap read of the write lock file tells), and returns what it did.
// Commit does the same before every commit; Recover lets a process do it
// at start, before it reads the work tree.
func (s *Store) Recover() (*RecoveryReport, error) {
	if s.opts.LockFile == "" {
		return nil, nil
	}
	if data, err := os.ReadFile(s.opts.LockFile); err != nil || len(data) == 0 {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleIndexLocked()
	before := len(s.recovered)
	wl, err := s.lockAndRecover()
	if err != nil {
		return nil, err
	}
	wl.release()
	if len(s.recovered) == before {
		return nil, nil
	}
	// The report is the caller's now, not TakeRecovered's.
	r := s.recovered[len(s.recovered)-1]
	s.recovered = s.recovered[:len(s.recovered)-1]
	return &r, nil
}

// TakeRecovered returns (and forgets) the recoveries done since the last
// call, so the layer above can refresh what it knows of their paths.
func (s *Store) TakeRecovered() []RecoveryReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.recovered
	s.recovered = nil
	return r
}

// lockAndRecover takes the write lock; an intent found there is a commit
// whose process died, recovered before anything else.
func (s *Store) lockAndRecover() (*writeLock, error) {
	wl, err := lockWrites(s.opts.LockFile)
	if err != nil {
		return nil, err
	}
	in, ok := wl.leftover()
	if !ok {
		return wl, nil
	}
	rep, err := s.recoverLocked(in)
	if err != nil {
		wl.keep = true
		wl.release()
		return nil, fmt.Errorf("recover the commit interrupted when process %d died: %w", in.pid, err)
	}
	if len(s.recovered) >= 100 {
		s.recovered = s.recovered[1:]
	}
	s.recovered = append(s.recovered, *rep)
	wl.clear()
	return wl, nil
}

// recoverLocked cleans up after a dead commit and decides its fate by what
// reached the disk: the branch moved (only the index lags), some new
// content reached the work tree (finish the commit: the author's words are
// on disk and were about to be committed), or nothing did (drop it).
func (s *Store) recoverLocked(in *intent) (*RecoveryReport, error) {
	rep := &RecoveryReport{Pid: in.pid, Outcome: RecoveredDropped}
	var err error
	if rep.RemovedTemps, err = s.removeTemps(in.nonce); err != nil {
		return nil, err
	}
	if rep.RemovedLocks, err = s.removeMarkedLocks(in); err != nil {
		return nil, err
	}
	if err := s.catchUpIndex(in); err != nil {
		return nil, err
	}
	if in.commit.IsZero() {
		return rep, nil // it died before its objects were staged
	}
	c, err := s.repo.CommitObject(in.commit)
	if err != nil {
		return rep, nil // its objects never reached their place
	}
	rep.Commit, rep.Author = in.commit.String(), c.Author.Name
	rep.Subject, _, _ = strings.Cut(c.Message, "\n")
	cur, err := s.refHash(in.branch)
	if err != nil {
		return nil, err
	}
	diffs, err := s.commitDiff(in.head, c)
	if err != nil {
		return nil, err
	}
	for _, d := range diffs {
		rep.Paths = append(rep.Paths, d.path)
	}
	switch cur {
	case in.commit:
		rep.Outcome = RecoveredLanded
		return rep, s.refreshIndex(in.nonce, diffs)
	case in.head:
		return rep, s.finish(in, c, diffs, rep)
	default:
		rep.Outcome = RecoveredAbandoned
		return rep, nil
	}
}

// catchUpIndex brings git's index up to the last commit that landed while
// the dead process's index was pending (pendingIndex): the index on disk
// matches in.indexBase, the branch had moved on to in.landed. The intent's
// own commit, if any, is then recovered as usual, on top of in.landed.
func (s *Store) catchUpIndex(in *intent) error {
	if in.landed.IsZero() || in.landed == in.indexBase {
		return nil
	}
	c, err := s.repo.CommitObject(in.landed)
	if err != nil {
		return fmt.Errorf("read %s: %w", in.landed, err)
	}
	diffs, err := s.commitDiff(in.indexBase, c)
	if err != nil {
		return err
	}
	if err := s.refreshIndex(in.nonce, diffs); err != nil {
		return fmt.Errorf("bring the git index up to %s: %w", in.landed, err)
	}
	return nil
}

// pathDiff is one path a commit changed: its blob before and after (zero:
// absent) and, read now, the blob on disk (zero: absent).
type pathDiff struct {
	path           string
	old, new, disk plumbing.Hash
}

func (s *Store) commitDiff(head plumbing.Hash, c *object.Commit) ([]pathDiff, error) {
	oldRoot := plumbing.ZeroHash
	if !head.IsZero() {
		hc, err := s.repo.CommitObject(head)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", head, err)
		}
		oldRoot = hc.TreeHash
	}
	w := &treeWalker{repo: s.repo, trees: map[plumbing.Hash]map[string]object.TreeEntry{}}
	var out []pathDiff
	err := w.diffHashes(oldRoot, c.TreeHash, "", func(p string, old, new plumbing.Hash) {
		out = append(out, pathDiff{path: p, old: old, new: new})
	})
	if err != nil {
		return nil, fmt.Errorf("compare the interrupted commit with its parent: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	for i := range out {
		// Every commit that came in passed checkIncoming, and cairn's own
		// pass VerifyPath: this is the last guard before the disk.
		if err := VerifyPath(out[i].path); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(out[i].path)))
		if err == nil {
			out[i].disk = blobHash(data)
		} else if !Missing(err) {
			return nil, fmt.Errorf("read %s: %w", out[i].path, err)
		}
	}
	return out, nil
}

// finish completes a commit whose branch never moved, if any of its new
// content reached the work tree: the files still as they were get the new
// content, files changed since by someone else are kept, and the branch
// moves to the very commit that was being made (its author, message and
// trailers intact).
func (s *Store) finish(in *intent, c *object.Commit, diffs []pathDiff, rep *RecoveryReport) error {
	reached := false
	for _, d := range diffs {
		if d.disk == d.new && (!d.new.IsZero() || !d.old.IsZero()) {
			reached = true
		}
	}
	if !reached {
		return nil // dropped: its objects stay unreferenced, harmless
	}
	b := &batch{nonce: in.nonce}
	defer b.abort()
	var changes []Change
	blobs := map[string]plumbing.Hash{}
	real := map[string]bool{}
	for _, d := range diffs {
		if d.disk == d.old && d.disk != d.new {
			if err := s.noLinkOnTheWay(d.path, real); err != nil {
				return err
			}
		}
	}
	for _, d := range diffs {
		full := filepath.Join(s.dir, filepath.FromSlash(d.path))
		switch {
		case d.disk == d.new:
		case d.disk != d.old:
			rep.KeptOnDisk = append(rep.KeptOnDisk, d.path)
		case d.new.IsZero():
			if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", d.path, err)
			}
			removeEmptyParents(s.dir, filepath.Dir(full))
		default:
			data, err := s.blobData(d.new)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := b.stage(filepath.Dir(full), tempNotePattern(filepath.Base(full), in.nonce), full, data, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", d.path, err)
			}
		}
		kept := d.disk != d.new && d.disk != d.old
		changes = append(changes, Change{Path: d.path, Delete: d.new.IsZero(), OnDisk: kept})
		blobs[d.path] = d.new
	}
	if err := b.flush(); err != nil {
		return fmt.Errorf("write the interrupted commit's files: %w", err)
	}
	tpl, tplDone, err := s.lockTemplate(in.nonce)
	if err != nil {
		return err
	}
	defer tplDone()
	idxLock, err := s.takeLock(filepath.Join(s.gitDir, "index"), "the index", in.nonce, tpl)
	if err != nil {
		return err
	}
	defer idxLock.release()
	refLock, err := s.lockRef(in.branch, in.head, in.nonce, tpl)
	if err != nil {
		return err
	}
	defer refLock.release()
	index, err := s.readIndex()
	if err != nil {
		return err
	}
	if err := refLock.commit([]byte(in.commit.String()+"\n"), true); err != nil {
		return fmt.Errorf("move %s: %w", in.branch, err)
	}
	s.appendReflogs(in.branch, in.head, in.commit, object.Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: time.Now()},
		"commit (finished after a crash): "+rep.Subject)
	rep.Outcome = RecoveredFinished
	if err := s.writeIndex(idxLock, index, changes, blobs); err != nil {
		s.indexWarning = fmt.Sprintf("recovered commit %s, but the git index was not updated (run `git reset` in the vault): %v", in.commit, err)
	}
	return nil
}

// refreshIndex brings git's index up to date for the paths of a commit
// that landed before its process died.
func (s *Store) refreshIndex(nonce string, diffs []pathDiff) error {
	tpl, tplDone, err := s.lockTemplate(nonce)
	if err != nil {
		return err
	}
	defer tplDone()
	idxLock, err := s.takeLock(filepath.Join(s.gitDir, "index"), "the index", nonce, tpl)
	if err != nil {
		return err
	}
	defer idxLock.release()
	index, err := s.readIndex()
	if err != nil {
		return err
	}
	var changes []Change
	blobs := map[string]plumbing.Hash{}
	for _, d := range diffs {
		// Stat data only for a file that holds the committed content; git
		// looks at the content of the others.
		changes = append(changes, Change{Path: d.path, Delete: d.new.IsZero(), OnDisk: d.disk != d.new})
		blobs[d.path] = d.new
	}
	return s.writeIndex(idxLock, index, changes, blobs)
}

func (s *Store) blobData(h plumbing.Hash) ([]byte, error) {
	blob, err := s.repo.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// refHash is what a branch names now (zero when it does not exist).
func (s *Store) refHash(ref plumbing.ReferenceName) (plumbing.Hash, error) {
	r, err := s.repo.Storer.Reference(ref)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", ref, err)
	}
	return r.Hash(), nil
}

// removeMarkedLocks removes the git lock files that hold the dead commit's
// mark: its own, whatever their age. A lock with any other content belongs
// to a git process (alive, or dead of its own accord) and stays.
func (s *Store) removeMarkedLocks(in *intent) ([]string, error) {
	candidates := []string{filepath.Join(s.gitDir, "index.lock")}
	if in.branch != "" {
		candidates = append(candidates, filepath.Join(s.gitDir, filepath.FromSlash(in.branch.String())+".lock"))
	} else if b, err := s.branchRef(); err == nil {
		candidates = append(candidates, filepath.Join(s.gitDir, filepath.FromSlash(b.String())+".lock"))
	}
	var removed []string
	for _, lock := range candidates {
		data, err := os.ReadFile(lock)
		if err != nil || string(data) != lockMark(in.nonce) {
			continue
		}
		if err := os.Remove(lock); err != nil {
			return nil, fmt.Errorf("remove %s: %w", lock, err)
		}
		rel, _ := filepath.Rel(s.dir, lock)
		removed = append(removed, filepath.ToSlash(rel))
	}
	return removed, nil
}

// removeTemps removes the temporary files of the commit with this nonce:
// its staged objects, its temporary files in .git, and its notes' staged contents
// (anywhere in the work tree but .git: the walk happens only after a crash).
func (s *Store) removeTemps(nonce string) (int, error) {
	n := 0
	rm := func(p string) {
		if os.Remove(p) == nil {
			n++
		}
	}
	if names, err := filepath.Glob(gitTemp(s.gitDir, nonce, "*")); err == nil {
		for _, p := range names {
			rm(p)
		}
	}
	objects := filepath.Join(s.gitDir, "objects")
	dirs, err := os.ReadDir(objects)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", objects, err)
	}
	prefix := tempObjectPrefix + nonce + "-"
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		names, _ := os.ReadDir(filepath.Join(objects, d.Name()))
		for _, f := range names {
			if strings.HasPrefix(f.Name(), prefix) {
				rm(filepath.Join(objects, d.Name(), f.Name()))
			}
		}
	}
	marker := tempNoteMarker + nonce + "-"
	err = filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p == s.gitDir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.Contains(d.Name(), marker) {
			rm(p)
		}
		return nil
	})
	return n, err
}
