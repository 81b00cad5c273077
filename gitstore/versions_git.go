package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// gitCommand is the git command line the version map is built with
// (a test empties it to exercise the go-git walk).
var gitCommand = "git"

// backgroundNice is the niceness of a background build's git process.
const backgroundNice = 10

// walkDeltaCache is the delta base cache git gets for the version map's
// walk of the whole history (core.deltaBaseCacheLimit, 96 MiB by
// default). The walk diffs every commit's trees with its parent's, and a
// pack stores most of those trees as deltas on chains up to 50 deep:
// once the bases it keeps no longer fit, git inflates the same ones again
// for each commit. On the generated 100,000-note vault (100 folders of
// 1,000 notes, a commit per note) the walk took 10.6 s of CPU with the
// default and 5.1 s with 192 MiB or more; git's memory is what the cache
// holds (docs/benchmarks.md, "The version map's walk"). The process lasts
// the walk only, at a lower priority; a person's own larger setting is
// kept.
const walkDeltaCache = 256 << 20

// errNoGitLog says the git command line could not list the history here
// (not installed, older than 2.31, or a path its output cannot carry):
// buildVersions then walks with go-git.
var errNoGitLog = errors.New("git log unavailable")

// gitVersions builds the map of head with the git command line in dir:
// head's files as `git ls-tree -r` lists them (submodules left out), then
// gitLogVersions.
func gitVersions(dir string, head plumbing.Hash, stop *atomic.Bool, progress *walkProgress) (*versionMap, error) {
	out, err := gitOutput(dir, "ls-tree", "-r", "-z", "--full-tree", head.String())
	if err != nil {
		return nil, fmt.Errorf("%w: ls-tree: %v", errNoGitLog, err)
	}
	var blobs [][]byte
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> <type> <hash>\t<path>"
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		if f := bytes.Fields(meta); len(f) == 3 && string(f[1]) == "blob" {
			blobs = append(blobs, path)
		}
	}
	// Each path is its own key: the map's keys share one string.
	unresolved := make(map[string]string, len(blobs))
	for _, p := range sharedKeys(blobs) {
		unresolved[p] = p
	}
	vm := &versionMap{head: head, paths: make(map[string]plumbing.Hash, len(unresolved))}
	return vm, gitLogVersions(dir, head, unresolved, vm.paths, stop, progress)
}

// gitLogVersions resolves the files of unresolved as walkVersions does,
// from `git log --first-parent`'s list of the paths each commit changed
// (a merge compared with its first parent, no rename detection), newest
// first: the first commit naming a path is its version. It is the same
// walk done by git itself, which reads a pack about fifteen times faster
// than go-git does (go-git reopens the pack and hashes each delta-resolved
// tree it caches): at 50,000 commits of 50,000 notes the whole build,
// ls-tree included, takes ~6 s of CPU instead of ~48 s. It stops git as soon as every file has its commit. A file
// still unresolved when the list ends is as old as the oldest commit
// listed (the root commit, or a shallow clone's first), which holds it.
// progress, when not nil, is kept up with what has been read.
func gitLogVersions(dir string, head plumbing.Hash, unresolved map[string]string, out map[string]plumbing.Hash, stop *atomic.Bool, progress *walkProgress) error {
	for p := range unresolved {
		if strings.ContainsAny(p, "\n\x01") {
			return errNoGitLog // the output below could not tell it from a commit line
		}
	}
	// A background build (startBuild) yields to the open it runs beside
	// (the catalog scan reads every note on every core) and to a fresh
	// clone's index build: at normal priority a served fresh clone's first
	// answer came 0.4-0.5 s later at 100,000 notes and its index 0.4 s
	// later at 10,000 (docs/benchmarks.md, "The version map's walk"). Once
	// a read asks git for a path's version meanwhile (ondemand.go), a
	// person waits for what the walk would tell: it goes on at normal
	// priority from the commit whose paths it was about to read, in a new
	// git process, as a process's priority can be lowered but not raised
	// again.
	from, niced, cache := head, stop != nil, logDeltaCache(dir)
	for {
		err := gitLogRun(gitLogCommand(dir, from, cache), niced, unresolved, out, stop, progress)
		if !errors.Is(err, errHurry) {
			return err
		}
		from, niced = progress.resume, false
	}
}

