// Command membench says where a hosting `cairn serve` process's memory
// goes once its vault is indexed (issue 16): resident memory and its
// high-water mark, the Go heap, and the live heap broken down by owner (the
// version map, the commit-diff cache, go-git's caches, the catalog, the
// link graph, Bleve, the vector arena, the word-vector model...), with
// Bleve's memory-mapped segment files beside it.
//
//	go run ./bench/membench -notes 10000
//	go run ./bench/membench -notes 10000,100000 -history per-note -heapprofile /tmp/mem
//
// For each size it generates a vault (bench/corpus's notes of real
// English sentences; -history per-note rewrites it as one commit per note,
// as a vault used for years has), clones it through file:// as a new
// member would (`cairn clone`: everything packed) and sets the clone up
// with vault.Init. Then it opens the clone twice, each time in a process
// of its own (this binary again, with -open), so that each high-water
// mark is that open's: cold (no .cairn/cache: version map, catalog, Bleve
// and vectors all built) and warm (the caches the cold run saved). Each
// process hosts the vault as `cairn serve` does (host.Start: the watcher,
// the background upkeep, the search index opened at once), waits until
// the index is complete and every vector made, lets the background work
// settle, forces a GC, and measures. With -writes N it then makes N
// writes through the vault's API, create_note and edit_note in turn as
// servebench does, and reports the burst's own high-water mark (VmHWM
// reset before it) and the live heap by owner at its peak.
//
// The heap breakdown reads the runtime's heap profile (the same samples
// `go tool pprof -inuse_space` shows, scaled the same way) and gives each
// sample to an owner by its allocation stack (owners.go). A heap profile
// knows where memory was allocated, not who holds it now: a go-git object
// decoded while the version map was built and kept by go-git's LRU is
// go-git's, because the rules look for go-git's storage frames first.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
)

func main() {
	sizes := flag.String("notes", "10000", "vault sizes, comma-separated")
	words := flag.Int("words", 300, "words per note")
	history := flag.String("history", "one", "the generated history: one (every note in one commit) or per-note (one commit per note)")
	data := flag.String("data", "../shared/data/locomo10.json", "LoCoMo file, for its sentences")
	keep := flag.String("dir", "", "generate the vaults here and keep them (default: a temporary folder, removed)")
	reuse := flag.Bool("reuse", false, "with -dir: open a clone kept there by an earlier run as it is, caches included, instead of generating it again")
	starts := flag.String("starts", "cold,warm", "the opens to measure, in turn: cold (the caches deleted first) and warm")
	heapDir := flag.String("heapprofile", "", "write each run's heap profile (go tool pprof) into this folder, and the profile at the build's peak beside it (-peak)")
	settle := flag.Duration("settle", 5*time.Second, "after the index is complete, wait this long for background work (Bleve's merges, saves) before measuring")
	sites := flag.Int("sites", 3, "allocation sites listed under each owner")
	noWatch := flag.Bool("no-watch", false, "host without the file watcher (serve --no-watch)")
	cpuDir := flag.String("cpuprofile", "", "write each run's CPU profile, from its start until the index is complete, into this folder (and the burst of -writes' beside it, -writes.pprof)")
	writes := flag.Int("writes", 0, "after the measurement, make this many writes (create_note and edit_note in turn, as servebench) and measure the burst")
	open := flag.String("open", "", "internal: host this vault in this process, measure, print JSON")
	flag.Parse()
	if *open != "" {
		generated, err := strconv.Atoi(*sizes)
		if err != nil {
			fail(fmt.Errorf("-notes: with -open, the number of notes generated: %w", err))
		}
		must(child(*open, childOptions{generated: generated, settle: *settle, heapProfile: *heapDir, cpuProfile: *cpuDir, noWatch: *noWatch, writes: *writes}))
		return
	}
	if *history != "one" && *history != "per-note" {
		fail(fmt.Errorf("-history: %q is neither one nor per-note", *history))
	}
	if *settle < 0 {
		fail(fmt.Errorf("-settle: %s is negative", *settle))
	}
	if *words < 1 {
		fail(fmt.Errorf("-words: %d is not a number of words (at least 1)", *words))
	}
	if *writes < 0 {
		fail(fmt.Errorf("-writes: %d is negative", *writes))
	}
	if *sites < 0 {
		fail(fmt.Errorf("-sites: %d is negative", *sites))
	}
	if *reuse && *keep == "" {
		fail(fmt.Errorf("-reuse: needs -dir"))
	}
	var startList []string
	for _, st := range strings.Split(*starts, ",") {
		if st = strings.TrimSpace(st); st != "cold" && st != "warm" {
			fail(fmt.Errorf("-starts: %q is neither cold nor warm", st))
		}
		startList = append(startList, st)
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-notes: %q is not a number of notes", s))
		}
		ns = append(ns, n)
	}
	sents, err := corpus.Sentences(*data)
	if err != nil {
		fail(fmt.Errorf("-data: %w", err))
	}
	base := *keep
	if base == "" {
		base, err = os.MkdirTemp("", "membench-")
		must(err)
		defer os.RemoveAll(base)
	}
	for _, d := range []string{*heapDir, *cpuDir} {
		if d != "" {
			must(os.MkdirAll(d, 0o755))
		}
	}
	printHeader(*history, *settle, *noWatch)
	for _, n := range ns {
		t0 := time.Now()
		dir := cloneDir(base, n, *history)
		if _, err := os.Stat(dir); !*reuse || err != nil {
			dir, err = prepare(base, n, *words, *history, sents)
			must(err)
			fmt.Fprintf(os.Stderr, "membench: %d notes generated and cloned in %s\n", n, time.Since(t0).Round(time.Second))
		}
		var runs []*result
		for _, start := range startList {
			if start == "cold" {
				must(os.RemoveAll(filepath.Join(dir, vault.CacheDir)))
			}
			r, err := runChild(dir, start, n, *settle, *heapDir, *cpuDir, *noWatch, *writes)
			must(err)
			runs = append(runs, r)
		}
		printRuns(n, runs, *sites)
	}
}

