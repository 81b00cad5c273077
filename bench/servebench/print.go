package main

import (
	"fmt"
	"io"
	"time"

	"github.com/cairn-dev/cairn/bench/measure"
)

// printTable prints one Markdown row per scenario, then what each first
// search reply said (too long for a cell).
func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| scenario | notes | commits | search index at start | initialize | first answer (hits) | first search with results | full index | search during the build: p50 / p99 / slowest (searches) | get_note during the build: first / p99 / slowest (reads) | edit_note during the build: p50 / slowest (edits) | VmRSS / VmHWM indexed | VmRSS / VmHWM after writes | VmRSS then idle | search once indexed: p50 / p99 (searches) | ripgrep p50 / p99 (runs) | create_note p50 / p99 | edit_note p50 / p99 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s (%d) | %s | %s | %s / %s / %s (%d) | %s / %s / %s (%d) | %s / %s (%d) | %s / %s | %s / %s | %s | %s / %s (%d) | %s / %s (%d) | %s / %s | %s / %s |\n",
			r.scenario, r.notes, r.commits, r.indexAtStart, secs(r.initialize), secs(r.firstAnswer), r.firstHits, secs(r.firstSearch), secs(r.fullIndex),
			ms(measure.Pct(r.duringBuild, 50)), ms(measure.Pct(r.duringBuild, 99)), ms(measure.Pct(r.duringBuild, 100)), len(r.duringBuild),
			ms(r.firstRead), ms(measure.Pct(r.readsDuringBuild, 99)), ms(measure.Pct(r.readsDuringBuild, 100)), len(r.readsDuringBuild),
			ms(measure.Pct(r.editsDuringBuild, 50)), ms(measure.Pct(r.editsDuringBuild, 100)), len(r.editsDuringBuild),
			mib(r.indexed.RSS), mib(r.indexed.HWM), mib(r.written.RSS), mib(r.written.HWM), mib(r.rested.RSS),
			ms(measure.Pct(r.searches, 50)), ms(measure.Pct(r.searches, 99)), len(r.searches),
			ms(measure.Pct(r.ripgrep, 50)), ms(measure.Pct(r.ripgrep, 99)), len(r.ripgrep),
			ms(measure.Pct(r.creates, 50)), ms(measure.Pct(r.creates, 99)), ms(measure.Pct(r.edits, 50)), ms(measure.Pct(r.edits, 99)))
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "- %d notes, %d commits, %s: first search reply %s; get_note during the build: %d of %d over 1 s, the last %s after the start; VmRSS indexed: %s anonymous + %s of files, after writes: %s + %s\n",
			r.notes, r.commits, r.scenario, r.firstReply, r.slowReads, len(r.readsDuringBuild), secs(r.lastSlowRead),
			mib(r.indexed.Anon), mib(r.indexed.File), mib(r.written.Anon), mib(r.written.File))
	}
}

// secs prints a duration in seconds.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// ms prints a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
