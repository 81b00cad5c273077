// Command pathobench measures what hostile notes cost, in a vault of
// ordinary notes (real English sentences from LoCoMo, as searchbench):
//
//  1. each of the pathological notes, alone: the time the vault
//     takes to read it (a reconcile, as the watcher does: catalog and
//     links) and then until the search index holds it;
//  2. hybrid search p50/p99 on the rest of the vault, first with nothing
//     else going on, then while copies of every pathological note are
//     being indexed;
//  3. `cairn serve` (the binary, over stdio) stopped by SIGTERM while it
//     builds its index from scratch with pathological notes pending: the
//     time from the signal to the exit; then a restart, and the time until
//     it answers a search.
//
// Run it from the repository root (it builds ./cmd/cairn):
//
//	go run ./bench/pathobench -notes 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

func main() {
	n := flag.Int("notes", 10000, "ordinary notes in the vault")
	copies := flag.Int("copies", 3, "copies of each pathological note indexed while searches run")
	queries := flag.Int("queries", 300, "searches for the quiet p50")
	data := flag.String("data", "../shared/data/locomo10.json", "LoCoMo file, for its sentences")
	cpuprof := flag.String("cpuprofile", "", "write a CPU profile of the searches made while notes are indexed")
	blockprof := flag.String("blockprofile", "", "write a blocking profile of the same")
	noServe := flag.Bool("noserve", false, "skip the SIGTERM runs")
	flag.Parse()
	sents, err := corpus.Sentences(*data)
	must(err)
	tmp, err := os.MkdirTemp("", "pathobench-")
	must(err)
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "v")
	must(corpus.Generate(dir, *n, 300, sents, rand.New(rand.NewSource(1))))
	_, err = vault.Init(dir, vault.InitOptions{})
	must(err)
	fmt.Printf("%d ordinary notes of 300 words; %d CPUs\n\n", *n, numCPU())

	v, err := vault.Open(dir, vault.Options{})
	must(err)
	ix, err := v.SearchIndex()
	must(err)
	ix.WaitVectors(30 * time.Minute)
	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "bench"}

	fmt.Println("| note | size | read (reconcile) | until indexed | found by its word |")
	fmt.Println("|---|---|---|---|---|")
	notes := pathological()
	for _, name := range names(notes) {
		rel := "space/patho/" + name + ".md"
		write(dir, rel, notes[name])
		t0 := time.Now()
		_, err := v.Reconcile()
		must(err)
		read := time.Since(t0)
		waitIndexed(v, []string{rel})
		indexed := time.Since(t0)
		r, err := v.Search(context.Background(), caller, vault.SearchArgs{Query: marker(name), Mode: "lexical"})
		must(err)
		ok := len(r.Results) > 0 && r.Results[0].Path == rel
		fmt.Printf("| %s | %s | %s | %s | %v |\n", name, size(len(notes[name])), ms(read), ms(indexed), ok)
	}

	fmt.Println()
	qrng := rand.New(rand.NewSource(7))
	quiet := searchLoop(v, caller, sents, qrng, *queries, nil)
	var pending []string
	for c := 0; c < *copies; c++ {
		for _, name := range names(notes) {
			rel := fmt.Sprintf("space/patho/%s-%d.md", name, c)
			write(dir, rel, strings.Replace(notes[name], marker(name), fmt.Sprintf("%sc%d", marker(name), c), 1))
			pending = append(pending, rel)
		}
	}
	stop := profile(*cpuprof, *blockprof)
	t0 := time.Now()
	_, err = v.Reconcile()
	must(err)
	busy := searchLoop(v, caller, sents, qrng, 0, func() bool { return allIndexed(v, pending) })
	took := time.Since(t0)
	stop()
	ix.WaitVectors(10 * time.Minute)
	time.Sleep(2 * time.Second) // Bleve's merges settle
	after := searchLoop(v, caller, sents, qrng, *queries, nil)
	fmt.Printf("hybrid search on the rest of the vault, p50 / p99 (searches):\n\n")
	fmt.Println("| while | p50 | p99 | searches |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| nothing else runs | %s | %s | %d |\n", ms(pct(quiet, 50)), ms(pct(quiet, 99)), len(quiet))
	fmt.Printf("| %d pathological notes are indexed (%s) | %s | %s | %d |\n", len(pending), ms(took), ms(pct(busy, 50)), ms(pct(busy, 99)), len(busy))
	fmt.Printf("| nothing else runs, the %d notes indexed | %s | %s | %d |\n", len(pending), ms(pct(after, 50)), ms(pct(after, 99)), len(after))
	must(v.Close())

	if !*noServe {
		fmt.Println()
		sigterm(dir, notes)
	}
}

