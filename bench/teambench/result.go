package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/measure"
)

// result is what a run measured and found.
type result struct {
	clones, acked   int
	creates         int
	appends         int
	refused         *refusals
	reach           []time.Duration
	unseen          int // writes not seen on every clone while polling
	st              settled
	missingPairs    int
	missing         []ack
	distinct        int
	dirty           []string
	fsck            []string
	markers         []string
	copies          []int // conflict copies per clone
	commits, merges string
	conflictsLogged int
	syncFailures    []string
	mems            []measure.Mem
	searched, found int
	errs            []string // checks that could not run
}

// check measures what the run left, stopping the servers on the way
// (memory and search need them; the file checks are made once they
// stopped, so that no sync moves anything under them).
func (t *team) check(acks []ack, refused *refusals, w *watch, st settled) *result {
	r := &result{clones: len(t.clones), acked: len(acks), refused: refused, st: st}
	for _, a := range acks {
		if a.kind == "create" {
			r.creates++
		} else {
			r.appends++
		}
	}
	r.reach, r.unseen = w.reach()
	for _, c := range t.clones {
		m, err := measure.MemOf(c.p.PID())
		if err != nil {
			r.errs = append(r.errs, err.Error())
			continue
		}
		r.mems = append(r.mems, m)
	}
	r.searched, r.found = t.searchOthers(acks)
	for _, c := range t.clones {
		for _, l := range strings.Split(c.p.Stderr.String(), "\n") {
			switch {
			case strings.Contains(l, "sync conflict:"):
				r.conflictsLogged++
			case strings.Contains(l, "background sync failed"):
				r.syncFailures = append(r.syncFailures, c.name+": "+strings.TrimSpace(l))
			}
		}
	}
	t.close()

	r.missingPairs, r.missing = t.missing(acks)
	var err error
	if r.distinct, r.dirty, err = t.trees(); err != nil {
		r.errs = append(r.errs, err.Error())
	}
	r.fsck = t.fsck()
	for _, c := range t.clones {
		m, n, err := scan(c.dir)
		if err != nil {
			r.errs = append(r.errs, err.Error())
		}
		for _, p := range m {
			r.markers = append(r.markers, c.name+": "+p)
		}
		r.copies = append(r.copies, n)
	}
	r.commits, _ = gitOut(t.remote, "rev-list", "--count", "main")
	r.merges, _ = gitOut(t.remote, "rev-list", "--merges", "--count", "main")
	return r
}

