package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/bench/mcpproc"
	"github.com/cairn-dev/cairn/bench/measure"
)

// cloneAndServe times what a new member waits for at n notes: cairn clone
// of the remote (file://), then the first cairn serve of the clone: its
// first answer, its index holding every note (a lexical search is
// complete), and every vector made (bounded by -vectors-within).
func cloneAndServe(c config, tmp, bin, remote string, n int) error {
	dst := filepath.Join(tmp, "member")
	fmt.Fprintf(errOut, "teambench: cairn clone + serve at %d notes\n", n)
	t0 := time.Now()
	if out, err := exec.Command(bin, "clone", "file://"+remote, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cairn clone: %w\n%s", err, out)
	}
	cloned := time.Since(t0)
	t1 := time.Now()
	p, err := mcpproc.Start(bin, dst, "member")
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.Call("whoami", nil, nil); err != nil {
		return err
	}
	first := time.Since(t1)
	var indexed, vectors time.Duration
	pendingAtIndexed := 0
	for {
		var s struct {
			VectorsPending int `json:"vectorsPending"`
			IndexPending   int `json:"indexPending"`
		}
		if err := p.Call("search", map[string]any{"query": "remember the trip"}, &s); err != nil {
			return err
		}
		if s.IndexPending == 0 && indexed == 0 {
			indexed, pendingAtIndexed = time.Since(t1), s.VectorsPending
		}
		if indexed > 0 && s.VectorsPending == 0 {
			vectors = time.Since(t1)
			break
		}
		if indexed > 0 && time.Since(t1) > c.vectorsWithin {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	m, err := measure.MemOf(p.PID())
	if err != nil {
		return err
	}
	fmt.Printf("\nA new member at %d notes: `cairn clone file://…` %s; then `cairn serve`, from its start: first answer (whoami) %s, every note in the index (a search with indexPending 0) %s (vectors still to make then: %d), every vector made %s; its VmRSS then %s, peak %s.\n",
		n, secs(cloned), secs(first), secs(indexed), pendingAtIndexed, vectorsText(vectors, c.vectorsWithin), mib(m.RSS), mib(m.HWM))
	return nil
}

func vectorsText(d, within time.Duration) string {
	if d == 0 {
		return "not within " + within.String()
	}
	return secs(d)
}
