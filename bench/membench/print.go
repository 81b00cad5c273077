package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

func printHeader(history string, settle time.Duration, noWatch bool) {
	gogc := os.Getenv("GOGC")
	if gogc == "" {
		gogc = "100 (default)"
	}
	watch := "on"
	if noWatch {
		watch = "off"
	}
	fmt.Printf("history: %s; settle %s; watcher %s; GOGC %s; GOMAXPROCS %d; %s\n\n", history, settle, watch, gogc, runtime.GOMAXPROCS(0), runtime.Version())
}

// printRuns prints one vault size's cold and warm runs side by side: the
// process's memory, then the live heap by owner, then the mappings.
func printRuns(n int, runs []*result, sites int) {
	fmt.Printf("### %d notes\n\n", n)
	row := startTable(runs)
	secs := func(x float64) string { return fmt.Sprintf("%.1f s", x) }
	row("vault hosted / index ready / vectors made", func(r *result) string {
		return secs(r.Hosting) + " / " + secs(r.Indexed) + " / " + secs(r.Vectors)
	})
	st := func(k string) func(r *result) string { return func(r *result) string { return mib(r.Status[k]) } }
	mt := func(k string) func(r *result) string { return func(r *result) string { return mib(r.Metrics[k]) } }
	row("VmRSS after settling, before a forced GC", func(r *result) string { return mib(r.RSSSettled) })
	row("**VmRSS, steady (after GC)**", st("VmRSS"))
	row("**VmHWM (peak RSS of the build)**", st("VmHWM"))
	row("VmHWM / VmRSS", func(r *result) string {
		return fmt.Sprintf("%.2f×", float64(r.Status["VmHWM"])/float64(r.Status["VmRSS"]))
	})
	row("VmRSS after debug.FreeOSMemory", func(r *result) string { return mib(r.RSSFreed) })
	row("RssAnon / RssFile", func(r *result) string { return mib(r.Status["RssAnon"]) + " / " + mib(r.Status["RssFile"]) })
	row("RssAnon / RssFile at the largest VmRSS sampled (100 ms)", func(r *result) string { return mib(r.PeakAnon) + " / " + mib(r.PeakFile) })
	row("Go: all memory mapped by the runtime", mt("/memory/classes/total:bytes"))
	row("Go: live heap (objects)", mt("/memory/classes/heap/objects:bytes"))
	row("Go: heap free, not yet returned", mt("/memory/classes/heap/free:bytes"))
	row("Go: heap returned to the OS", mt("/memory/classes/heap/released:bytes"))
	row("Go: stacks", mt("/memory/classes/heap/stacks:bytes"))
	row("Go: peak live heap (sampled, 100 ms)", func(r *result) string { return mib(r.PeakHeap) })
	row("heap profile, all owners: steady (at the build's peak)", func(r *result) string {
		return mib(total(r.Owners)) + " (" + mib(total(r.PeakOwners)) + ")"
	})
	for _, name := range ownerNames(runs) {
		row("heap: "+name, func(r *result) string {
			return mib(ownerBytes(r.Owners, name)) + " (" + mib(ownerBytes(r.PeakOwners, name)) + ")"
		})
	}
	for _, kind := range mapKinds(runs) {
		row("mapped: "+kind+" (Rss of Size)", func(r *result) string {
			for _, m := range r.Maps {
				if m.Kind == kind {
					return mib(m.Rss) + " of " + mib(m.Size)
				}
			}
			return "–"
		})
	}
	fmt.Println()
	printWrites(runs)
	for _, r := range runs {
		printSites("steady, "+r.Start+" start", r.Owners, sites)
		printSites("at the build's peak, "+r.Start+" start", r.PeakOwners, sites)
		if r.Writes != nil {
			printSites("at the peak of the writes, "+r.Start+" start", r.Writes.PeakOwners, sites)
		}
	}
}