// searchOthers searches on each clone, lexically, the marker of a note
// another clone created (the last one, the most recent to arrive), until
// found or 30 s passed: incoming notes are searchable.
func (t *team) searchOthers(acks []ack) (searched, found int) {
	for i, c := range t.clones {
		var a *ack
		for k := len(acks) - 1; k >= 0; k-- {
			if acks[k].kind == "create" && acks[k].clone != i {
				a = &acks[k]
				break
			}
		}
		if a == nil {
			continue
		}
		searched++
		for end := time.Now().Add(30 * time.Second); ; {
			var out struct {
				Results []struct {
					Path string `json:"path"`
				} `json:"results"`
			}
			err := c.p.Call("search", map[string]any{"query": a.marker, "mode": "lexical"}, &out)
			if err == nil && len(out.Results) > 0 && out.Results[0].Path == a.path {
				found++
				break
			}
			if time.Now().After(end) {
				fmt.Fprintf(errOut, "teambench: %s: search for %s (%s) found nothing in 30 s: %v\n", c.name, a.marker, a.path, err)
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	return searched, found
}

// ok says whether every check passed: no acknowledged write missing, the
// clones identical and agreeing, fsck clean, no conflict marker.
func (r *result) ok() bool {
	return r.missingPairs == 0 && r.st.agreed && r.distinct == 1 && len(r.dirty) == 0 &&
		len(r.fsck) == 0 && len(r.markers) == 0 && len(r.errs) == 0
}

func (r *result) print(c config) {
	fmt.Printf("Agents: one write every %s (±50%%) each, %.0f%% appends to %d shared notes, for %s; polled every %s.\n\n",
		c.writeEvery, 100*c.editShare, c.shared, c.duration, c.poll)
	fmt.Println("| figure | value |")
	fmt.Println("|---|---|")
	row := func(k, f string, a ...any) { fmt.Printf("| %s | %s |\n", k, fmt.Sprintf(f, a...)) }
	row("writes acknowledged", "%d (%d create_note, %d edit_note append)", r.acked, r.creates, r.appends)
	row("writes present on every clone at the end", "%d", r.acked-len(r.missing))
	row("(write, clone) pairs missing", "%d", r.missingPairs)
	row("writes refused", "%s", r.refused.String())
	row("appends that met versionConflict and read again", "%d", r.refused.retried)
	row("time for a write to reach every clone, p50 / p99 / max", "%s / %s / %s (%d writes; %d not seen everywhere while polling)",
		secs(measure.Pct(r.reach, 50)), secs(measure.Pct(r.reach, 99)), secs(measure.Pct(r.reach, 100)), len(r.reach), r.unseen)
	row("settling after the agents stopped", "%s", r.st.String())
	row("commits on the remote / merges", "%s / %s", r.commits, r.merges)
	row("conflict copies (conflict_from) per clone", "%s", minMax(r.copies))
	row("conflicts logged by the servers", "%d", r.conflictsLogged)
	row("background syncs failed (logged)", "%d", len(r.syncFailures))
	row("clones' trees + the remote's: distinct", "%d (1 = identical); %d clones with uncommitted changes", r.distinct, len(r.dirty))
	row("git fsck failures (remote + clones)", "%d", len(r.fsck))
	row("files with a conflict marker line", "%d", len(r.markers))
	row("incoming note found by search", "%d of %d clones", r.found, r.searched)
	row("serve RSS median / max, peak (VmHWM) max", "%s", memRow(r.mems))
	var notes []string
	for _, a := range r.missing {
		notes = append(notes, fmt.Sprintf("MISSING: %s %s %s by c%02d at %s", a.kind, a.path, a.marker, a.clone, a.at.Format(time.RFC3339Nano)))
	}
	notes = append(notes, prefix("uncommitted: ", r.dirty)...)
	notes = append(notes, prefix("fsck: ", r.fsck)...)
	notes = append(notes, prefix("conflict marker: ", r.markers)...)
	notes = append(notes, prefix("sync error: ", r.st.syncErrors)...)
	notes = append(notes, prefix("", first(r.syncFailures, 10))...)
	notes = append(notes, prefix("could not check: ", r.errs)...)
	for _, n := range notes {
		fmt.Println("\n" + n)
	}
	if r.ok() {
		fmt.Println("\nPASS: every acknowledged write is on every clone; clones identical; fsck clean; no conflict marker.")
	} else {
		fmt.Println("\nFAIL: see above.")
	}
}

func (r *refusals) String() string {
	if len(r.reasons) == 0 {
		return "0"
	}
	var parts []string
	for k, n := range r.reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func (s settled) String() string {
	switch {
	case s.background > 0:
		return fmt.Sprintf("the background syncs alone, %s", secs(s.background))
	case s.agreed:
		return fmt.Sprintf("%d round(s) of cairn sync after %s of background syncs; %s in all", s.rounds, s.waited, secs(s.took))
	default:
		return fmt.Sprintf("NOT SETTLED after %d rounds of cairn sync (%s)", s.rounds, secs(s.took))
	}
}

func memRow(ms []measure.Mem) string {
	if len(ms) == 0 {
		return "-"
	}
	var rss []int
	var hwm uint64
	for _, m := range ms {
		rss = append(rss, int(m.RSS))
		hwm = max(hwm, m.HWM)
	}
	sort.Ints(rss)
	return fmt.Sprintf("%s / %s, %s", mib(uint64(rss[len(rss)/2])), mib(uint64(rss[len(rss)-1])), mib(hwm))
}

func minMax(n []int) string {
	if len(n) == 0 {
		return "-"
	}
	lo, hi := n[0], n[0]
	for _, x := range n {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

func prefix(p string, s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = p + x
	}
	return out
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
