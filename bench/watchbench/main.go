// Command watchbench measures the watcher on a generated vault of 10,000
// notes in 1,000 folders: save in an editor → indexed (a link to it
// resolves) and → committed, a full reconcile with nothing changed and with
// 1,000 notes changed, and the watch count and memory.
//
//	go run ./bench/watchbench
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
)

func main() {
	notes := flag.Int("notes", 10000, "notes")
	folders := flag.Int("folders", 1000, "folders")
	saves := flag.Int("saves", 50, "editor saves timed")
	quiet := flag.Duration("quiet", time.Second, "the quiet period before a hand edit is committed")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "cairn-watchbench-")
	must(err)
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "v")
	must(os.MkdirAll(dir, 0o755))
	for i := 0; i < *notes; i++ {
		f := filepath.Join(dir, "s", fmt.Sprintf("f%04d", i%*folders))
		must(os.MkdirAll(f, 0o755))
		must(os.WriteFile(filepath.Join(f, fmt.Sprintf("Note %05d.md", i)), []byte(fmt.Sprintf("# Note %05d\n\nSee [[Note %05d]].\n", i, (i+1)%*notes)), 0o644))
	}
	must(os.WriteFile(filepath.Join(dir, "s", vault.ProjectMarker), []byte("handle: s\n"), 0o644))
	_, err = vault.Init(dir, vault.InitOptions{})
	must(err)
	git(dir, "config", "user.name", "bench")
	git(dir, "config", "user.email", "bench@x")
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	defer v.Close()
	ix, err := v.SearchIndex() // "searchable" below: in the search index
	must(err)
	ix.WaitVectors(10 * time.Minute)
	var m0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	t0 := time.Now()
	go v.Watch(ctx, vault.WatchOptions{Quiet: *quiet, Ready: ready, Reconcile: time.Hour})
	<-ready
	watchStart := time.Since(t0)
	var m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)

	var indexed, committed []time.Duration
	for i := 0; i < *saves; i++ {
		title := fmt.Sprintf("Saved %03d", i)
		p := filepath.Join(dir, "s", fmt.Sprintf("f%04d", i), title+".md")
		tmpf := filepath.Join(filepath.Dir(p), "."+title+".md.swp")
		head := strings.TrimSpace(git(dir, "rev-parse", "HEAD"))
		start := time.Now()
		must(os.WriteFile(tmpf, []byte("# "+title+"\n\nWritten in an editor.\n"), 0o644))
		must(os.Rename(tmpf, p)) // an atomic save
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		for !v.Indexed(rel) {
			time.Sleep(2 * time.Millisecond)
		}
		indexed = append(indexed, time.Since(start))
		for strings.TrimSpace(git(dir, "rev-parse", "HEAD")) == head {
			time.Sleep(10 * time.Millisecond)
		}
		committed = append(committed, time.Since(start))
	}
	cancel()
	time.Sleep(50 * time.Millisecond)

	t0 = time.Now()
	changed, err := v.Reconcile()
	must(err)
	idle := time.Since(t0)
	if len(changed) != 0 {
		panic(fmt.Sprintf("%d changes in an idle reconcile", len(changed)))
	}
	for i := 0; i < 1000; i++ {
		p := filepath.Join(dir, "s", fmt.Sprintf("f%04d", i%*folders), fmt.Sprintf("Note %05d.md", i))
		data, _ := os.ReadFile(p)
		must(os.WriteFile(p, append(data, []byte("\nchanged\n")...), 0o644))
	}
	t0 = time.Now()
	changed, err = v.Reconcile()
	must(err)
	busy := time.Since(t0)

	dirs := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != dir {
				return filepath.SkipDir
			}
			dirs++
		}
		return nil
	})
	fmt.Printf("| figure | measured | goal |\n|---|---|---|\n")
	fmt.Printf("| watches (folders) / time to watch them | %d / %v | |\n", dirs, watchStart.Round(time.Millisecond))
	fmt.Printf("| memory of the vault + watcher (heap after GC, before → after watching) | %.0f → %.0f MiB | |\n", float64(m0.HeapAlloc)/(1<<20), float64(m1.HeapAlloc)/(1<<20))
	fmt.Printf("| save in editor → searchable (in the link graph and the search index), p50 / p99 | %v / %v | p50 ≤ 300 ms |\n", pct(indexed, 50), pct(indexed, 99))
	fmt.Printf("| save in editor → committed, p50 / p99 (quiet period %v) | %v / %v | ≤ quiet + 100 ms |\n", *quiet, pct(committed, 50), pct(committed, 99))
	fmt.Printf("| full reconcile, %d notes, nothing changed | %v | ≤ 1 s |\n", *notes, idle.Round(time.Millisecond))
	fmt.Printf("| full reconcile, 1,000 notes changed (%d found) | %v | |\n", len(changed), busy.Round(time.Millisecond))
}

func pct(d []time.Duration, p int) time.Duration {
	return measure.Pct(d, p).Round(time.Millisecond)
}

func git(dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		panic(fmt.Sprintf("git %v: %v\n%s", args, err, out))
	}
	return string(out)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
