package gitstore

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Leftover is something a process that died may have left in the vault: a
// commit it was making, a git lock file, a temporary file.
type Leftover struct {
	Path  string // relative to the work tree
	What  string // "interrupted commit", "git lock", "temporary file"
	Owner string // "cairn", or "git" for anything cairn did not mark as its own
	Age   time.Duration
	// Safe says removing it now cannot hurt a live process; Why says how
	// that is known, or what stops it.
	Safe bool
	Why  string
	// Live says it belongs to work under way now (a cairn commit holding
	// the write lock, a git command running here): nothing left behind.
	Live bool
}

func (l Leftover) String() string {
	return fmt.Sprintf("%s %s (%s, %s old): %s", l.What, l.Path, l.Owner, l.Age.Round(time.Second), l.Why)
}

// How old a file no cairn mark identifies must be before it counts as
// abandoned: git holds its locks for the length of one command, and writes
// a loose object's temporary file in milliseconds.
const (
	foreignLockAge   = time.Minute
	foreignObjectAge = time.Hour
	cacheTempAge     = time.Minute
)

// Leftovers lists, without changing anything, what crashed processes left:
// an interrupted commit (an intent in the write lock nobody holds), git lock
// files and temporary files, each with whether it is safe to remove now.
//
// How it tells: a cairn commit marks everything it creates with its nonce
// and holds the write lock's flock, which the kernel releases when the
// process dies; so cairn's leftovers are safe once that lock is free. A
// lock file without cairn's mark may be a live git command's: it is safe
// only if no process has it open, no git process runs in the repository,
// and it is older than a minute (`git commit` keeps index.lock while the
// person writes the message, with git running all along).
func (s *Store) Leftovers() ([]Leftover, error) {
	s.SettleIndex() // this process's own pending index is no leftover
	free := s.writeLockFree()
	return s.leftovers(free)
}

// RepairLeftovers recovers an interrupted commit and removes every leftover
// that is safe to remove, holding the write lock so that no cairn commit
// starts meanwhile. It returns what it removed and the recovery, if any.
func (s *Store) RepairLeftovers() ([]Leftover, *RecoveryReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleIndexLocked()
	before := len(s.recovered)
	wl, err := s.lockAndRecover()
	if err != nil {
		return nil, nil, err
	}
	defer wl.release()
	var rep *RecoveryReport
	if len(s.recovered) > before {
		rep = &s.recovered[len(s.recovered)-1]
	}
	all, err := s.leftovers(true)
	if err != nil {
		return nil, rep, err
	}
	var removed []Leftover
	for _, l := range all {
		if !l.Safe || l.What == "interrupted commit" {
			continue
		}
		if err := os.Remove(filepath.Join(s.dir, filepath.FromSlash(l.Path))); err != nil && !os.IsNotExist(err) {
			return removed, rep, fmt.Errorf("remove %s: %w", l.Path, err)
		}
		removed = append(removed, l)
	}
	return removed, rep, nil
}

// writeLockFree reports whether no process holds the write lock now.
func (s *Store) writeLockFree() bool {
	if s.opts.LockFile == "" {
		return false
	}
	f, err := os.OpenFile(s.opts.LockFile, os.O_RDWR, 0)
	if err != nil {
		return os.IsNotExist(err)
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// leftovers lists what is left; free says no cairn commit is under way.
func (s *Store) leftovers(free bool) ([]Leftover, error) {
	var out []Leftover
	now := time.Now()
	rel := func(p string) string {
		r, _ := filepath.Rel(s.dir, p)
		return filepath.ToSlash(r)
	}
	if pid, found, alive := ReadIntent(s.opts.LockFile); found && !alive {
		l := Leftover{Path: rel(s.opts.LockFile), What: "interrupted commit", Owner: "cairn", Safe: true,
			Why: fmt.Sprintf("process %d died mid-commit; the next write (or doctor --fix) finishes or drops it", pid)}
		if fi, err := os.Stat(s.opts.LockFile); err == nil {
			l.Age = now.Sub(fi.ModTime())
		}
		out = append(out, l)
	}
	cairnWhy := "cairn's own; no cairn commit is under way"
	if !free {
		cairnWhy = "cairn's own, but a cairn commit is under way"
	}
	procs := newProcessView(s.dir)
	locks, err := s.lockFiles()
	if err != nil {
		return nil, err
	}
	for _, p := range locks {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		l := Leftover{Path: rel(p), What: "git lock", Owner: "git", Age: now.Sub(fi.ModTime())}
		if data, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(data), "cairn ") && len(data) < 64 {
			l.Owner, l.Safe, l.Why, l.Live = "cairn", free, cairnWhy, !free
		} else {
			l.Safe, l.Why = procs.abandoned(p, l.Age, foreignLockAge)
			l.Live = !l.Safe && procs.ok
		}
		out = append(out, l)
	}
	temps, err := s.tempFiles()
	if err != nil {
		return nil, err
	}
	for _, p := range temps {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		l := Leftover{Path: rel(p), What: "temporary file", Owner: "cairn", Age: now.Sub(fi.ModTime())}
		name := filepath.Base(p)
		switch {
		case strings.HasPrefix(name, "tmp_obj_") && !strings.HasPrefix(name, tempObjectPrefix):
			// git's own, or an older cairn's: known only by age.
			l.Owner = "git"
			l.Safe, l.Why = procs.abandoned(p, l.Age, foreignObjectAge)
			l.Live = !l.Safe && procs.ok
		case strings.HasPrefix(rel(p), ".cairn/") && !strings.HasPrefix(rel(p), ".cairn/trash/"):
			// Cache and secrets files are written outside commits (the
			// trash's files are a commit's, like notes).
			l.Safe = l.Age > cacheTempAge
			l.Why = "a cache or secrets file's temporary copy, written in milliseconds"
			l.Live = !l.Safe
		default:
			l.Safe, l.Why, l.Live = free, cairnWhy, !free
		}
		out = append(out, l)
	}
	return out, nil
}

// lockFiles lists git's lock files: the index, HEAD, config, packed refs
// and every ref.
func (s *Store) lockFiles() ([]string, error) {
	var out []string
	for _, f := range []string{"index.lock", "HEAD.lock", "config.lock", "packed-refs.lock"} {
		if _, err := os.Lstat(filepath.Join(s.gitDir, f)); err == nil {
			out = append(out, filepath.Join(s.gitDir, f))
		}
	}
	err := filepath.WalkDir(filepath.Join(s.gitDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// tempFiles lists temporary files: staged objects and lock templates in
// .git, and staged notes and cache files anywhere else.
func (s *Store) tempFiles() ([]string, error) {
	var out []string
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p == s.gitDir {
				out = append(out, s.gitTempFiles()...)
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") && strings.Contains(name, tempNoteMarker) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func (s *Store) gitTempFiles() []string {
	var out []string
	if names, err := filepath.Glob(gitTemp(s.gitDir, "*", "*")); err == nil {
		out = append(out, names...)
	}
	objects := filepath.Join(s.gitDir, "objects")
	dirs, _ := os.ReadDir(objects)
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		names, _ := os.ReadDir(filepath.Join(objects, d.Name()))
		for _, f := range names {
			if strings.HasPrefix(f.Name(), "tmp_obj_") {
				out = append(out, filepath.Join(objects, d.Name(), f.Name()))
			}
		}
	}
	return out
}
