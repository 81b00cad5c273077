package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// writesResult is what a burst of writes made the process hold: servebench
// sees a 100,000-note server grow to 1.2–1.6 GiB under 1,000 writes;
// this says by whom.
type writesResult struct {
	N       int     `json:"n"`
	Seconds float64 `json:"seconds"`
	// VmRSS and VmHWM after the writes (VmHWM reset before them, so it is
	// the burst's own peak), before any forced GC.
	RSS uint64 `json:"rss"`
	HWM uint64 `json:"hwm"`
	// Sampled during the burst, as for the build.
	PeakHeap   uint64  `json:"peakHeap"`
	PeakOwners []owned `json:"peakOwners"`
	GCs        uint64  `json:"gcs"` // collections during the burst
	// Each call's latency in milliseconds, create_note's and edit_note's
	// (the read before an edit not counted): p50 and p99.
	Create [2]float64 `json:"create"`
	Edit   [2]float64 `json:"edit"`
}

// writeBurst makes k writes as servebench does, create_note and
// edit_note (an append to one of the notes generated, notes of them) in
// turn, through the vault's API, and measures the process meanwhile.
// With profile set it writes the heap profile at the burst's peak there
// and the one at its end beside it (-writes-end),
// with cpuProfile set the burst's CPU profile.
func writeBurst(v *vault.Vault, k, notes int, profile, cpuProfile string) (*writesResult, error) {
	// Writing 5 resets VmHWM (Linux ≥ 4.0): the burst's peak, not the
	// build's.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return nil, fmt.Errorf("reset VmHWM: %w", err)
	}
	gc0 := readMetrics()["/gc/cycles/total:gc-cycles"]
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	sm := startSampler(profile != "")
	var creates, edits []float64
	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "agent", Tool: "membench"}
	t0 := time.Now()
	for i := range k {
		if i%2 == 0 {
			// Titles of this process's own: the warm run writes after the cold.
			body := fmt.Sprintf("# Membench write %d of process %d\n\nA note written during the burst, number %d, about memory and the collector.", i, os.Getpid(), i)
			t := time.Now()
			if _, err := v.CreateNote(caller, vault.CreateArgs{Project: "space", Path: fmt.Sprintf("space/w%03d", (i/2)%100), Body: body}); err != nil {
				return nil, fmt.Errorf("write %d: create: %w", i, err)
			}
			creates = append(creates, ms(time.Since(t)))
			continue
		}
		ref := corpus.NotePath((i / 2 * 7919) % notes)
		n, err := v.GetNote(caller, ref, false, "")
		if err != nil {
			return nil, fmt.Errorf("write %d: read %s: %w", i, ref, err)
		}
		line := fmt.Sprintf("Edit %d, appended during the burst.", i)
		t := time.Now()
		if _, err := v.EditNote(caller, vault.EditArgs{Ref: ref, VersionToken: n.VersionToken, Operation: "append", Content: &line}); err != nil {
			return nil, fmt.Errorf("write %d: edit %s: %w", i, ref, err)
		}
		edits = append(edits, ms(time.Since(t)))
	}
	r := &writesResult{N: k, Seconds: time.Since(t0).Seconds(), Create: p50p99(creates), Edit: p50p99(edits)}
	sm.end()
	r.PeakHeap, r.PeakOwners = sm.heap, sm.owners
	r.GCs = readMetrics()["/gc/cycles/total:gc-cycles"] - gc0
	st, err := readStatus()
	if err != nil {
		return nil, err
	}
	r.RSS, r.HWM = st["VmRSS"], st["VmHWM"]
	if profile != "" && sm.peakProfile != nil {
		if err := os.WriteFile(profile, sm.peakProfile, 0o644); err != nil {
			return nil, err
		}
	}
	if profile != "" {
		// What the burst allocated: go tool pprof -sample_index=alloc_space
		// -base <the steady profile> <this one>.
		if err := writeHeapProfile(strings.Replace(profile, "-writes-peak", "-writes-end", 1)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// p50p99 is the median and 99th percentile of xs (nearest rank), zeros
// for none.
func p50p99(xs []float64) [2]float64 {
	if len(xs) == 0 {
		return [2]float64{}
	}
	slices.Sort(xs)
	at := func(q float64) float64 { return xs[min(len(xs)-1, int(q*float64(len(xs))))] }
	return [2]float64{at(0.50), at(0.99)}
}
