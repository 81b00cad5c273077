// Command lockbench measures how long a call waits for the git store's
// lock while the store does its longest work: Changed (the watcher's stray
// scan reads HEAD's whole tree and compares every note on disk with it)
// and Persist (the version map written to its file). A goroutine calls
// Head, which every search makes, every 2 ms meanwhile and keeps its
// slowest answer.
//
//	go run ./bench/lockbench -vault CLONE
//
// CLONE is a git work tree, e.g. a clone of a vault servebench generated
// (git clone /tmp/open-vaults/gen-100000-100000-300 CLONE). Nothing in it
// is written: the version map is built in memory (it takes a while over a
// long history: its time is printed) and saved to a temporary file.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
)

func main() {
	dir := flag.String("vault", "", "a git work tree (a clone of a generated vault)")
	rounds := flag.Int("rounds", 2, "calls of Changed (the first reads the packs cold)")
	flag.Parse()
	if *dir == "" || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "lockbench: -vault: give a git work tree; -rounds: 1 or more")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "lockbench-")
	must(err)
	defer os.RemoveAll(tmp)
	s, err := gitstore.Open(*dir, gitstore.Options{CacheFile: filepath.Join(tmp, "versions.json")})
	must(err)
	defer s.Close()
	t0 := time.Now()
	paths, err := s.Paths()
	must(err)
	fmt.Printf("%d paths; version map built in %s\n", len(paths), time.Since(t0).Round(time.Millisecond))

	var slowest atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			t := time.Now()
			s.Head()
			if d := int64(time.Since(t)); d > slowest.Load() {
				slowest.Store(d)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	measure := func(what string, call func() error) {
		slowest.Store(0)
		t := time.Now()
		must(call())
		took := time.Since(t)
		time.Sleep(50 * time.Millisecond) // a Head held until now records its wait
		fmt.Printf("%s: %s; the slowest Head meanwhile %s\n", what, took.Round(time.Millisecond), time.Duration(slowest.Load()).Round(100*time.Microsecond))
	}
	for i := range *rounds {
		measure(fmt.Sprintf("Changed (%d)", i+1), func() error { _, err := s.Changed(paths); return err })
	}
	measure("Persist", s.Persist)
	close(stop)
	<-stopped
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockbench:", err)
		os.Exit(1)
	}
}