// startTable prints the head of a table with a column per run, and
// returns what prints a row of it.
func startTable(runs []*result) func(label string, f func(r *result) string) {
	head, rule := "| MiB |", "|---|"
	for _, r := range runs {
		head += " " + r.Start + " |"
		rule += "---:|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	return func(label string, f func(r *result) string) {
		s := "| " + label + " |"
		for _, r := range runs {
			s += " " + f(r) + " |"
		}
		fmt.Println(s)
	}
}

// printWrites prints the burst of writes of each run that made one: the
// process's memory after it, its own peak, and by owner at the peak of
// the live heap.
func printWrites(runs []*result) {
	var ws []*result
	for _, r := range runs {
		if r.Writes != nil {
			ws = append(ws, r)
		}
	}
	if len(ws) == 0 {
		return
	}
	fmt.Printf("Then %d writes (create and edit in turn), after the measurement:\n\n", ws[0].Writes.N)
	runRow := startTable(ws)
	row := func(label string, f func(w *writesResult) string) {
		runRow(label, func(r *result) string { return f(r.Writes) })
	}
	row("writes took / collections meanwhile", func(w *writesResult) string { return fmt.Sprintf("%.1f s / %d", w.Seconds, w.GCs) })
	row("create p50 / p99", func(w *writesResult) string { return fmt.Sprintf("%.1f / %.1f ms", w.Create[0], w.Create[1]) })
	row("edit p50 / p99", func(w *writesResult) string { return fmt.Sprintf("%.1f / %.1f ms", w.Edit[0], w.Edit[1]) })
	row("**VmRSS after the writes**", func(w *writesResult) string { return mib(w.RSS) })
	row("**VmHWM of the writes**", func(w *writesResult) string { return mib(w.HWM) })
	row("Go: peak live heap (sampled, 100 ms)", func(w *writesResult) string { return mib(w.PeakHeap) })
	row("heap profile, all owners, at its peak", func(w *writesResult) string { return mib(total(w.PeakOwners)) })
	var peaks [][]owned
	for _, r := range ws {
		peaks = append(peaks, r.Writes.PeakOwners)
	}
	for _, name := range ownersOver(peaks) {
		row("heap: "+name, func(w *writesResult) string { return mib(ownerBytes(w.PeakOwners, name)) })
	}
	fmt.Println()
}

// printSites lists each owner's largest allocation sites.
func printSites(when string, owners []owned, sites int) {
	fmt.Printf("Largest allocation sites, %s:\n\n", when)
	for _, o := range owners {
		if o.Bytes < 1<<20 {
			continue
		}
		fmt.Printf("- %s, %s MiB:", o.Name, mib(o.Bytes))
		for i, s := range o.Sites {
			if i == sites || s.Bytes < 256<<10 {
				break
			}
			fmt.Printf(" %s %s;", strings.TrimPrefix(s.Func, "github.com/"), mib(s.Bytes))
		}
		fmt.Println()
	}
	fmt.Println()
}

// ownerNames lists the owners holding at least 0.5 MiB in some run,
// steady or at the peak, in the first run's order.
func ownerNames(runs []*result) []string {
	var lists [][]owned
	for _, r := range runs {
		lists = append(lists, r.Owners, r.PeakOwners)
	}
	return ownersOver(lists)
}

// ownersOver lists the owners holding at least 0.5 MiB in one of lists,
// in the order first met.
func ownersOver(lists [][]owned) []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range lists {
		for _, o := range list {
			if !seen[o.Name] && o.Bytes >= 512<<10 {
				seen[o.Name] = true
				out = append(out, o.Name)
			}
		}
	}
	return out
}

func ownerBytes(owners []owned, name string) uint64 {
	for _, o := range owners {
		if o.Name == name {
			return o.Bytes
		}
	}
	return 0
}

func mapKinds(runs []*result) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range runs {
		for _, m := range r.Maps {
			if !seen[m.Kind] {
				seen[m.Kind] = true
				out = append(out, m.Kind)
			}
		}
	}
	return out
}