// gitLogRun runs cmd, one git process of gitLogVersions' walk, at nice
// backgroundNice when niced.
func gitLogRun(cmd *exec.Cmd, niced bool, unresolved map[string]string, out map[string]plumbing.Hash, stop *atomic.Bool, progress *walkProgress) error {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("%w: %v", errNoGitLog, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %v", errNoGitLog, err)
	}
	if niced {
		syscall.Setpriority(syscall.PRIO_PGRP, cmd.Process.Pid, backgroundNice)
	}
	if progress != nil {
		progress.niced = niced
	}
	progress.running(cmd.Process.Pid)
	eof, perr := readGitLog(pipe, unresolved, out, stop, progress)
	progress.running(0)
	if !eof {
		killGroup(cmd) // every file has its commit (or the build stopped, or hurried): the rest is not needed
	}
	werr := cmd.Wait()
	switch {
	case perr != nil:
		return perr
	case eof && werr != nil:
		return fmt.Errorf("%w: %v: %s", errNoGitLog, werr, strings.TrimSpace(stderr.String()))
	case len(unresolved) > 0:
		return fmt.Errorf("%w: it listed no commit", errNoGitLog)
	}
	return nil
}

// gitLogCommand is the walk gitLogVersions reads: the paths each
// first-parent commit from head changed, newest first (readGitLog), with
// a delta base cache of cache bytes (logDeltaCache).
func gitLogCommand(dir string, head plumbing.Hash, cache int64) *exec.Cmd {
	cmd := exec.Command(gitCommand, "-c", "log.showSignature=false", "-c", "log.showRoot=true",
		"-c", "core.deltaBaseCacheLimit="+strconv.FormatInt(cache, 10),
		"log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--no-relative",
		"--name-only", "-z", "--format=%x01%H", head.String(), "--")
	cmd.Dir = dir
	cmd.Env = gitEnv()
	inGroup(cmd)
	return cmd
}

// A git process killed before its end (the walk above once every file
// has its commit, the store closes or a read hurries it; a read's ask
// once the map is there) is killed with its process group. Killed alone,
// git closes its pipes at once; but a git run through a wrapper that does
// not exec it (a version manager's shim, a script logging its calls)
// outlived the wrapper killed in its stead and held them, blocked writing
// to a pipe Wait would close only once they were closed: Close waited
// forever. And Wait waits at most gitWaitDelay for the pipes of a process
// that escaped the group (a wrapper starting a session of its own), then
// closes them itself: git, its next write failing, ends.
const gitWaitDelay = 2 * time.Second

// inGroup runs cmd in a process group of its own, which killGroup (and a
// cancelled context, when cmd was made by exec.CommandContext) kills
// whole.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return killGroup(cmd) }
	}
	cmd.WaitDelay = gitWaitDelay
}

// killGroup kills cmd's process group (inGroup).
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// readGitLog reads `git log -z --name-only --format=%x01%H`: each commit
// is \x01 and its hash, then the paths it changed, each ended by a NUL
// (the first after a newline). It says whether it read to the end: then
// the files still unresolved get the last commit read. unresolved maps
// each path to itself: out takes its key, not a copy of git's output.
// progress, when not nil, guards out and learns each commit read whole.
func readGitLog(r io.Reader, unresolved map[string]string, out map[string]plumbing.Hash, stop *atomic.Bool, progress *walkProgress) (eof bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	progress.start(out)
	var cur plumbing.Hash
	for len(unresolved) > 0 {
		tok, err := br.ReadSlice(0)
		if err == io.EOF && len(tok) == 0 {
			eof = true
			break
		}
		if err != nil {
			return false, fmt.Errorf("%w: reading its output: %v", errNoGitLog, err)
		}
		tok = bytes.TrimPrefix(tok[:len(tok)-1], []byte{'\n'})
		if len(tok) == 41 && tok[0] == 1 && plumbing.IsHash(string(tok[1:])) {
			if stop != nil && stop.Load() {
				return false, errStopped
			}
			next := plumbing.NewHash(string(tok[1:]))
			if !cur.IsZero() {
				progress.read(cur)
				if progress.hurried() {
					progress.resume = next // whose paths are still to read
					return false, errHurry
				}
			}
			cur = next
			continue
		}
		p, ok := unresolved[string(tok)]
		if cur.IsZero() || !ok {
			continue
		}
		delete(unresolved, p)
		progress.found(p, cur, out)
	}
	if eof && !cur.IsZero() {
		for p := range unresolved {
			progress.found(p, cur, out)
			delete(unresolved, p)
		}
	}
	return eof, nil
}

// logDeltaCache is the delta base cache for the version map's walk in
// dir: walkDeltaCache, or the person's core.deltaBaseCacheLimit when
// larger.
func logDeltaCache(dir string) int64 {
	out, err := gitOutput(dir, "config", "--type=int", "--get", "core.deltaBaseCacheLimit")
	if err != nil {
		return walkDeltaCache // not set (exit status 1), or unreadable
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(out)), 10, 64)
	if err != nil || n < walkDeltaCache {
		return walkDeltaCache
	}
	return n
}

// gitOutput runs git in dir and returns what it printed.
func gitOutput(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(gitCommand, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	return cmd.Output()
}

// gitEnv is this process's environment without GIT_ variables (GIT_DIR,
// GIT_INDEX_FILE...), which would point the command elsewhere than dir.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return env
}