// prepare generates a vault of n notes and returns a fresh clone of it,
// set up as a member sets up a clone.
func prepare(base string, n, words int, history string, sents []string) (string, error) {
	src := filepath.Join(base, fmt.Sprintf("origin-%d-%s", n, history))
	dst := cloneDir(base, n, history)
	for _, d := range []string{src, dst} {
		if err := os.RemoveAll(d); err != nil {
			return "", err
		}
	}
	rng := rand.New(rand.NewSource(int64(n)))
	if err := corpus.Generate(src, n, words, sents, rng); err != nil {
		return "", fmt.Errorf("generate: %w", err)
	}
	if history == "per-note" {
		if err := oneCommitPerNote(src); err != nil {
			return "", fmt.Errorf("history: %w", err)
		}
	}
	if _, err := vault.Init(src, vault.InitOptions{}); err != nil {
		return "", fmt.Errorf("init %s: %w", src, err)
	}
	owner, err := vault.ReadOwner(src)
	if err != nil {
		return "", err
	}
	if err := teamsync.Clone(context.Background(), "file://"+src, dst, ""); err != nil {
		return "", err
	}
	if _, err := vault.Init(dst, vault.InitOptions{Owner: owner}); err != nil {
		return "", fmt.Errorf("set up the clone: %w", err)
	}
	return dst, nil
}

func cloneDir(base string, n int, history string) string {
	return filepath.Join(base, fmt.Sprintf("clone-%d-%s", n, history))
}

// profileRate is the heap profile's sampling rate in the measured
// processes: one sample per 64 KiB allocated, on average.
const profileRate = 64 << 10

// runChild hosts the vault in a new process of this binary and reads its
// measurement.
func runChild(dir, start string, n int, settle time.Duration, heapDir, cpuDir string, noWatch bool, writes int) (*result, error) {
	args := []string{"-open", dir, "-notes", strconv.Itoa(n), "-settle", settle.String(), "-writes", strconv.Itoa(writes)}
	if heapDir != "" {
		args = append(args, "-heapprofile", filepath.Join(heapDir, fmt.Sprintf("%s-%d.pprof", start, n)))
	}
	if cpuDir != "" {
		args = append(args, "-cpuprofile", filepath.Join(cpuDir, fmt.Sprintf("%s-%d.cpu.pprof", start, n)))
	}
	if noWatch {
		args = append(args, "-no-watch")
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, args...)
	// A finer sampling than the default 512 KiB, from the first
	// allocation: owners of a few MiB are then told apart. A GODEBUG of
	// the caller's (gctrace=1, say) is kept beside it.
	debugVars := "memprofilerate=" + strconv.Itoa(profileRate)
	if d := os.Getenv("GODEBUG"); d != "" {
		debugVars = d + "," + debugVars
	}
	cmd.Env = append(os.Environ(), "GODEBUG="+debugVars)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s open of %d notes: %w", start, n, err)
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("%s open of %d notes: read its result: %w", start, n, err)
	}
	r.Start = start
	return &r, nil
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "membench:", err)
	os.Exit(1)
}
