package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrHeadMoved says the branch moved between reading it and updating it
// (someone committed at the same moment); nothing was changed.
var ErrHeadMoved = errors.New("the branch moved during the commit; try again")

// updateRef moves ref from old to new the way git does: take ref.lock
// exclusively (git's own lock, so the git command line and cairn exclude
// each other), check the current value, write, sync, rename; then append to
// the reflogs of the branch and HEAD so `git reflog` shows cairn's commits.
func (s *Store) updateRef(ref plumbing.ReferenceName, old, new plumbing.Hash, who object.Signature, subject string) error {
	path := filepath.Join(s.gitDir, filepath.FromSlash(ref.String()))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%s is locked by another git process (remove %s if none runs)", ref, lock)
		}
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	cur := plumbing.ZeroHash
	if r, err := s.repo.Storer.Reference(ref); err == nil {
		cur = r.Hash()
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return fmt.Errorf("read %s: %w", ref, err)
	}
	if cur != old {
		return ErrHeadMoved
	}
	if _, err := f.WriteString(new.String() + "\n"); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(lock, path); err != nil {
		return err
	}
	done = true
	line := fmt.Sprintf("%s %s %s <%s> %d %s\tcommit: %s\n", old, new, who.Name, who.Email,
		who.When.Unix(), who.When.Format("-0700"), strings.ReplaceAll(subject, "\n", " "))
	for _, log := range []string{filepath.Join(s.gitDir, "logs", filepath.FromSlash(ref.String())), filepath.Join(s.gitDir, "logs", "HEAD")} {
		appendLine(log, line)
	}
	return nil
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
