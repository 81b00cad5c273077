package gitstore

import (
	"os/exec"
	"syscall"
)

// A write of cairn's stores its objects loose: the note's blob, a new tree
// for each folder on its way and the commit, about 17 KB a write at
// 100,000 notes in folders of 1,000 (the folder's new tree most of it),
// where git packs a commit in about 1 KB. git itself runs `git gc --auto`
// after a person's commit and packs them once they pass its threshold
// (gc.auto, 6,700 loose objects); cairn's writes never did: 34 writes on
// a served 100,000-note clone left 146 files, 584 KB, in .git/objects, so
// 1,000 writes about 17 MB in 4,300 files, a year of them gigabytes. So every gcEvery commits a store has git run
// `git gc --auto`, as git would after as many commits of a person's: it
// does nothing under the threshold, packs the loose objects over it, and
// honours the person's settings (gc.auto 0 turns it off; gc.autoDetach
// false keeps it in the foreground of its process). The store reads what
// it packed (repacked.go).

// gcEvery is how many commits a store makes between two `git gc --auto`
// (a variable for tests).
var gcEvery int64 = 200

// afterAutoGC, when a test sets it, is called when a `git gc --auto` the
// store started has ended.
var afterAutoGC func()

// noteCommit counts a commit this store made, and every gcEvery of them
// has git run `git gc --auto` in the background (one at a time).
func (s *Store) noteCommit() {
	if s.commits.Add(1)%gcEvery != 0 || s.dir == "" || gitCommand == "" || !s.gcRunning.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.gcRunning.Store(false)
		cmd := exec.Command(gitCommand, "gc", "--auto", "--quiet")
		cmd.Dir = s.dir
		cmd.Env = gitEnv()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C to cairn is not git's
		cmd.Run()                                             // best effort: the next one tries again
		if afterAutoGC != nil {
			afterAutoGC()
		}
	}()
}
