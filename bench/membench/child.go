package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/host"
	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
)

type childOptions struct {
	settle      time.Duration
	heapProfile string // a file, or "" for none
	cpuProfile  string // a file, or "" for none
	noWatch     bool
	writes      int // writes after the measurement (writeBurst)
	generated   int // notes generated (corpus.NotePath), the targets of its edits
}

// result is one hosting process's measurement (bytes, seconds since the
// process began hosting).
type result struct {
	Start string `json:"start"` // cold or warm (set by the parent)
	Notes int    `json:"notes"`

	Hosting float64 `json:"hosting"` // the vault open (version map, catalog)
	Indexed float64 `json:"indexed"` // the search index open and in sync
	Vectors float64 `json:"vectors"` // every vector made

	// From /proc/self/status after the GC, then after debug.FreeOSMemory.
	Status   map[string]uint64 `json:"status"`
	RSSFreed uint64            `json:"rssFreed"`
	// RSSSettled is VmRSS at the end of the settling, before the forced GC.
	RSSSettled uint64 `json:"rssSettled"`
	// Sampled every 100 ms from the start until the measurement.
	PeakHeap uint64 `json:"peakHeap"`
	PeakRSS  uint64 `json:"peakRss"`
	// PeakAnon and PeakFile are RssAnon and RssFile at the sample of the
	// largest VmRSS: the Go heap's share of the peak, and the files'.
	PeakAnon uint64 `json:"peakAnon"`
	PeakFile uint64 `json:"peakFile"`
	// PeakOwners is the heap profile's breakdown when its live total was
	// largest (sampled every second).
	PeakOwners []owned `json:"peakOwners"`

	// runtime/metrics after the GC.
	Metrics map[string]uint64 `json:"metrics"`
	Maps    []mapping         `json:"maps"`
	Owners  []owned           `json:"owners"`

	// Writes is the burst of writes after the measurement, if asked.
	Writes *writesResult `json:"writes,omitempty"`

	GOGC       string `json:"gogc"`
	GOMAXPROCS int    `json:"gomaxprocs"`
}

