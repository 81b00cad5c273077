// Package measure is what every benchmark measures with, so that a figure
// means the same thing wherever it is published: one definition of a
// percentile, one reading of a process's memory, the machine's load.
package measure

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Pct is the p-th percentile of d by nearest rank (the smallest value with
// at least p % of the samples at or below it), 0 when d is empty. d is not
// changed.
func Pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	if i > 0 {
		i--
	}
	return s[min(i, len(s)-1)]
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

// Status is a process's /proc/PID/status lines measured in kB, in bytes
// (VmRSS, VmHWM, RssAnon, RssFile, RssShmem, VmSize…); pid 0 is this
// process.
func Status(pid int) (map[string]uint64, error) {
	file := "/proc/self/status"
	if pid != 0 {
		file = fmt.Sprintf("/proc/%d/status", pid)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		v = strings.TrimSpace(v)
		if !ok || !strings.HasSuffix(v, " kB") {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(v, " kB"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", file, k, err)
		}
		out[k] = n << 10
	}
	return out, sc.Err()
}

// Mem is a process's resident memory now (VmRSS) and at its peak (VmHWM),
// and what VmRSS is made of: anonymous pages (RssAnon: the Go heap, the
// runtime) and pages of files (RssFile: the binary, Bleve's mmapped
// segments, which the kernel may drop), in bytes.
type Mem struct{ RSS, HWM, Anon, File uint64 }

// MemOf reads a process's Mem (pid 0: this process).
func MemOf(pid int) (Mem, error) {
	s, err := Status(pid)
	if err != nil {
		return Mem{}, fmt.Errorf("memory of process %d: %w", pid, err)
	}
	m := Mem{RSS: s["VmRSS"], HWM: s["VmHWM"], Anon: s["RssAnon"], File: s["RssFile"]}
	if m.RSS == 0 {
		return m, fmt.Errorf("memory of process %d: no VmRSS in its status", pid)
	}
	return m, nil
}
