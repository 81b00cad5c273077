package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrHeadMoved says the branch moved between reading it and updating it
// (someone committed at the same moment); nothing was changed.
var ErrHeadMoved = errors.New("the branch moved during the commit; try again")

// gitLock is a git-style lock: `<file>.lock` created exclusively, written,
// then renamed over the file. Git takes the same locks, so the git command
// line and cairn never update the index or a branch at the same time.
//
// cairn's lock files appear already holding `cairn <nonce>` (written to a
// temporary file, then hard-linked to the lock name, which fails if the
// lock exists, as O_EXCL would): a lock left by a cairn process that died
// is told from a git process's by its content, never by its age.
type gitLock struct {
	path, lock string
	f          *os.File
}

// lockMark is the content of a cairn lock file until it is committed.
func lockMark(nonce string) string { return "cairn " + nonce + "\n" }

func (s *Store) takeLock(path, what, nonce string) (*gitLock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	lock := path + ".lock"
	tmp := filepath.Join(s.gitDir, "cairn-lock-"+nonce+".tmp")
	if err := os.WriteFile(tmp, []byte(lockMark(nonce)), 0o644); err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	// A `git status` running beside cairn takes index.lock for a moment to
	// refresh the index: wait a little (up to a second) before giving up.
	for wait := time.Millisecond; ; wait *= 2 {
		err := os.Link(tmp, lock)
		if err == nil {
			f, err := os.OpenFile(lock, os.O_WRONLY, 0)
			if err != nil {
				os.Remove(lock)
				return nil, err
			}
			return &gitLock{path: path, lock: lock, f: f}, nil
		}
		if !os.IsExist(err) {
			return nil, err
		}
		if wait > 512*time.Millisecond {
			return nil, fmt.Errorf("%s is locked by another git process (remove %s if none runs; `cairn doctor` tells)", what, lock)
		}
		time.Sleep(wait)
	}
}

// commit writes data (synced when asked) in place of the mark and renames
// the lock into place.
func (l *gitLock) commit(data []byte, sync bool) error {
	if l.f == nil {
		return errors.New("lock already released")
	}
	f := l.f
	l.f = nil
	fail := func(err error) error {
		f.Close()
		os.Remove(l.lock)
		return err
	}
	if err := f.Truncate(0); err != nil {
		return fail(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return fail(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(l.lock)
		return err
	}
	if err := os.Rename(l.lock, l.path); err != nil {
		os.Remove(l.lock)
		return err
	}
	return nil
}

// release gives the lock up without writing (a no-op after commit).
func (l *gitLock) release() {
	if l != nil && l.f != nil {
		l.f.Close()
		os.Remove(l.lock)
		l.f = nil
	}
}

// lockRef takes ref's lock and checks that the ref still names old.
func (s *Store) lockRef(ref plumbing.ReferenceName, old plumbing.Hash, nonce string) (*gitLock, error) {
	l, err := s.takeLock(filepath.Join(s.gitDir, filepath.FromSlash(ref.String())), ref.String(), nonce)
	if err != nil {
		return nil, err
	}
	cur := plumbing.ZeroHash
	if r, err := s.repo.Storer.Reference(ref); err == nil {
		cur = r.Hash()
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		l.release()
		return nil, fmt.Errorf("read %s: %w", ref, err)
	}
	if cur != old {
		l.release()
		return nil, ErrHeadMoved
	}
	return l, nil
}

// appendReflogs records a branch move in the branch's and HEAD's reflogs, so
// `git reflog` shows cairn's commits like anyone's.
func (s *Store) appendReflogs(ref plumbing.ReferenceName, old, new plumbing.Hash, who object.Signature, msg string) {
	line := fmt.Sprintf("%s %s %s <%s> %d %s\t%s\n", old, new, who.Name, who.Email,
		who.When.Unix(), who.When.Format("-0700"), strings.ReplaceAll(msg, "\n", " "))
	for _, log := range []string{filepath.Join(s.gitDir, "logs", filepath.FromSlash(ref.String())), filepath.Join(s.gitDir, "logs", "HEAD")} {
		appendLine(log, line)
	}
}

func appendLine(path, line string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
}
