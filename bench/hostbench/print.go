package main

import (
	"fmt"
	"os"
	"time"

	"github.com/cairn-dev/cairn/bench/measure"
)

// errOut receives progress, so that stdout holds only the tables.
var errOut = os.Stderr

// printTables writes the tables, in Markdown as docs/benchmarks.md has them.
func printTables(res []*result, calls, rounds int, idle time.Duration) {
	fmt.Println("Start → first call answered:")
	fmt.Println()
	fmt.Println("| vault | notes | first process (opens the vault, hosts) | second process (attaches) |")
	fmt.Println("|---|---|---|---|")
	for _, r := range res {
		fmt.Printf("| %s | %d | %s | %s |\n", r.bv.label, r.bv.total, ms(r.hostUp), ms(r.attachedUp))
	}
	fmt.Println()
	fmt.Printf("Per call, the host's own client and an attached client taking turns, %d calls each:\n\n", calls)
	fmt.Println("| vault | tool | answer (JSON) | host's client p50 / p99 | attached client p50 / p99 | attaching adds p50 / p99 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, r := range res {
		for _, t := range r.tools {
			h50, h99 := measure.Pct(t.host, 50), measure.Pct(t.host, 99)
			a50, a99 := measure.Pct(t.attached, 50), measure.Pct(t.attached, 99)
			fmt.Printf("| %s | %s | %s | %s / %s | %s / %s | %s / %s |\n", r.bv.label, t.tool, size(t.bytes),
				ms(h50), ms(h99), ms(a50), ms(a99), signedMS(a50-h50), signedMS(a99-h99))
		}
	}
	fmt.Println()
	fmt.Println("Memory (/proc/PID/status):")
	fmt.Println()
	fmt.Println("| vault | process | when | VmRSS | VmHWM (peak) |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range res {
		for _, m := range r.mems {
			fmt.Printf("| %s | %s | %s | %s | %s |\n", r.bv.label, m.process, m.when, mib(m.m.RSS), mib(m.m.HWM))
		}
	}
	fmt.Println()
	then := ""
	if idle > 0 {
		then = fmt.Sprintf(", then once after %s without a write", idle)
	}
	fmt.Printf("The host killed (SIGKILL) with two processes attached, %d times per vault 1 s after a write (its index ready)%s; median / max over the kills, from the kill:\n\n", rounds, then)
	fmt.Println("| vault | kills | new host took over (logged) | first get_note answered | get_note answered on both | first search answered | vectors pending in it | every vector made (±200 ms) | index rebuilt | documents re-indexed at open (max) | calls failed |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range res {
		killRow(r.bv.label, "1 s after a write", r.rounds)
		if r.saved != nil {
			killRow(r.bv.label, fmt.Sprintf("%s after a write", idle), []round{*r.saved})
		}
	}
	for _, r := range res {
		for _, rd := range append(r.rounds, saved(r)...) {
			if rd.rebuilt != "" {
				fmt.Printf("\n%s: the new host rebuilt its index: %s", r.bv.label, rd.rebuilt)
				break
			}
		}
	}
	for _, r := range res {
		for i, rd := range r.rounds {
			for _, f := range rd.failed {
				fmt.Printf("\n%s, kill %d: %s", r.bv.label, i+1, f)
			}
		}
		for _, rd := range saved(r) {
			for _, f := range rd.failed {
				fmt.Printf("\n%s, kill after idle: %s", r.bv.label, f)
			}
		}
	}
	fmt.Println()
}

// killRow prints the figures of some kills.
func killRow(label, when string, rounds []round) {
	var took, first, all, search, ready []time.Duration
	pending, failed, rebuilt, reindexed := 0, 0, 0, 0
	for _, rd := range rounds {
		took = append(took, rd.tookOver)
		first, all, search, ready = append(first, rd.firstGet), append(all, rd.allGet), append(search, rd.firstSearch), append(ready, rd.ready)
		pending = max(pending, rd.vectorsPending)
		failed += len(rd.failed)
		reindexed = max(reindexed, rd.reindexed)
		if rd.rebuilt != "" {
			rebuilt++
		}
	}
	fmt.Printf("| %s | %d, %s | %s | %s | %s | %s | ≤ %d | %s | %d of %d | %d | %d |\n", label, len(rounds), when,
		medMax(took), medMax(first), medMax(all), medMax(search), pending, medMax(ready), rebuilt, len(rounds), reindexed, failed)
}

func saved(r *result) []round {
	if r.saved == nil {
		return nil
	}
	return []round{*r.saved}
}

// size is the mean of sizes in bytes, or KiB past 10 KiB.
func size(sizes []int) string {
	if len(sizes) == 0 {
		return "-"
	}
	sum := 0
	for _, n := range sizes {
		sum += n
	}
	mean := sum / len(sizes)
	if mean >= 10<<10 {
		return fmt.Sprintf("%.0f KiB", float64(mean)/1024)
	}
	return fmt.Sprintf("%d B", mean)
}

// medMax is "median / max" of d.
func medMax(d []time.Duration) string {
	if len(d) == 0 {
		return "-"
	}
	return ms(measure.Pct(d, 50)) + " / " + ms(measure.Pct(d, 100))
}
