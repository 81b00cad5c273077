package vault

import (
	"testing"
	"time"
)

// Periodic rescans are paced by their cost: a rescan that took a second
// is not run again 3 s later, but 50 s later; a cheap one every 3 s.
func TestRescansArePacedByTheirCost(t *testing.T) {
	v, _ := sampleVault(t)
	set := func(ago, took time.Duration) {
		v.mu.Lock()
		v.scannedAt, v.scanTook = time.Now().Add(-ago), took
		v.mu.Unlock()
	}
	for _, c := range []struct {
		ago, took time.Duration
		due       bool
	}{
		{4 * time.Second, 10 * time.Millisecond, true},
		{2 * time.Second, 10 * time.Millisecond, false},
		{10 * time.Second, time.Second, false},
		{60 * time.Second, time.Second, true},
	} {
		set(c.ago, c.took)
		if got := v.scanDue(3 * time.Second); got != c.due {
			t.Errorf("last rescan %s ago, took %s: due %v, want %v", c.ago, c.took, got, c.due)
		}
	}
	set(time.Hour, time.Second)
	if err := v.rescanIfStale(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	took, at := v.scanTook, v.scannedAt
	v.mu.Unlock()
	if time.Since(at) > time.Minute || took >= time.Second {
		t.Errorf("a rescan must record when it ran and what it cost: %s ago, took %s", time.Since(at), took)
	}
}
