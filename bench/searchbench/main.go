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
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/vault"
)

func main() {
	sizes := flag.String("notes", "10000", "vault sizes, comma-separated")
	words := flag.Int("words", 300, "words per note")
	queries := flag.Int("queries", 300, "searches per mode")
	data := flag.String("data", "../shared/data/locomo10.json", "LoCoMo file, for its sentences")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the searches here")
	flag.Parse()
	profile = *prof
	sents, err := sentences(*data)
	must(err)
	fmt.Printf("%d sentences of real English to draw from\n\n", len(sents))
	fmt.Println("| notes | index build | docs/s | index on disk | vectors | embed | peak heap | hybrid p50/p99 | lexical p50/p99 | semantic p50/p99 |")
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
	generate(dir, n, words, sents, rng)
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

	caller := vault.Caller{Principal: v.Owner(), Ceiling: vault.RoleRead, Actor: "agent", Tool: "bench"}
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
			q := query(qrng, sents)
			t := time.Now()
			_, err := v.Search(context.Background(), caller, vault.SearchArgs{Query: q, Limit: 10, Mode: mode})
			d = append(d, time.Since(t))
			must(err)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		lat[mode] = fmt.Sprintf("%s / %s", ms(d[len(d)/2]), ms(d[len(d)*99/100]))
	}
	fmt.Printf("| %d | %s | %.0f | %.1f MB | %.1f MB | %s (%.0f notes/s) | %.0f MB | %s | %s | %s |\n",
		n, build.Round(time.Millisecond), float64(n)/build.Seconds(), float64(bleveSize)/1e6, float64(vecSize)/1e6,
		embed.Round(time.Millisecond), float64(n)/embed.Seconds(), float64(heap)/1e6, lat["hybrid"], lat["lexical"], lat["semantic"])
}

var profile string

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// query is 2 to 5 words taken from one sentence: what someone half
// remembers.
func query(rng *rand.Rand, sents []string) string {
	for {
		w := strings.Fields(sents[rng.Intn(len(sents))])
		if len(w) < 6 {
			continue
		}
		k := 2 + rng.Intn(4)
		i := rng.Intn(len(w) - k)
		return strings.Join(w[i:i+k], " ")
	}
}

// generate writes n notes in 100 folders of a project and commits them
// with the git command line.
func generate(dir string, n, words int, sents []string, rng *rand.Rand) {
	must(os.MkdirAll(filepath.Join(dir, "space"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "space", vault.ProjectMarker), []byte("handle: space\nname: Space\n"), 0o644))
	for i := 0; i < n; i++ {
		folder := filepath.Join(dir, "space", fmt.Sprintf("f%03d", i%100))
		if i < 100 {
			must(os.MkdirAll(folder, 0o755))
		}
		var b strings.Builder
		for cnt := 0; cnt < words; {
			s := sents[rng.Intn(len(sents))]
			b.WriteString(s)
			b.WriteString(" ")
			cnt += len(strings.Fields(s))
		}
		body := fmt.Sprintf("---\nid: %s\ntype: note\ntags: [t%d]\n---\n# Note %06d\n\n%s\n", vault.NewID(), i%50, i, b.String())
		must(os.WriteFile(filepath.Join(folder, fmt.Sprintf("Note %06d.md", i)), []byte(body), 0o644))
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "notes"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@cairn.local", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@cairn.local")
		if out, err := cmd.CombinedOutput(); err != nil {
			panic(fmt.Sprintf("git %v: %v\n%s", args, err, out))
		}
	}
}

func sentences(file string) ([]string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, err
	}
	var out []string
	for _, s := range samples {
		for k, v := range s.Conversation {
			if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "date_time") {
				continue
			}
			var turns []struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(v, &turns) == nil {
				for _, t := range turns {
					out = append(out, strings.ReplaceAll(t.Text, "#", ""))
				}
			}
		}
	}
	sort.Strings(out) // map order is random; the notes must not be
	return out, nil
}

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
