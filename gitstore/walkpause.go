package gitstore

import "syscall"

// While a read's ask of git runs (ondemand.go), the map's walk stops: its
// git process group gets SIGSTOP, and SIGCONT once no ask runs. Once a
// read has hurried it (walkprogress.go), the walk runs at normal priority
// beside the next asks, and with the build on the other core each ask
// had two thirds of a core: the second and third asks of a fresh
// 100,000-note clone took 0.78-0.98 s for 0.53-0.67 s of CPU
// (docs/benchmarks.md, "Reads while the version map is built"). The
// walk's own work is not lost, only put off: it goes on where it was.
// A git stopped when cairn dies is not left behind: the kernel sends a
// process group it orphans with a stopped member SIGHUP, then SIGCONT.
type walkPause struct {
	pgid     int  // the walk's running git (its process group), 0 when none
	asks     int  // asks running
	stopped  bool // pgid was sent SIGSTOP and not SIGCONT since
	released bool // the build stops: never stopped again
}

// running records the walk's git as started (pid, the leader of its
// process group: inGroup), stopped at once if an ask runs; or, with 0,
// as done with, let go on first if stopped, so that Wait and a kill
// find it running.
func (w *walkProgress) running(pid int) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cont()
	w.pause.pgid = pid
	if pid != 0 && w.pause.asks > 0 && !w.pause.released {
		w.stop()
	}
}

// pauseFor stops the walk's git until resume is called (by each ask:
// the walk goes on once none runs).
func (w *walkProgress) pauseFor() (resume func()) {
	if w == nil {
		return func() {}
	}
	w.mu.Lock()
	w.pause.asks++
	if !w.pause.released {
		w.stop()
	}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		w.pause.asks--
		if w.pause.asks == 0 {
			w.cont()
		}
		w.mu.Unlock()
	}
}

// release lets the walk's git go on for good: the build is stopping (the
// store closes), and the walk must reach its next commit to see it.
func (w *walkProgress) release() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.pause.released = true
	w.cont()
	w.mu.Unlock()
}

// stop sends the walk's git SIGSTOP; the caller holds w.mu.
func (w *walkProgress) stop() {
	if w.pause.pgid != 0 && !w.pause.stopped {
		syscall.Kill(-w.pause.pgid, syscall.SIGSTOP)
		w.pause.stopped = true
	}
}

// cont sends the walk's git SIGCONT if it was stopped; the caller holds
// w.mu.
func (w *walkProgress) cont() {
	if w.pause.stopped {
		syscall.Kill(-w.pause.pgid, syscall.SIGCONT)
		w.pause.stopped = false
	}
}