// profile starts the profiles asked for; the returned function writes them.
func profile(cpu, block string) func() {
	var f *os.File
	if cpu != "" {
		var err error
		f, err = os.Create(cpu)
		must(err)
		must(pprof.StartCPUProfile(f))
	}
	if block != "" {
		runtime.SetBlockProfileRate(int(time.Microsecond))
	}
	return func() {
		if f != nil {
			pprof.StopCPUProfile()
			f.Close()
		}
		if block != "" {
			bf, err := os.Create(block)
			must(err)
			must(pprof.Lookup("block").WriteTo(bf, 0))
			bf.Close()
			runtime.SetBlockProfileRate(0)
		}
	}
}

// searchLoop runs hybrid searches of 2 to 5 words of a sentence: count of
// them, or until done says so.
func searchLoop(v *vault.Vault, c access.Caller, sents []string, rng *rand.Rand, count int, done func() bool) []time.Duration {
	var d []time.Duration
	for i := 0; (count > 0 && i < count) || (done != nil && !done()); i++ {
		q := corpus.Query(rng, sents)
		t := time.Now()
		_, err := v.Search(context.Background(), c, vault.SearchArgs{Query: q, Limit: 10})
		must(err)
		d = append(d, time.Since(t))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d
}

func pct(d []time.Duration, p int) time.Duration { return measure.Pct(d, p) }

func waitIndexed(v *vault.Vault, paths []string) {
	deadline := time.Now().Add(10 * time.Minute)
	for !allIndexed(v, paths) {
		if time.Now().After(deadline) {
			panic("not indexed in 10 minutes")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func allIndexed(v *vault.Vault, paths []string) bool {
	for _, p := range paths {
		if !v.Indexed(p) {
			return false
		}
	}
	return true
}

// marker is the ordinary word a pathological note is found by.
func marker(name string) string {
	return "marker" + strings.NewReplacer("-", "", "[", "").Replace(strings.ToLower(name))
}

// pathological are the notes, and a few more found while looking
// at every stage, each holding its marker word.
func pathological() map[string]string {
	y := func(n int) string { return strings.Repeat("y", n) }
	notes := map[string]string{
		"word-1MiB":       "# Huge word\n\n" + marker("word-1MiB") + "\n\n" + y(vault.MaxNoteBytes-64),
		"key-500KB":       "---\n" + y(500<<10) + ": v\n---\n# Huge key\n\n" + marker("key-500KB") + "\n",
		"fields-1MiB":     "---\naliases: [" + y(400<<10) + "]\ntags: [" + y(200<<10) + "]\n---\n# " + y(400<<10) + "\n\n" + marker("fields-1MiB") + "\n",
		"stemmer-1MiB":    "# Stemmer\n\n" + marker("stemmer-1MiB") + "\n\n" + strings.Repeat("ab", (vault.MaxNoteBytes-64)/2),
		"prose-1MiB":      "# Prose\n\n" + marker("prose-1MiB") + "\n\n" + strings.Repeat("The quick brown fox jumps over the lazy dog near the riverbank. ", (vault.MaxNoteBytes-64)/64),
		"links-100k":      "# Many links\n\n" + marker("links-100k") + "\n\n" + repeatf("[[n%d]] ", 100000, 1000),
		"headings-10k":    "# Many headings\n\n" + marker("headings-10k") + "\n\n" + repeatf("## Heading %d\n\nword\n\n", 10000, 10000),
		"nesting":         "---\nk: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n---\n# Deep nesting\n\n" + marker("nesting") + " [[x]]\n\n" + strings.Repeat("- ", 100000) + "list\n\n" + strings.Repeat("> ", 100000) + "quote\n",
		"md-links-160k":   "# Unclosed links\n\n" + marker("md-links-160k") + " [[x]]\n\n" + strings.Repeat("[a](", 160000) + "\n",
		"unclosed-[[":     "# Unclosed wikilinks\n\n" + marker("unclosed-[[") + "\n\n" + strings.Repeat("[[a ", 200000) + "\n",
		"whitespace-1MiB": "# Spaces\n\n" + marker("whitespace-1MiB") + "\n\n" + strings.Repeat(" ", vault.MaxNoteBytes-64) + "x\n",
	}
	return notes
}

func repeatf(format string, n, mod int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, format, i%mod)
	}
	return b.String()
}

func names(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func write(dir, rel, text string) {
	full := filepath.Join(dir, filepath.FromSlash(rel))
	must(os.MkdirAll(filepath.Dir(full), 0o755))
	must(os.WriteFile(full, []byte(text), 0o644))
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

func ms(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
