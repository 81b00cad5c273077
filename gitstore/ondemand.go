package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// A fresh clone's version map is built in the background (startBuild):
// 5 s of `git log` at 100,000 commits on a quiet machine (walkDeltaCache),
// 15-20 s beside a fresh clone's index build, which it yields to (nice
// 10). A read needs one path's version only (get_note's versionToken), so
// while the build runs it takes what the build's walk has read so far
// (walkprogress.go), or asks git for that path alone: `git log -1`
// limited to the path, the same first-parent walk stopped at the first
// commit that changed it, walking on from where the build's walk is (from
// the head, 1.0 s at 100,000 commits on a quiet machine for a note never
// edited since the first commit, 0.6 s with the commit-graph a build from
// nothing has git write, commitgraph.go; 1.2-2.1 s beside a fresh clone's
// index build; far less for one edited lately). A write
// asks the same way for the paths it changes, then commits on the build's
// tip (buildwrites.go).

// onDemandSlots bounds the `git log` processes run for reads at once, so
// a burst of reads does not take every core from the build they bypass;
// a read beyond it waits for a slot or for the build, whichever ends
// first.
const onDemandSlots = 2

// buildingVersionLocked is path's version in HEAD, and the blob HEAD
// holds there (zero: path is not in HEAD, and has no version), while a
// background build of the map is under way and HEAD is the build's head
// or a commit this store made on it since (the build's tip): from the
// overlay those commits left (buildwrites.go), else asked of git alone at
// the build's head, which the commits since left the path as it was.
// known says whether it answered; else the caller waits for the map as
// before (no build, no git command line, HEAD moved, git failed). It lets
// go of s.mu while git runs, as awaitBuildLocked does while it waits.
func (s *Store) buildingVersionLocked(path string) (version, blob plumbing.Hash, known bool) {
	b := s.build
	if b == nil || s.dir == "" || gitCommand == "" || strings.ContainsAny(path, "\n\x00") {
		return plumbing.ZeroHash, plumbing.ZeroHash, false
	}
	if b.ended() {
		return plumbing.ZeroHash, plumbing.ZeroHash, false // the map is there to take
	}
	head, err := s.headHash()
	if err != nil || head != b.tip {
		return plumbing.ZeroHash, plumbing.ZeroHash, false
	}
	version, blob, ask, ok := s.tipVersionLocked(b, path)
	if !ok {
		return plumbing.ZeroHash, plumbing.ZeroHash, false
	}
	if !ask {
		return version, blob, true
	}
	cache := askDeltaCache(s.wayTreesBytesLocked(b.head, path))
	s.asking.Add(1)
	s.mu.Unlock()
	h, err := b.askGit(s.dir, path, cache)
	s.mu.Lock()
	s.asking.Add(-1)
	if err != nil || s.build != b {
		return plumbing.ZeroHash, plumbing.ZeroHash, false // failed, or the map came meanwhile
	}
	b.asked[path] = askedVersion{h, blob}
	// A commit may have moved HEAD meanwhile: answer as of now.
	return s.buildingVersionLocked(path)
}

// AskingGit says whether a read or a write is waiting for git to give
// it a path's version while the version map builds: on 2 cores, beside
// a fresh clone's search index build, that `git log` made a read of an
// old note take 3-8 s, where it takes 1-1.7 s alone. The index build lets
// it go first (indexing.Config.Yield).
func (s *Store) AskingGit() bool { return s.asking.Load() > 0 }

// askedVersion is what a read asked git during a build, kept for the
// next read of the same path.
type askedVersion struct{ version, blob plumbing.Hash }

// askGit is path's version at the build's head: found by the map's walk
// already, or else `git log -1` for path from the last commit the walk
// has read whole (the head before it has read one), with the walk
// gitLogVersions makes: the first first-parent commit whose tree
// differs from its first parent's at path (the root commit, or a shallow
// clone's first, holds every file it has). Limited to a path, git shows a
// merge when it differs from its first parent there, as the whole walk's
// --diff-merges=first-parent lists it; only the hash is printed. git
// gets a delta base cache of cache bytes (askcache.go), waits for a slot,
// and is given up (killed) when the build ends first.
func (b *versionBuild) askGit(dir, path string, cache int64) (plumbing.Hash, error) {
	if v, found, _ := b.progress.walked(path); found {
		return v, nil
	}
	select {
	case b.slots <- struct{}{}:
		defer func() { <-b.slots }()
	case <-b.done:
		return plumbing.ZeroHash, errStopped
	}
	if askHold != nil {
		askHold()
	}
	v, found, from := b.progress.walked(path) // the walk went on meanwhile
	if found {
		return v, nil
	}
	if from.IsZero() {
		from = b.head
	}
	// Stopped once the map is there (the caller takes it instead), or the
	// store closes (Close stops the build and waits for it).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-b.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	cmd := exec.CommandContext(ctx, gitCommand, "-c", "log.showSignature=false", "-c", "log.showRoot=true",
		"-c", "core.deltaBaseCacheLimit="+strconv.FormatInt(cache, 10), "--literal-pathspecs", "log", "-1", "--first-parent", "--no-patch",
		"--no-renames", "--no-relative", "--format=%H", from.String(), "--", path)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	inGroup(cmd)
	restore, resume := leaveACore(), b.progress.pauseFor()
	out, err := cmd.Output()
	resume()
	restore()
	// A person waits for what the map's walk would tell: stopped while
	// this ask ran (walkpause.go), it now goes on at normal priority.
	b.progress.hurry.Store(true)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git log %s: %w", path, err)
	}
	line := string(bytes.TrimSpace(out))
	if !plumbing.IsHash(line) {
		return plumbing.ZeroHash, fmt.Errorf("git log %s: no commit listed", path)
	}
	return plumbing.NewHash(line), nil
}

// askHold, when set (tests), is called by each ask for a path's version
// before git runs, with the ask counted by AskingGit.
var askHold func()

// HoldAsks is for tests of other packages only (an index build letting a
// read's ask go first): until restore is called, every ask of git for
// one path's version during a version map's build calls hold first.
func HoldAsks(hold func()) (restore func()) {
	askHold = hold
	return func() { askHold = nil }
}
