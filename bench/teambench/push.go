package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
)

// pushRow is what k clones pushing at once through one bare remote
// measured.
type pushRow struct {
	clones     int
	took       time.Duration
	accepted   int             // syncs whose push the remote accepted
	rejected   int             // pushes rejected (someone pushed first): fetched, merged, tried again
	failed     []string        // other failures
	latency    []time.Duration // from a commit to its accepted push
	onRemote   int             // notes of the run on the remote's main at the end
	wantRemote int             // notes committed
}

// runPush measures the push rate one bare remote (a local path) sustains
// when each of k clones, for -push-for, commits a note and syncs it out
// (teamsync.Sync with one try: a rejected push is counted here, and the
// sync run again: fetch, merge, push) without pausing. The clones are
// vaults opened in this process, as a server holds them.
func runPush(c config, tmp string) error {
	fmt.Printf("%d CPUs, load average %s; each clone: commit one new note, then teamsync.Sync (fetch, merge, push) until its push is accepted, at once again; for %s\n\n",
		runtime.NumCPU(), measure.LoadAvg(), c.pushFor)
	var rows []pushRow
	for _, k := range c.pushClones {
		fmt.Fprintf(errOut, "teambench: %d clones pushing for %s\n", k, c.pushFor)
		r, err := pushRound(c, filepath.Join(tmp, fmt.Sprintf("push%d", k)), k)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	fmt.Println("| clones pushing at once | accepted pushes | accepted pushes/s | rejected pushes (per accepted) | commit → accepted push p50 / p99 | other failures | the run's notes on the remote |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %d | %d | %.2f | %d (%.2f) | %s / %s | %d | %d of %d |\n", r.clones, r.accepted, float64(r.accepted)/r.took.Seconds(),
			r.rejected, float64(r.rejected)/float64(max(1, r.accepted)), secs(measure.Pct(r.latency, 50)), secs(measure.Pct(r.latency, 99)),
			len(r.failed), r.onRemote, r.wantRemote)
	}
	for _, r := range rows {
		for _, f := range first(r.failed, 5) {
			fmt.Printf("\n%d clones: %s", r.clones, f)
		}
	}
	fmt.Printf("\nload average at the end: %s\n", measure.LoadAvg())
	return nil
}

func pushRound(c config, dir string, k int) (pushRow, error) {
	r := pushRow{clones: k}
	remote := filepath.Join(dir, "remote.git")
	if err := git(filepath.Dir(dir), "init", "-q", "--bare", "-b", "main", remote); err != nil {
		return r, err
	}
	if err := initAndPush(c.sample, filepath.Join(dir, "seed"), remote); err != nil {
		return r, err
	}
	var vs []*vault.Vault
	defer func() {
		for _, v := range vs {
			v.Close()
		}
	}()
	for i := 0; i < k; i++ {
		d := filepath.Join(dir, fmt.Sprintf("c%02d", i))
		if err := teamsync.Clone(context.Background(), remote, d, ""); err != nil {
			return r, err
		}
		if _, err := vault.Init(d, vault.InitOptions{}); err != nil {
			return r, fmt.Errorf("init clone %s: %w", d, err)
		}
		v, err := vault.Open(d, vault.Options{Exclusive: true})
		if err != nil {
			return r, fmt.Errorf("open clone %s: %w", d, err)
		}
		vs = append(vs, v)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	t0 := time.Now()
	end := t0.Add(c.pushFor)
	for i, v := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(end); n++ {
				p := fmt.Sprintf("push/c%02d/Note %d.md", i, n)
				ch := gitstore.Change{Path: p, Content: fmt.Appendf(nil, "# c%02d note %d\n\nPushed by clone %d.\n", i, n, i)}
				if _, err := v.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "bench", Email: "b@x"}, Message: "push " + p, Changes: []gitstore.Change{ch}}); err != nil {
					mu.Lock()
					r.failed = append(r.failed, fmt.Sprintf("commit %s: %v", p, err))
					mu.Unlock()
					return
				}
				mu.Lock()
				r.wantRemote++
				mu.Unlock()
				committed := time.Now()
				if !pushOut(v, &mu, &r) {
					return
				}
				mu.Lock()
				r.latency = append(r.latency, time.Since(committed))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r.took = time.Since(t0)
	names, err := gitOut(remote, "ls-tree", "-r", "--name-only", "main", "push")
	if err != nil {
		return r, err
	}
	if names != "" {
		r.onRemote = len(strings.Split(names, "\n"))
	}
	return r, nil
}

// pushOut syncs v until its push is accepted, counting rejections; false
// on any other failure (recorded).
func pushOut(v *vault.Vault, mu *sync.Mutex, r *pushRow) bool {
	for {
		_, err := teamsync.Sync(context.Background(), v, teamsync.Options{Retries: 1})
		mu.Lock()
		switch {
		case err == nil:
			r.accepted++
		case strings.Contains(err.Error(), "rejected"):
			r.rejected++
		default:
			r.failed = append(r.failed, err.Error())
		}
		mu.Unlock()
		if err == nil {
			return true
		}
		if !strings.Contains(err.Error(), "rejected") {
			return false
		}
	}
}
