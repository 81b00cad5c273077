package gitstore

import (
	"bytes"
	"os/exec"
	"strconv"
	"syscall"
)

// While a fresh clone's version map is built, a read asks git for one
// path's version (ondemand.go): `git log -1` walks first-parent history
// until a commit changed the path, diffing each commit's tree on the way.
// For a note untouched since the first of 100,000 commits that is 1.0 s
// of CPU on a quiet machine, 1.7-2.7 s beside the index build. A
// commit-graph with changed-path Bloom filters lets git skip the diff of
// every commit the filter says left the path alone: the same ask then
// takes 0.1 s. git writes that file itself (`git gc` and `git
// maintenance` write a commit-graph; the filters are kept by every later
// write once present); a clone made by `git clone` has none. So the first
// ask over a long history has git write one, beside the build, at normal
// priority, as the asks run: 6 s of CPU at 100,000 commits, 0.7 s when
// the filters are there already. Not at the open: beside the first
// search, which scans every note, it slowed the first answer (3.1 s
// against 1.9 s at 100,000 notes, one run each), and a build no read
// waits on needs none.

// graphAfterCommits is the first-parent history from which a build from
// nothing has git write a commit-graph: at 20,000 commits an ask for the
// oldest note costs about 0.25 s without one. A test lowers it.
var graphAfterCommits = 20000

// graphWrite is git writing the commit-graph in the background
// (startGraphWrite).
type graphWrite struct {
	done chan struct{} // closed once git has ended, or was not run
}

// startGraphWrite has git write a commit-graph with changed-path Bloom
// filters for HEAD's history in the background when that history holds
// graphAfterCommits first-parent commits or more and the person has not
// turned commit-graphs off; once per store. Called with s.mu held, by
// the first ask.
//
// Nothing stops the write, not Close, not a Ctrl-C to cairn (git runs in
// a process group of its own): git 2.39 sets up the handler that removes
// its lock file on a signal only after it has created the lock, so a
// signal in between leaves objects/info/commit-graph.lock behind (a test
// stopping it met that twice in 40 runs), and every later write of the
// file, git gc's included, then fails. git ends on its own within
// seconds.
func (s *Store) startGraphWrite() {
	if s.graph != nil || s.dir == "" || gitCommand == "" {
		return
	}
	g := &graphWrite{done: make(chan struct{})}
	s.graph = g
	go func() {
		defer close(g.done)
		if !longHistory(s.dir) || !graphsWanted(s.dir) {
			return
		}
		cmd := exec.Command(gitCommand, "commit-graph", "write", "--reachable", "--changed-paths")
		cmd.Dir = s.dir
		cmd.Env = gitEnv()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Run() // best effort: without the file, asks take the long walk
	}()
}

// longHistory says whether HEAD's first-parent history holds
// graphAfterCommits commits or more: git counts them, reading no more.
func longHistory(dir string) bool {
	out, err := gitOutput(dir, "rev-list", "--first-parent", "--count",
		"--max-count="+strconv.Itoa(graphAfterCommits), "HEAD")
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(out)))
	return err == nil && n >= graphAfterCommits
}

// graphsWanted says whether the person left git gc to write
// commit-graphs (gc.writeCommitGraph, true unless set). With
// core.commitGraph false git itself writes none.
func graphsWanted(dir string) bool {
	// Exit status 1: the key is not set.
	out, err := gitOutput(dir, "config", "--type=bool", "--get", "gc.writeCommitGraph")
	return !(err == nil && string(bytes.TrimSpace(out)) == "false")
}

// gitOutput runs git in dir and returns what it printed.
func gitOutput(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(gitCommand, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	return cmd.Output()
}
