package mcpproc

import (
	"os"
	"sort"
	"strings"
	"time"
)

// Pct is the p-th percentile (nearest rank) of d, 0 when d is empty.
func Pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	if i > 0 {
		i--
	}
	return s[i]
}

// LoadAvg is the 1, 5 and 15-minute load averages: the machine may be
// shared, and a benchmark's figures move with its load, so each prints it.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
