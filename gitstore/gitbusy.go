package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// A person runs git in the vault too: git pull --rebase, a merge, a
// checkout of another branch for a minute. A commit of cairn's landing in
// the middle of one was lost to it: a rebase that read the branch before
// cairn moved it fails at its end ("cannot lock ref"), and its --abort
// moves the branch back past cairn's commit, which then lives only in the
// reflog; a commit made while another branch was checked out went to that
// branch. So cairn commits only when git reports no operation in progress
// (what `git status` looks at) and HEAD is on the vault's branch, checked
// when a commit starts and again with git's index and branch locks held,
// right before the files and the branch move.

// GitBusyError says cairn did not commit because of what git is doing in
// the vault: nothing was written, and the same write may be made again
// once the person has finished.
type GitBusyError struct {
	State string // "rebase", "am", "merge", "cherry-pick", "revert", "bisect", "detached", "branch", "locked"
	Why   string // what git is doing, and what to do
}

func (e *GitBusyError) Error() string { return e.Why + "; nothing was written" }

// gitStates are the files by which git says an operation is in progress,
// in the order git status looks at them, with what ends each.
var gitStates = []struct{ file, state, end string }{
	{"rebase-merge", "rebase", "git rebase --continue, or --abort"},
	{"rebase-apply/applying", "am", "git am --continue, or --abort"},
	{"rebase-apply", "rebase", "git rebase --continue, or --abort"},
	{"MERGE_HEAD", "merge", "commit the merge (git commit), or git merge --abort"},
	{"CHERRY_PICK_HEAD", "cherry-pick", "git cherry-pick --continue, or --abort"},
	{"REVERT_HEAD", "revert", "git revert --continue, or --abort"},
	{"sequencer/todo", "cherry-pick", "git cherry-pick --continue, or --abort (git revert likewise)"},
	{"BISECT_LOG", "bisect", "git bisect reset"},
}

// Busy says whether cairn may commit now: nil, or a GitBusyError naming
// the operation in progress or where HEAD is.
func (s *Store) Busy() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.vaultBranch()
	return err
}

// vaultBranch is the branch cairn commits to, once it has checked that
// git is doing nothing in the vault and that HEAD is on that branch: the
// branch HEAD named when the store opened (or, if it named none then, the
// first it names; it never changes after).
func (s *Store) vaultBranch() (plumbing.ReferenceName, error) {
	for _, st := range gitStates {
		if _, err := os.Lstat(filepath.Join(s.gitDir, filepath.FromSlash(st.file))); err == nil {
			return "", &GitBusyError{State: st.state, Why: fmt.Sprintf("a git %s is in progress in the vault (.git/%s exists): cairn writes again once it is finished (%s)", st.state, st.file, st.end)}
		}
	}
	data, err := os.ReadFile(filepath.Join(s.gitDir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	head := strings.TrimSpace(string(data))
	target, symbolic := strings.CutPrefix(head, "ref: ")
	switch {
	case !symbolic:
		back := "the vault's branch"
		if s.branch != "" {
			back = s.branch.Short()
		}
		return "", &GitBusyError{State: "detached", Why: fmt.Sprintf("HEAD is detached at %s in the vault: cairn writes again once %s is checked out (git switch %s)", short(head), back, back)}
	case s.branch == "":
		s.branch = plumbing.ReferenceName(target)
	case plumbing.ReferenceName(target) != s.branch:
		return "", &GitBusyError{State: "branch", Why: fmt.Sprintf("the vault has branch %s checked out, not %s, the branch cairn writes to: cairn writes again once %s is checked out again (git switch %s), or, to write on %s from now on, restart the server",
			plumbing.ReferenceName(target).Short(), s.branch.Short(), s.branch.Short(), s.branch.Short(), plumbing.ReferenceName(target).Short())}
	}
	return s.branch, nil
}

// noGitMoving is vaultBranch's check, and no person's git command running
// that reads the branch now and moves it later (gitprocs.go).
func (s *Store) noGitMoving() error {
	if _, err := s.vaultBranch(); err != nil {
		return err
	}
	if s.realDir == "" {
		s.realDir = resolved(s.dir)
	}
	if cmd := s.procs.runningGit(s.realDir); cmd != "" {
		return &GitBusyError{State: strings.TrimPrefix(cmd, "git "), Why: fmt.Sprintf("%s is running in the vault: cairn writes again once it has finished", cmd)}
	}
	return nil
}

// unplaceFiles puts back what placeFiles wrote for a commit that will not
// land: each file that still holds the commit's content gets its committed
// content again (or goes, if it was new); a file saved since by someone
// else is left as it is. The commit's objects stay, unreferenced.
func (s *Store) unplaceFiles(pc *pendingCommit) {
	for _, c := range pc.req.Changes {
		if c.OnDisk || (c.Delete && c.Absent) {
			continue
		}
		full := filepath.Join(s.dir, filepath.FromSlash(c.Path))
		if ok, err := s.diskMatches(c.Path, pc.blobs[c.Path]); err != nil || !ok {
			continue
		}
		before := pc.before[c.Path]
		if before.IsZero() {
			os.Remove(full)
			removeEmptyParents(s.dir, filepath.Dir(full))
			continue
		}
		if data, err := s.blobData(before); err == nil {
			WriteFileAtomic(full, data, 0o644)
		}
	}
}

// busyIfLocked turns a git lock held by someone else for a second, met
// before anything was written, into a GitBusyError.
func busyIfLocked(err error) error {
	var le *lockedError
	if errors.As(err, &le) {
		return &GitBusyError{State: "locked", Why: le.Error()}
	}
	return err
}

func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}
