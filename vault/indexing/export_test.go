package indexing

import "testing"

// WithSmallHeap is withGC for the tests outside the package, with no heap
// big (a small vault's build: BuildGCPercent).
func WithSmallHeap(t *testing.T) {
	withGC(t)
	bigHeap = 1 << 62
}

// GCPercent reads the collector's setting.
func GCPercent() int { return gcPercent() }

// WantPercent fails t unless the collector's setting is want.
func WantPercent(t *testing.T, when string, want int) {
	t.Helper()
	wantPercent(t, when, want)
}
