package measure

import (
	"os"
	"testing"
	"time"
)

func TestPctIsTheNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		d = append(d, time.Duration(i))
	}
	for p, want := range map[int]time.Duration{50: 50, 99: 99, 100: 100, 1: 1, 0: 1} {
		if got := Pct(d, p); got != want {
			t.Errorf("p%d = %d, want %d", p, got, want)
		}
	}
	if d[0] != 100 {
		t.Error("Pct sorted its argument")
	}
	if Pct(nil, 50) != 0 || Pct([]time.Duration{7}, 99) != 7 {
		t.Error("empty or single")
	}
}

func TestMemOfThisProcess(t *testing.T) {
	self, err := MemOf(0)
	if err != nil {
		t.Fatal(err)
	}
	byPid, err := MemOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self.RSS == 0 || self.HWM < self.RSS/2 || byPid.RSS == 0 {
		t.Fatalf("%+v %+v", self, byPid)
	}
}
