// Package testwait is how cairn's tests wait for an outcome that comes
// from another goroutine or process (a watcher's commit, a sync, a child
// process ending). It asserts no timing: the deadline only turns a hang
// into a failure, and is long because CI runs the race detector on a
// loaded 2-core machine, where a burst of saves once took over 10 s to
// be committed.
package testwait

import (
	"fmt"
	"testing"
	"time"
)

// Deadline bounds a wait that never ends.
const Deadline = 90 * time.Second

// poll is how often the condition is asked again.
const poll = 20 * time.Millisecond

// Until asks cond until it holds, and fails the test, naming what it
// waited for and what each of said prints (a server's log, say), if it
// still does not hold after Deadline.
func Until(t testing.TB, what string, cond func() bool, said ...fmt.Stringer) {
	t.Helper()
	for deadline := time.Now().Add(Deadline); !cond(); time.Sleep(poll) {
		if time.Now().After(deadline) {
			msg := "timed out waiting for " + what
			for _, s := range said {
				msg += "\n" + s.String()
			}
			t.Fatal(msg)
		}
	}
}
