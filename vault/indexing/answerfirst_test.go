package indexing

import (
	"sync/atomic"
	"testing"
	"time"
)

// A build waits for a scanning search while its share of waits allows:
// at most AnswerFirst and a quarter of its time so far, in all.
func TestABuildWaitsForSearchesWithinItsShare(t *testing.T) {
	bound := AnswerFirst
	AnswerFirst = time.Hour
	t.Cleanup(func() { AnswerFirst, TestHooks.Yielding = bound, nil })
	k := &Keeper{}
	k.answering.Add(1)
	yielded := 0
	TestHooks.Yielding = func() {
		yielded++
		go func() { time.Sleep(10 * time.Millisecond); k.answering.Add(-1) }()
	}

	// Within its share: it waits until the search is done, and counts it.
	b := &firstBuild{began: time.Now()}
	k.letAnswersGo(b)
	if yielded != 1 || k.answering.Load() != 0 || b.waited <= 0 {
		t.Fatalf("waited %d times (%s), %d searches still scanning: want one wait, until the search was done", yielded, b.waited, k.answering.Load())
	}

	// Its share spent (two hours in, it may have waited an hour and a
	// half; it waited more): it goes on at once.
	k.answering.Add(1)
	spent := &firstBuild{began: time.Now().Add(-2 * time.Hour), waited: time.Hour + 31*time.Minute}
	k.letAnswersGo(spent)
	if yielded != 1 || spent.waited != time.Hour+31*time.Minute {
		t.Errorf("waited again (%d waits, %s in all) with its share spent", yielded, spent.waited)
	}

	// No search scanning: no wait.
	k.answering.Add(-1)
	k.letAnswersGo(b)
	if yielded != 1 {
		t.Errorf("waited with no search scanning")
	}
}

// A build waits the same way while Config.Yield says a call waits for
// work outside the index (a note's version asked of git), and not once it
// says none does.
func TestABuildWaitsWhileYieldSaysACallWaits(t *testing.T) {
	bound := AnswerFirst
	AnswerFirst = time.Hour
	t.Cleanup(func() { AnswerFirst, TestHooks.Yielding = bound, nil })
	var asking atomic.Bool
	asking.Store(true)
	k := &Keeper{cfg: Config{Yield: asking.Load}}
	yielded := 0
	TestHooks.Yielding = func() {
		yielded++
		go func() { time.Sleep(10 * time.Millisecond); asking.Store(false) }()
	}
	b := &firstBuild{began: time.Now()}
	k.letAnswersGo(b)
	if yielded != 1 || asking.Load() || b.waited <= 0 {
		t.Fatalf("waited %d times (%s), the call still waiting: %v; want one wait, until it was done", yielded, b.waited, asking.Load())
	}
	k.letAnswersGo(b)
	if yielded != 1 {
		t.Errorf("waited with no call waiting")
	}
}
