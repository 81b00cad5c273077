package gitstore

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// While a fresh clone's version map is built, a read asks git for one
// path's version (ondemand.go): `git log -1` walks first-parent history
// until a commit changed the path. Over 100,000 commits half of that walk
// is parsing each commit (1.04 s of CPU for the oldest note on a quiet
// machine, `git rev-list` alone 0.44 s). A plain commit-graph (the
// commits' parents and trees in one file, no changed-path filters) spares
// that: the ask then takes 0.60 s, the map's own walk 0.2 s less, for
// 0.63 s of CPU once. So a build from nothing over a long history has
// git write one, in the background, when the repository has none (git gc
// and git maintenance write one too; a clone made by `git clone` has
// none). Filters were tried and dropped: they cost more than the map
// (docs/benchmarks.md, "The version map's walk").
//
// The write runs at normal priority, unlike the map's walk: at nice 10,
// beside a fresh 100,000-note clone's open and index build, it took
// 2.2-3.1 s, and the first read, 2-4 s in, asked git without it (1.5-2.1
// s with the core an ask gets, cores.go); at normal priority it took
// 0.8-1.5 s, and that read 0.87-1.12 s in thirteen runs of fourteen. The
// first answer came about 0.2 s later (docs/benchmarks.md, "Reads while
// the version map is built").
//
// Nothing stops the write, not Close, not a Ctrl-C to cairn (git runs in
// a process group of its own): git sets up the handler that removes its
// lock file on a signal only after it has created the lock, so a signal in
// between would leave objects/info/commit-graph.lock behind, and every
// later write of the file, git gc's included, would then fail. git ends
// on its own within a second or two.

// graphAfterCommits is the first-parent history from which a build from
// nothing has git write a commit-graph. A test lowers it.
var graphAfterCommits = 20000

// startGraphWrite has git write a plain commit-graph for dir's history in
// the background, when it holds graphAfterCommits first-parent commits or
// more, has no commit-graph yet and the person has not turned them off.
func startGraphWrite(dir, gitDir string) (done <-chan struct{}) {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		if dir == "" || gitCommand == "" || hasCommitGraph(gitDir) || !longHistory(dir) || !graphsWanted(dir) {
			return
		}
		cmd := exec.Command(gitCommand, "commit-graph", "write", "--reachable")
		cmd.Dir = dir
		cmd.Env = gitEnv()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if cmd.Start() != nil {
			return
		}
		cmd.Wait() // best effort: without the file, asks parse every commit
	}()
	return ch
}

// hasCommitGraph says whether the repository has a commit-graph, whole or
// split.
func hasCommitGraph(gitDir string) bool {
	for _, p := range []string{"objects/info/commit-graph", "objects/info/commit-graphs"} {
		if _, err := os.Stat(filepath.Join(gitDir, p)); err == nil {
			return true
		}
	}
	return false
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
