package vault

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
)

// MaxSharedFileBytes bounds a file other than a note that cairn commits as
// a person's to share it (CommitOtherFiles): git hosts refuse bigger files
// (GitHub at 100 MB, with a warning from 50 MB), and one refused file
// would make every push of the vault fail.
const MaxSharedFileBytes = 50 << 20

// OtherFiles is what CommitOtherFiles did with the files it was given.
type OtherFiles struct {
	Committed []string // in one commit, as the person's
	Settling  []string // saved less than the quiet period ago: left for later
	Skipped   []string // "path: why", never committed (too large, a link, unreadable, this machine's)
}

// CommitOtherFiles commits, as the person's, the files other than notes
// among paths whose content on disk differs from HEAD: changed, added or
// deleted attachments, Obsidian's settings, cairn's settings edited by
// hand. The watcher commits notes only; a sync commits these so that they
// travel too, and so that one changed both here and by a teammate merges
// (keeping both) instead of blocking the sync. Notes, ignored files that
// git does not track and this machine's own files (cache, secrets, local
// settings: never shared, even when a .gitignore forgot them) are passed
// over; a file saved less than the quiet period ago is left for the next
// time.
func (v *Vault) CommitOtherFiles(paths []string) (OtherFiles, error) {
	var res OtherFiles
	ign := v.ignoreMatcher()
	var changes []gitstore.Change
	for _, p := range paths {
		if isNotePath(p) || (ignored(ign, p, false) && !v.tracked(p)) {
			// An ignored file that is tracked still is git's to share
			// (ignoring never untracks): Obsidian's workspace.json a
			// repository committed before cairn ignored it. Left out, its
			// change would block every sync that brings another.
			continue
		}
		if machineOnly(p) {
			res.Skipped = append(res.Skipped, p+": this machine's own (never shared)")
			continue
		}
		dirty, err := v.store.Dirty(p)
		if err != nil || !dirty {
			continue
		}
		ch, why, err := v.otherFileChange(p)
		switch {
		case err != nil:
			return res, err
		case why == "settling":
			res.Settling = append(res.Settling, p)
		case why != "":
			res.Skipped = append(res.Skipped, p+": "+why)
		case ch != nil:
			changes = append(changes, *ch)
			res.Committed = append(res.Committed, p)
		}
	}
	if len(changes) == 0 {
		return res, nil
	}
	msg := "Edit by hand: " + changes[0].Path
	if len(changes) > 1 {
		msg = fmt.Sprintf("Edit by hand: %d files", len(changes))
	}
	human := access.Caller{Principal: v.Owner(), Actor: "human", Tool: "editor"}
	if _, err := v.commit(human, msg, "", changes); err != nil && !errors.Is(err, gitstore.ErrNothingToCommit) {
		return OtherFiles{Settling: res.Settling, Skipped: res.Skipped}, fmt.Errorf("commit files changed by hand: %w", err)
	}
	return res, nil
}

// otherFileChange reads one changed file for CommitOtherFiles: the change
// to commit, or why not ("settling" while it is still being saved).
func (v *Vault) otherFileChange(p string) (*gitstore.Change, string, error) {
	fi, err := os.Lstat(v.abs(p))
	switch {
	case gitstore.Missing(err):
		if _, tracked, _ := v.store.Version(p); tracked {
			return &gitstore.Change{Path: p, Delete: true, Absent: true}, "", nil
		}
		return nil, "", nil
	case unshareableName(p) != "":
		return nil, unshareableName(p), nil
	case err != nil:
		return nil, fmt.Sprintf("unreadable (%v)", err), nil
	case !fi.Mode().IsRegular():
		return nil, "not a regular file (a symbolic link?)", nil
	case fi.Size() > MaxSharedFileBytes:
		return nil, fmt.Sprintf("%d MiB, over the %d MiB git hosts accept", fi.Size()>>20, MaxSharedFileBytes>>20), nil
	}
	if age := time.Since(fi.ModTime()); age < v.quiet && age > -time.Minute {
		return nil, "settling", nil
	}
	data, err := readFileNoFollow(v.abs(p))
	if err != nil {
		return nil, fmt.Sprintf("unreadable (%v)", err), nil
	}
	return &gitstore.Change{Path: p, Content: data, OnDisk: true}, "", nil
}

// MachineOnlyPaths are the files and folders that belong to one machine:
// its cache, its secrets and its own settings. cairn never commits them,
// and a sync never takes them from the remote (someone's `git add -f`).
func MachineOnlyPaths() []string {
	out := make([]string, len(gitignoreLines))
	for i, own := range gitignoreLines {
		out[i] = strings.TrimSuffix(own, "/")
	}
	return out
}

// tracked says whether HEAD holds p.
func (v *Vault) tracked(p string) bool {
	_, committed, err := v.store.Version(p)
	return err == nil && committed
}

// unshareableName says why a file made by hand is never committed for its
// name ("" when it may be): a name git refuses, or one the sync of every
// other member refuses (gitstore.VerifyPath: a backslash, a control
// character), which would block the team's syncs. Doctor lists them.
func unshareableName(p string) string {
	var pe *gitstore.PathError
	if err := gitstore.VerifyPath(p); errors.As(err, &pe) {
		return "a name cairn never shares: it " + pe.Why
	}
	return ""
}

// machineOnlyDisguise says why a sync may not bring in p ("" when it
// may): one of this machine's own paths under another spelling that a
// member's file system reads as that path (".CAIRN/local.yaml" on macOS,
// ".cairn./local.yaml" on Windows). The exact path, someone's `git add -f`
// of their own file, is left out instead (teamsync's keepOut); a disguise
// is no mistake, and the commit is refused whole (gitstore.Options.Protected).
func machineOnlyDisguise(p string) string {
	if machineOnly(p) {
		return ""
	}
	if f := gitstore.FoldPath(p); machineOnly(f) {
		return "is another spelling of " + f + ", which belongs to each machine (a file system that ignores case, trailing dots or invisible characters reads it as that)"
	}
	return ""
}

// machineOnly reports the files that belong to this machine alone.
func machineOnly(p string) bool {
	for _, own := range MachineOnlyPaths() {
		if p == own || strings.HasPrefix(p, own+"/") {
			return true
		}
	}
	return false
}
