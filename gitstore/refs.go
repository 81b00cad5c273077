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

// gitLock is a git-style lock: `<file>.lock` created exclusively while the
// file is updated. Git takes the same locks, so the git command line and
// cairn never update the index or a branch at the same time.
//
// cairn's lock files hold `cairn <nonce>` from the moment they exist
// (written to a temporary file, then hard-linked to the lock name, which
// fails if the lock exists, as O_EXCL would) until they are removed: the
// new content goes to a temporary file of its own, renamed over the file,
// and then the lock is removed. A lock left by a cairn process that died
// is thus told from a git process's by its content, never by its age.
type gitLock struct {
	path, lock string
	gitDir     string
	nonce      string
	held       bool
}

// lockMark is the content of a cairn lock file.
func lockMark(nonce string) string { return "cairn " + nonce + "\n" }

// gitTemp is a temporary file of the commit with this nonce in .git
// (never under refs/, where git would take it for a branch).
func gitTemp(gitDir, nonce, purpose string) string {
	return filepath.Join(gitDir, "cairn-"+nonce+"-"+purpose+".tmp")
}

// lockTemplate writes the file a commit's git locks are hard-linked from
// (one for all of them); done removes it once the locks are taken.
func (s *Store) lockTemplate(nonce string) (tpl string, done func(), err error) {
	tpl = gitTemp(s.gitDir, nonce, "lock")
	if err := os.WriteFile(tpl, []byte(lockMark(nonce)), 0o644); err != nil {
		return "", nil, err
	}
	return tpl, func() { os.Remove(tpl) }, nil
}

// takeLock takes path's lock by hard-linking tpl (lockTemplate) to it.
func (s *Store) takeLock(path, what, nonce, tpl string) (*gitLock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	lock := path + ".lock"
	// A `git status` running beside cairn takes index.lock for a moment to
	// refresh the index: wait a little (up to a second) before giving up.
	for wait := time.Millisecond; ; wait *= 2 {
		err := os.Link(tpl, lock)
		if err == nil {
			return &gitLock{path: path, lock: lock, gitDir: s.gitDir, nonce: nonce, held: true}, nil
		}
		if !os.IsExist(err) {
			return nil, err
		}
		if wait > 512*time.Millisecond {
			return nil, &lockedError{what: what, lock: lock}
		}
		time.Sleep(wait)
	}
}

// lockedError says a git lock stayed taken by someone else for a second.
type lockedError struct{ what, lock string }

func (e *lockedError) Error() string {
	return fmt.Sprintf("%s is locked by another git process (remove %s if none runs; `cairn doctor` tells)", e.what, e.lock)
}

// commit puts data in place of the locked file (through a temporary file,
// synced when asked, renamed over it) and removes the lock.
func (l *gitLock) commit(data []byte, sync bool) error {
	_, err := l.write(data, sync)
	return err
}

// commitStat is commit (without fsync) returning the file's stat as
// written: the file put in place keeps its inode and modification time.
func (l *gitLock) commitStat(data []byte) (os.FileInfo, error) {
	return l.write(data, false)
}

func (l *gitLock) write(data []byte, sync bool) (os.FileInfo, error) {
	return l.writeChecked(data, sync, nil)
}

// commitChecked is commit, with check run once the new content is written
// (and synced), right before it is renamed into place: an error from
// check leaves the file as it was.
func (l *gitLock) commitChecked(data []byte, sync bool, check func() error) error {
	_, err := l.writeChecked(data, sync, check)
	return err
}

func (l *gitLock) writeChecked(data []byte, sync bool, check func() error) (os.FileInfo, error) {
	if !l.held {
		return nil, errors.New("lock already released")
	}
	defer l.release()
	tmp := l.temp()
	fi, err := writeTempFile(tmp, data, sync)
	if err == nil && check != nil {
		err = check()
	}
	if err == nil {
		err = os.Rename(tmp, l.path)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return fi, nil
}

// temp is where the locked file's new content is written before it is
// renamed over the file.
func (l *gitLock) temp() string { return gitTemp(l.gitDir, l.nonce, filepath.Base(l.path)) }

// writeTempFile writes data to a new file at path (synced when asked) and
// returns its stat as written.
func writeTempFile(path string, data []byte, sync bool) (os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	var fi os.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return fi, err
}

// release gives the lock up without writing (a no-op after commit).
func (l *gitLock) release() {
	if l != nil && l.held {
		os.Remove(l.lock)
		l.held = false
	}
}

// lockRef takes ref's lock and checks that the ref still names old.
func (s *Store) lockRef(ref plumbing.ReferenceName, old plumbing.Hash, nonce, tpl string) (*gitLock, error) {
	l, err := s.takeLock(filepath.Join(s.gitDir, filepath.FromSlash(ref.String())), ref.String(), nonce, tpl)
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
