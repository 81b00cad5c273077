package mcpproc

import (
	"os"
	"testing"
)

// MemOf reads this process's own status: resident memory is made of its
// anonymous pages and its files' (the test binary's code at least).
func TestMemOfSplitsResidentMemory(t *testing.T) {
	m, err := MemOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS == 0 || m.HWM < m.RSS || m.Anon == 0 || m.File == 0 || m.Anon+m.File > m.RSS {
		t.Errorf("%+v: want VmRSS = RssAnon + RssFile (+ shared), VmHWM at least VmRSS", m)
	}
	if _, err := MemOf(-1); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
