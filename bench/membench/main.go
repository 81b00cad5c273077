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
// settle, forces a GC, and measures.
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
	heapDir := flag.String("heapprofile", "", "write each run's heap profile (go tool pprof) into this folder, and the profile at the build's peak beside it (-peak)")
	settle := flag.Duration("settle", 5*time.Second, "after the index is complete, wait this long for background work (Bleve's merges, saves) before measuring")
	sites := flag.Int("sites", 3, "allocation sites listed under each owner")
	noWatch := flag.Bool("no-watch", false, "host without the file watcher (serve --no-watch)")
	open := flag.String("open", "", "internal: host this vault in this process, measure, print JSON")
	flag.Parse()
	if *open != "" {
		must(child(*open, childOptions{settle: *settle, heapProfile: *heapDir, noWatch: *noWatch}))
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
	if *sites < 0 {
		fail(fmt.Errorf("-sites: %d is negative", *sites))
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
	if *heapDir != "" {
		must(os.MkdirAll(*heapDir, 0o755))
	}
	printHeader(*history, *settle, *noWatch)
	for _, n := range ns {
		t0 := time.Now()
		dir, err := prepare(base, n, *words, *history, sents)
		must(err)
		fmt.Fprintf(os.Stderr, "membench: %d notes generated and cloned in %s\n", n, time.Since(t0).Round(time.Second))
		var runs []*result
		for _, start := range []string{"cold", "warm"} {
			if start == "cold" {
				must(os.RemoveAll(filepath.Join(dir, vault.CacheDir)))
			}
			r, err := runChild(dir, start, n, *settle, *heapDir, *noWatch)
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
	dst := filepath.Join(base, fmt.Sprintf("clone-%d-%s", n, history))
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

// profileRate is the heap profile's sampling rate in the measured
// processes: one sample per 64 KiB allocated, on average.
const profileRate = 64 << 10

// runChild hosts the vault in a new process of this binary and reads its
// measurement.
func runChild(dir, start string, n int, settle time.Duration, heapDir string, noWatch bool) (*result, error) {
	args := []string{"-open", dir, "-settle", settle.String()}
	if heapDir != "" {
		args = append(args, "-heapprofile", filepath.Join(heapDir, fmt.Sprintf("%s-%d.pprof", start, n)))
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
	// allocation: owners of a few MiB are then told apart.
	cmd.Env = append(os.Environ(), "GODEBUG=memprofilerate="+strconv.Itoa(profileRate))
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
