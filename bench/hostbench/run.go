package main

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/mcpproc"
	"github.com/cairn-dev/cairn/bench/measure"
)

// readyWithin bounds the wait for an index to hold every note and vector.
const readyWithin = 20 * time.Minute

// result is what one vault measured.
type result struct {
	bv                 *benchVault
	hostUp, attachedUp time.Duration // start → first call answered
	tools              []toolLatency
	mems               []memRow
	rounds             []round
	// saved is a kill after the host sat idle past its periodic save of
	// derived state (vault.Maintain), so the next host can reuse it;
	// rounds are kills right after a write.
	saved *round
}

type toolLatency struct {
	tool           string
	host, attached []time.Duration
	bytes          []int // the size of each answer, from extra calls
}

type memRow struct {
	process, when string
	m             measure.Mem
}

// round is one kill of the host.
type round struct {
	// From the kill: the new host logged that it took over (it holds the
	// lock and opened the vault), the first and the last surviving
	// client's get_note answered, the first search answered, and a search
	// with every vector made (polled every 200 ms).
	tookOver, firstGet, allGet, firstSearch, ready time.Duration
	vectorsPending                                 int // in the first search answered
	// rebuilt is why the new host rebuilt the search index ("" when it
	// reused the one on disk), from its log.
	rebuilt string
	// reindexed is how many documents the new host found out of step with
	// its index's manifest and indexed again (search/reconcile.go).
	reindexed int
	failed    []string
}

// run measures one vault: latency, memory, then takeovers.
func run(bin string, bv *benchVault, sents []string, calls, rounds int, idle time.Duration) (*result, error) {
	r := &result{bv: bv}
	rng := rand.New(rand.NewSource(3))
	t0 := time.Now()
	a, err := mcpproc.Start(bin, bv.dir, "A")
	if err != nil {
		return nil, err
	}
	if err := a.Call("whoami", nil, nil); err != nil {
		return nil, err
	}
	r.hostUp = time.Since(t0)
	if h, err := hostOf(bv.dir, []*mcpproc.Proc{a}); err != nil || h != a {
		return nil, fmt.Errorf("A does not host: %v", err)
	}
	if err := waitReady(a, corpus.Query(rng, sents), readyWithin); err != nil {
		return nil, err
	}
	time.Sleep(2 * time.Second) // Bleve's merges settle
	t0 = time.Now()
	b, err := mcpproc.Start(bin, bv.dir, "B")
	if err != nil {
		return nil, err
	}
	if err := b.Call("whoami", nil, nil); err != nil {
		return nil, err
	}
	r.attachedUp = time.Since(t0)
	if h, err := hostOf(bv.dir, []*mcpproc.Proc{a, b}); err != nil || h != a {
		return nil, fmt.Errorf("B does not attach to A: %v", err)
	}
	procs := []*mcpproc.Proc{a, b}
	defer func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].Close()
		}
	}()
	if err := r.memory(a, b, "idle (index ready)"); err != nil {
		return nil, err
	}
	if r.tools, err = latency(a, b, bv, sents, rng, calls); err != nil {
		return nil, err
	}
	if err := r.memory(a, b, fmt.Sprintf("after the %d calls", 8*calls)); err != nil {
		return nil, err
	}
	c, err := mcpproc.Start(bin, bv.dir, "C")
	if err != nil {
		return nil, err
	}
	procs = append(procs, c)
	if err := c.Call("whoami", nil, nil); err != nil {
		return nil, err
	}
	for i := 0; i < rounds; i++ {
		fmt.Fprintf(errOut, "hostbench: %s, kill %d of %d\n", bv.label, i+1, rounds)
		rd, rest, err := kill(bin, bv, procs, fmt.Sprintf("R%d", i+1), rng, sents, 0)
		procs = rest
		if err != nil {
			return nil, err
		}
		r.rounds = append(r.rounds, rd)
	}
	if idle > 0 {
		fmt.Fprintf(errOut, "hostbench: %s, kill after %s idle\n", bv.label, idle)
		rd, rest, err := kill(bin, bv, procs, "S", rng, sents, idle)
		procs = rest
		if err != nil {
			return nil, err
		}
		r.saved = &rd
	}
	return r, nil
}

func (r *result) memory(a, b *mcpproc.Proc, when string) error {
	for _, p := range []struct {
		name string
		p    *mcpproc.Proc
	}{{"host (A)", a}, {"attached (B)", b}} {
		m, err := measure.MemOf(p.p.PID())
		if err != nil {
			return err
		}
		r.mems = append(r.mems, memRow{p.name, when, m})
	}
	return nil
}