// child hosts the vault at dir as `cairn serve` does and prints its
// result as JSON on stdout.
func child(dir string, o childOptions) error {
	root, err := host.Canonical(dir)
	if err != nil {
		return err
	}
	if err := vault.Check(root); err != nil {
		return err
	}
	t0 := time.Now()
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile() // once more (a no-op) if stopped below
	}
	sampler := startSampler(o.heapProfile != "")
	ctx, cancel := context.WithCancel(context.Background())
	node := host.Start(ctx, mcptools.NewRegistry(), host.Options{Root: root, Version: "membench", Quiet: 3 * time.Second, NoWatch: o.noWatch,
		Report: func(err error) { fmt.Fprintln(os.Stderr, "cairn:", err) }})
	defer func() {
		cancel()
		<-node.Done()
	}()
	var v *vault.Vault
	for v = node.Hosting(); v == nil; v = node.Hosting() {
		if time.Since(t0) > 30*time.Minute {
			return fmt.Errorf("%s: not hosted after 30 minutes", root)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := &result{Notes: v.NoteCount(), GOGC: os.Getenv("GOGC"), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	r.Hosting = time.Since(t0).Seconds()
	fmt.Fprintf(os.Stderr, "membench: %s hosted after %.1f s\n", root, r.Hosting)
	ix, err := v.SearchIndex()
	if err != nil {
		return err
	}
	r.Indexed = time.Since(t0).Seconds()
	if !ix.WaitVectors(time.Hour) {
		return fmt.Errorf("%s: vectors not made within an hour", root)
	}
	r.Vectors = time.Since(t0).Seconds()
	pprof.StopCPUProfile()
	time.Sleep(o.settle)
	sampler.end()
	r.PeakHeap, r.PeakRSS, r.PeakOwners = sampler.heap, sampler.rss, sampler.owners
	r.PeakAnon, r.PeakFile = sampler.anon, sampler.file
	if st, err := readStatus(); err == nil {
		r.RSSSettled = st["VmRSS"]
	}

	runtime.GC()
	runtime.GC() // the profile is as of the last completed cycle
	r.Metrics = readMetrics()
	if r.Status, err = readStatus(); err != nil {
		return err
	}
	if r.Maps, err = readMaps(root); err != nil {
		return err
	}
	r.Owners = attribute(heapRecords())
	if o.heapProfile != "" {
		if err := writeHeapProfile(o.heapProfile); err != nil {
			return err
		}
		if sampler.peakProfile != nil {
			peak := strings.TrimSuffix(o.heapProfile, ".pprof") + "-peak.pprof"
			if err := os.WriteFile(peak, sampler.peakProfile, 0o644); err != nil {
				return err
			}
		}
	}
	debug.FreeOSMemory()
	if st, err := readStatus(); err == nil {
		r.RSSFreed = st["VmRSS"]
	}
	if o.writes > 0 {
		profile, cpu := "", ""
		if o.heapProfile != "" {
			profile = strings.TrimSuffix(o.heapProfile, ".pprof") + "-writes-peak.pprof"
		}
		if o.cpuProfile != "" {
			cpu = strings.TrimSuffix(o.cpuProfile, ".pprof") + "-writes.pprof"
		}
		if r.Writes, err = writeBurst(v, o.writes, o.generated, profile, cpu); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

func writeHeapProfile(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}

// metricNames are the runtime's memory classes reported; they sum to
// /memory/classes/total:bytes with the few small ones left out.
var metricNames = []string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/metadata/other:bytes",
	"/memory/classes/other:bytes",
	"/gc/heap/goal:bytes",
	"/gc/cycles/total:gc-cycles",
}

func readMetrics() map[string]uint64 {
	s := make([]metrics.Sample, len(metricNames))
	for i, n := range metricNames {
		s[i].Name = n
	}
	metrics.Read(s)
	out := map[string]uint64{}
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			out[x.Name] = x.Value.Uint64()
		}
	}
	return out
}

// sampler follows the process until the measurement: every 100 ms the
// heap's objects (live and not yet swept) and VmRSS, and every second the
// heap profile's live total, keeping the breakdown of its largest (the
// live heap at the last GC before the peak). VmHWM is the kernel's exact
// RSS peak; these show what made it.
type sampler struct {
	stop chan struct{}
	done chan struct{}

	heap, rss, live uint64
	anon, file      uint64 // RssAnon and RssFile when VmRSS was rss
	owners          []owned
	// peakProfile is the heap profile (pprof format) when the live total
	// was largest, kept when -heapprofile asks for profiles.
	keepProfile bool
	peakProfile []byte
}

func startSampler(keepProfile bool) *sampler {
	sm := &sampler{stop: make(chan struct{}), done: make(chan struct{}), keepProfile: keepProfile}
	go sm.run()
	return sm
}

func (sm *sampler) run() {
	defer close(sm.done)
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		metrics.Read(s)
		st, _ := readStatus()
		sm.heap = max(sm.heap, s[0].Value.Uint64())
		if st["VmRSS"] > sm.rss {
			sm.rss, sm.anon, sm.file = st["VmRSS"], st["RssAnon"], st["RssFile"]
		}
		if i%10 == 0 {
			owners := attribute(heapRecords())
			if live := total(owners); live > sm.live {
				sm.live, sm.owners = live, owners
				if sm.keepProfile {
					var b bytes.Buffer
					if pprof.Lookup("heap").WriteTo(&b, 0) == nil {
						sm.peakProfile = b.Bytes()
					}
				}
			}
		}
		select {
		case <-sm.stop:
			return
		case <-t.C:
		}
	}
}

// end stops the sampling; its figures may be read once it returns.
func (sm *sampler) end() {
	close(sm.stop)
	<-sm.done
}

func total(owners []owned) uint64 {
	var t uint64
	for _, o := range owners {
		t += o.Bytes
	}
	return t
}
