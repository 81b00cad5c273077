// Command searchbench measures the search index on generated vaults: how
// fast it is built (documents per second, size on disk, peak memory), how
// fast the builtin embedder makes the vectors, and search latency p50/p99
// for each mode, through the vault (access scopes, snippets and all).
//
// Notes are made of real English sentences (LoCoMo's dialogue turns,
// shuffled), so both the words and the word vectors behave as in a real
// vault.
//
//	go run ./bench/searchbench -notes 10000,100000
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

func main() {
	sizes := flag.String("notes", "10000", "vault sizes, comma-separated")
	words := flag.Int("words", 300, "words per note")
	queries := flag.Int("queries", 300, "searches per mode")
	data := flag.String("data", "../shared/data/locomo10.json", "LoCoMo file, for its sentences")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the searches here")
	flag.DurationVar(&settle, "settle", 0, "wait this long after the build before the searches: Bleve's merges go on after it, on the cores the searches use")
	flag.Parse()
	profile = *prof
	sents, err := corpus.Sentences(*data)
	must(err)
	fmt.Printf("%d sentences of real English to draw from\n\n", len(sents))
	fmt.Println("| notes | index build | docs/s | index on disk | vectors | vectors done after the build | peak heap | hybrid p50/p99 | lexical p50/p99 | semantic p50/p99 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(s)
		must(err)
		run(n, *words, *queries, sents)
	}
}

func run(n, words, queries int, sents []string) {
	dir, err := os.MkdirTemp("", "searchbench-")
	must(err)
	defer os.RemoveAll(dir)
	rng := rand.New(rand.NewSource(int64(n)))
	must(corpus.Generate(dir, n, words, sents, rng))
	_, err = vault.Init(dir, vault.InitOptions{})
	must(err)
	v, err := vault.Open(dir, vault.Options{})
	must(err)
	defer v.Close()

	runtime.GC()
	peak := startPeak()
	t0 := time.Now()
	ix, err := v.SearchIndex()
	must(err)
	build := time.Since(t0)
	t1 := time.Now()
	if !ix.WaitVectors(30 * time.Minute) {
		panic("vectors not made")
	}
	embed := time.Since(t1)
	heap := peak()
	must(v.Persist())
	bleveSize := du(filepath.Join(dir, vault.CacheDir, "search", "bleve"))
	vecSize := du(filepath.Join(dir, vault.CacheDir, "search", "vectors.bin"))

	time.Sleep(settle)
	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "bench"}
	lat := map[string]string{}
	if profile != "" {
		f, err := os.Create(profile)
		must(err)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for _, mode := range []string{"hybrid", "lexical", "semantic"} {
		qrng := rand.New(rand.NewSource(7))
		var d []time.Duration
		for i := 0; i < queries; i++ {
			q := corpus.Query(qrng, sents)
			t := time.Now()
			_, err := v.Search(context.Background(), caller, vault.SearchArgs{Query: q, Limit: 10, Mode: mode})
			d = append(d, time.Since(t))
			must(err)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		lat[mode] = fmt.Sprintf("%s / %s", ms(measure.Pct(d, 50)), ms(measure.Pct(d, 99)))
	}
	// The vectors are made beside the build: what is left is the wait
	// after it (a rate per note would divide by nearly nothing).
	fmt.Printf("| %d | %s | %.0f | %.1f MB | %.1f MB | +%s | %.0f MB | %s | %s | %s |\n",
		n, build.Round(time.Millisecond), float64(n)/build.Seconds(), float64(bleveSize)/1e6, float64(vecSize)/1e6,
		embed.Round(time.Millisecond), float64(heap)/1e6, lat["hybrid"], lat["lexical"], lat["semantic"])
}

var (
	profile string
	settle  time.Duration
)

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// startPeak samples the heap every 20 ms until the returned function is
// called, which gives the largest heap seen.
func startPeak() func() uint64 {
	stop := make(chan struct{})
	res := make(chan uint64)
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

func du(path string) int64 {
	var n int64
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