// latency calls each tool calls times on the host's client (a) and on
// the attached one (b), taking turns.
func latency(a, b *mcpproc.Proc, bv *benchVault, sents []string, rng *rand.Rand, calls int) ([]toolLatency, error) {
	type gen func(i int, who string) map[string]any
	var query string
	var ref string
	tools := []struct {
		name string
		args gen
	}{
		{"whoami", func(int, string) map[string]any { return map[string]any{} }},
		{"get_note", func(i int, who string) map[string]any {
			if who == "" {
				ref = bv.notes[rng.Intn(len(bv.notes))]
			}
			return map[string]any{"ref": ref}
		}},
		{"search", func(i int, who string) map[string]any {
			if who == "" {
				query = corpus.Query(rng, sents)
			}
			return map[string]any{"query": query}
		}},
		{"create_note", func(i int, who string) map[string]any {
			var body strings.Builder
			fmt.Fprintf(&body, "# Hostbench %s %d\n\n", who, i)
			for body.Len() < 600 {
				body.WriteString(sents[rng.Intn(len(sents))] + " ")
			}
			return map[string]any{"project": bv.project, "path": bv.folders[i%len(bv.folders)], "body": body.String()}
		}},
	}
	var out []toolLatency
	for _, t := range tools {
		tl := toolLatency{tool: t.name}
		for i := 0; i < calls; i++ {
			t.args(i, "") // the arguments both clients share this turn
			order := []*mcpproc.Proc{a, b}
			if i%2 == 1 {
				order = []*mcpproc.Proc{b, a}
			}
			for _, p := range order {
				args := t.args(i, p.Name)
				t0 := time.Now()
				if err := p.Call(t.name, args, nil); err != nil {
					return nil, err
				}
				d := time.Since(t0)
				if p == a {
					tl.host = append(tl.host, d)
				} else {
					tl.attached = append(tl.attached, d)
				}
			}
			if i%10 == 0 && t.name != "create_note" {
				// Untimed: how much JSON the front end handles.
				n, err := answerSize(a, t.name, t.args(i, a.Name))
				if err != nil {
					return nil, err
				}
				tl.bytes = append(tl.bytes, n)
			}
		}
		out = append(out, tl)
	}
	return out, nil
}

// kill kills the host of procs and times the survivors' first answers,
// then replaces the killed process by a new one (named name) that
// attaches. It returns the processes now running. Before the kill, when
// idle is 0, one of the attached clients creates a note (so the host's
// index changed since it last saved it, as while agents write) and the
// index is left 1 s once it holds it and its vectors; else nothing is
// written and the host sits idle that long (past its periodic save).
func kill(bin string, bv *benchVault, procs []*mcpproc.Proc, name string, rng *rand.Rand, sents []string, idle time.Duration) (round, []*mcpproc.Proc, error) {
	var rd round
	h, err := hostOf(bv.dir, procs)
	if err != nil {
		return rd, procs, err
	}
	if idle == 0 {
		w := procs[0]
		if w == h {
			w = procs[1]
		}
		args := map[string]any{"project": bv.project, "path": bv.folders[0], "body": "# Hostbench before kill " + name + "\n\n" + sents[rng.Intn(len(sents))]}
		if err := w.Call("create_note", args, nil); err != nil {
			return rd, procs, err
		}
	}
	if err := waitReady(h, corpus.Query(rng, sents), readyWithin); err != nil {
		return rd, procs, err
	}
	time.Sleep(max(idle, time.Second)) // Bleve's merges settle
	var others []*mcpproc.Proc
	logged := map[*mcpproc.Proc]int{}
	for _, p := range procs {
		if p != h {
			others = append(others, p)
			logged[p] = len(p.Stderr.String())
		}
	}
	ref := bv.notes[rng.Intn(len(bv.notes))]
	query := corpus.Query(rng, sents)
	t0 := time.Now()
	if err := h.Kill(); err != nil {
		return rd, procs, err
	}
	rd = survive(t0, others, ref, query)
	if err := h.Close(); err != nil {
		return rd, procs, err
	}
	nh, err := hostOf(bv.dir, others)
	if err != nil {
		return rd, others, fmt.Errorf("after the kill: %w", err)
	}
	if err := waitReady(nh, query, readyWithin); err != nil {
		return rd, others, err
	}
	rd.ready = time.Since(t0)
	if at, ok := nh.Stderr.When("took over", logged[nh]); ok {
		rd.tookOver = at.Sub(t0)
	}
	if _, after, ok := strings.Cut(nh.Stderr.String()[logged[nh]:], "search index: rebuilding ("); ok {
		rd.rebuilt, _, _ = strings.Cut(after, ")\n")
	}
	if before, _, ok := strings.Cut(nh.Stderr.String()[logged[nh]:], " documents out of step with the manifest"); ok {
		if i := strings.LastIndex(before, "search index: "); i >= 0 {
			rd.reindexed, _ = strconv.Atoi(before[i+len("search index: "):])
		}
	}
	p, err := mcpproc.Start(bin, bv.dir, name)
	if err != nil {
		return rd, others, err
	}
	others = append(others, p)
	if err := p.Call("whoami", nil, nil); err != nil {
		return rd, others, err
	}
	if h, err := hostOf(bv.dir, others); err != nil || h == p {
		return rd, others, fmt.Errorf("%s did not attach: %v", name, err)
	}
	return rd, others, nil
}

// survive has each client of others, at once, call get_note (which waits
// for a new host) then search, right after the host was killed at t0.
func survive(t0 time.Time, others []*mcpproc.Proc, ref, query string) round {
	type answer struct {
		get, search time.Duration
		pending     int
		failed      []string
	}
	answers := make([]answer, len(others))
	var wg sync.WaitGroup
	for i, p := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			an := &answers[i]
			if err := p.Call("get_note", map[string]any{"ref": ref}, nil); err != nil {
				an.failed = append(an.failed, err.Error())
			}
			an.get = time.Since(t0)
			var s searchOut
			if err := p.Call("search", map[string]any{"query": query}, &s); err != nil {
				an.failed = append(an.failed, err.Error())
			}
			an.search, an.pending = time.Since(t0), s.VectorsPending
		}()
	}
	wg.Wait()
	rd := round{firstGet: answers[0].get, firstSearch: answers[0].search, vectorsPending: answers[0].pending}
	for _, an := range answers {
		rd.firstGet, rd.allGet = min(rd.firstGet, an.get), max(rd.allGet, an.get)
		if an.search < rd.firstSearch {
			rd.firstSearch, rd.vectorsPending = an.search, an.pending
		}
		rd.failed = append(rd.failed, an.failed...)
	}
	return rd
}
