package mcpproc

import (
	"os"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench/measure"
)

// MemOf reads this process's own status: resident memory is made of its
// anonymous pages and its files' (the test binary's code at least).
func TestMemOfSplitsResidentMemory(t *testing.T) {
	m, err := measure.MemOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS == 0 || m.HWM < m.RSS || m.Anon == 0 || m.File == 0 || m.Anon+m.File > m.RSS {
		t.Errorf("%+v: want VmRSS = RssAnon + RssFile (+ shared), VmHWM at least VmRSS", m)
	}
	if _, err := measure.MemOf(-1); err == nil {
		t.Error("no error for a process that does not exist")
	}
}

// When times a line by the write that completed it: the second of two
// writes for a text split across them, the later of two occurrences when
// the offset is past the first, none for a text not written.
func TestLogWhenTimesTheWriteThatCompletesText(t *testing.T) {
	var l Log
	var before, after []time.Time // around each write
	for _, s := range []string{"search index: opened\ntook ", "over\n", "took over\n"} {
		before = append(before, time.Now())
		if _, err := l.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		after = append(after, time.Now())
		time.Sleep(2 * time.Millisecond) // the writes' times do not overlap
	}
	wrote := func(k int, at time.Time) bool { return !at.Before(before[k]) && !at.After(after[k]) }

	if at, ok := l.When("opened", 0); !ok || !wrote(0, at) {
		t.Errorf(`When("opened", 0) = %v, %v: want the first write's time`, at, ok)
	}
	if at, ok := l.When("took over", 0); !ok || !wrote(1, at) {
		t.Errorf(`When("took over", 0) = %v, %v: want the second write's time (it completes the text)`, at, ok)
	}
	from := len("search index: opened\ntook over\n") // past the first occurrence
	if at, ok := l.When("took over", from); !ok || !wrote(2, at) {
		t.Errorf(`When("took over", %d) = %v, %v: want the third write's time`, from, at, ok)
	}
	if at, ok := l.When("took over", from+1); ok {
		t.Errorf(`When("took over", %d) = %v: want not found past every occurrence`, from+1, at)
	}
	if at, ok := l.When("rebuilding", 0); ok {
		t.Errorf(`When("rebuilding", 0) = %v: want not found`, at)
	}
	if at, ok := l.When("took over", len(l.String())+1); ok {
		t.Errorf("When past the end = %v: want not found", at)
	}
}
