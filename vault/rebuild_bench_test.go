package vault_test

import (
	"context"
	"flag"
	"math/rand"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// The vault BenchmarkRebuild rebuilds: searchbench's (bench/corpus), so
// its figures compare with the first build's there.
var (
	rebuildNotes = flag.Int("rebuild-notes", 2000, "notes in BenchmarkRebuild's vault")
	rebuildData  = flag.String("rebuild-data", "../../shared/data/locomo10.json", "LoCoMo file, for BenchmarkRebuild's sentences")
)

// BenchmarkRebuild rebuilds the index of a vault in use, while one search
// at a time runs beside it ("searching") or none ("quiet"). It reports
// the first build's time (SearchIndex on the fresh vault, vectors
// included) beside the Rebuild's, the searches answered during the
// Rebuild, their median and their longest (a search that met the swap
// waited for it), and the peak heap during the Rebuild.
//
//	go test ./vault -run '^$' -bench Rebuild -benchtime 1x -rebuild-notes 10000
func BenchmarkRebuild(b *testing.B) {
	sents, err := corpus.Sentences(*rebuildData)
	if err != nil {
		b.Skipf("no sentences to make notes of: %v", err)
	}
	dir := b.TempDir()
	if err := corpus.Generate(dir, *rebuildNotes, 300, sents, rand.New(rand.NewSource(int64(*rebuildNotes)))); err != nil {
		b.Fatal(err)
	}
	if _, err := vault.Init(dir, vault.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	t0 := time.Now()
	ix, err := v.SearchIndex()
	if err != nil {
		b.Fatal(err)
	}
	if !ix.WaitVectors(30 * time.Minute) {
		b.Fatal("vectors not made")
	}
	first := time.Since(t0)
	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "bench"}
	for _, searching := range []bool{false, true} {
		name := map[bool]string{false: "quiet", true: "searching"}[searching]
		b.Run(name, func(b *testing.B) {
			var lat []time.Duration
			var peak uint64
			for i := 0; i < b.N; i++ {
				stop, done := make(chan struct{}), make(chan []time.Duration)
				if searching {
					go searchUntil(b, v, caller, sents, stop, done)
				}
				sample := startHeapPeak()
				if err := v.Rebuild(nil); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, sample())
				if searching {
					close(stop)
					lat = append(lat, <-done...)
				}
			}
			b.ReportMetric(first.Seconds(), "first-build-s")
			b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
			if len(lat) > 0 {
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				b.ReportMetric(float64(len(lat))/float64(b.N), "searches/op")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "search-p50-ms")
				b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "search-max-ms")
			}
		})
	}
}

// searchUntil runs one hybrid search at a time until stop, then sends
// their latencies on done. A failed search fails the benchmark: none may
// fail during a Rebuild.
func searchUntil(b *testing.B, v *vault.Vault, c access.Caller, sents []string, stop chan struct{}, done chan []time.Duration) {
	rng := rand.New(rand.NewSource(7))
	var lat []time.Duration
	for {
		select {
		case <-stop:
			done <- lat
			return
		default:
		}
		t := time.Now()
		if _, err := v.Search(context.Background(), c, vault.SearchArgs{Query: corpus.Query(rng, sents), Limit: 10}); err != nil {
			b.Error(err)
		}
		lat = append(lat, time.Since(t))
	}
}

// startHeapPeak samples the heap every 20 ms until the returned function
// is called, which gives the largest heap seen.
func startHeapPeak() func() uint64 {
	stop, res := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				res <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-res }
}
