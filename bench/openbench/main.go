// Command openbench times a server's open of a fresh clone (vault.Open as
// package host makes it: exclusive, the index opened early), the wait
// every call of a fresh clone's server makes before it runs (issue 34),
// optionally with a CPU profile or an execution trace. The vault
// (bench/corpus, ~300-word notes, one commit each) is generated once
// under -dir and kept; each run clones it again, or with -reclone=false
// removes the clone's caches:
//
//	go run ./bench/openbench -notes 100000 -dir /tmp/openbench -cpuprofile open.pprof
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

func main() {
	n := flag.Int("notes", 100000, "notes")
	dir := flag.String("dir", "/tmp/openbench", "keep the generated vault here")
	cpu := flag.String("cpuprofile", "", "CPU profile of the open")
	tr := flag.String("trace", "", "execution trace of the open (go tool trace)")
	warm := flag.Bool("warm", false, "open the clone again as it is")
	query := flag.String("search", "", "then search for this, as a server's first search, and time it")
	full := flag.Bool("index", false, "then wait for the search index to hold every note, and time it")
	closeAfter := flag.Bool("close", false, "then close the vault (saving its caches, for a -warm run), and time it")
	versions := flag.Bool("versions", false, "then wait for the version map, and time it")
	reclone := flag.Bool("reclone", true, "clone again (else reuse the clone, its caches removed)")
	flag.Parse()
	gen := filepath.Join(*dir, fmt.Sprintf("gen-%d", *n))
	clone := filepath.Join(*dir, fmt.Sprintf("clone-%d", *n))
	if _, err := os.Stat(gen); err != nil {
		sents, err := corpus.Sentences("../shared/data/locomo10.json")
		must(err)
		t0 := time.Now()
		must(corpus.GenerateHistory(gen, *n, 300, *n, sents, rand.New(rand.NewSource(1))))
		_, err = vault.Init(gen, vault.InitOptions{})
		must(err)
		fmt.Println("generated in", time.Since(t0))
	}
	switch {
	case *warm: // the clone as the last run left it, its caches included
	case !*reclone:
		must(os.RemoveAll(filepath.Join(clone, ".cairn", "cache")))
	default:
		os.RemoveAll(clone)
		must(corpus.Git(*dir, "clone", "-q", gen, clone))
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		must(err)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *tr != "" {
		f, err := os.Create(*tr)
		must(err)
		must(trace.Start(f))
		defer trace.Stop()
	}
	t0 := time.Now()
	var locked time.Duration
	v, err := vault.Open(clone, vault.Options{Exclusive: true, AnswerDuringBuild: true, OpenIndex: true, Locked: func() { locked = time.Since(t0) }})
	must(err)
	fmt.Printf("locked %s, open %s\n", locked, time.Since(t0))
	t1 := time.Now()
	h, err := v.Store().Head()
	must(err)
	fmt.Printf("head %s in %s\n", h[:8], time.Since(t1))
	if *query != "" {
		// As a server's first search: the index opened early builds
		// beside it, and the search reads the notes not indexed yet.
		t3 := time.Now()
		r, err := v.Search(context.Background(), access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "agent", Tool: "openbench"}, vault.SearchArgs{Query: *query})
		must(err)
		fmt.Printf("first search: %d hits in %s (%s after the start), %d notes not indexed\n", len(r.Results), time.Since(t3), time.Since(t0), r.IndexPending)
	}
	if *full {
		_, err := v.SearchIndex() // waits for the index to hold every note
		must(err)
		fmt.Printf("full index %s after the start\n", time.Since(t0))
	}
	if *closeAfter {
		t2 := time.Now()
		must(v.Close()) // saves the catalog: the next -warm run starts from it
		fmt.Printf("closed in %s\n", time.Since(t2))
	}
	if *versions {
		ps, err := v.Store().Paths() // waits for the version map
		must(err)
		fmt.Printf("version map of %d paths %s after the start\n", len(ps), time.Since(t0))
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
