package gitstore

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"syscall"
	"time"
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
// write once present); a clone made by `git clone` has none. So when a
// version map is built from nothing over a long history, cairn asks git
// to write it once, beside the build, at normal priority (the asks it
// speeds up run at normal priority too): 6 s of CPU at 100,000 commits,
// 0.7 s when the filters are there already.

// graphAfterCommits is the first-parent history from which a build from
// nothing has git write a commit-graph: at 20,000 commits an ask for the
// oldest note costs about 0.25 s without one. A test lowers it.
var graphAfterCommits = 20000

// graphStopGrace is how long Close waits for git to end its write after
// asking it to stop (SIGTERM, on which git removes its lock file) before
// killing it.
const graphStopGrace = 30 * time.Second

// graphWrite is git writing the commit-graph in the background
// (startGraphWrite); Close stops it.
type graphWrite struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once git has ended, or was not run
}

// startGraphWrite has git write a commit-graph with changed-path Bloom
// filters for HEAD's history in the background when that history holds
// graphAfterCommits first-parent commits or more and the person has not
// turned commit-graphs off. Called with s.mu held, by startBuild.
func (s *Store) startGraphWrite() {
	if s.dir == "" || gitCommand == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &graphWrite{cancel: cancel, done: make(chan struct{})}
	s.graph = g
	go func() {
		defer close(g.done)
		if !longHistory(ctx, s.dir) || !graphsWanted(ctx, s.dir) {
			return
		}
		cmd := exec.CommandContext(ctx, gitCommand, "commit-graph", "write", "--reachable", "--changed-paths")
		cmd.Dir = s.dir
		cmd.Env = gitEnv()
		// Stopped by SIGTERM, git removes commit-graph.lock; a lock
		// left behind would make every later write fail, git gc's too.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = graphStopGrace
		cmd.Run() // best effort: without the file, asks take the long walk
	}()
}

// stopGraphWriteLocked stops a commit-graph write still running and
// waits for git to end (Close: the repository may be removed next).
func (s *Store) stopGraphWriteLocked() {
	if s.graph == nil {
		return
	}
	s.graph.cancel()
	<-s.graph.done
	s.graph = nil
}

// longHistory says whether HEAD's first-parent history holds
// graphAfterCommits commits or more: git counts them, reading no more.
func longHistory(ctx context.Context, dir string) bool {
	out, err := gitOutput(ctx, dir, "rev-list", "--first-parent", "--count",
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
func graphsWanted(ctx context.Context, dir string) bool {
	// Exit status 1: the key is not set.
	out, err := gitOutput(ctx, dir, "config", "--type=bool", "--get", "gc.writeCommitGraph")
	return ctx.Err() == nil && !(err == nil && string(bytes.TrimSpace(out)) == "false")
}

// gitOutput runs git in dir and returns what it printed.
func gitOutput(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, gitCommand, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	return cmd.Output()
}
