package main

import (
	"fmt"
	"math/rand"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/bench/mcpproc"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
)

// project is the sample vault's project the agents write in.
const project = "acme"

// team is the clones under measure.
type team struct {
	cfg    config
	bin    string
	remote string
	start  time.Time
	clones []*clone
}

// clone is one member's machine: a clone of the remote and its server.
type clone struct {
	name string
	dir  string
	p    *mcpproc.Proc
	mem  measure.Mem // read before the server stops
}

// ack is one acknowledged write.
type ack struct {
	clone  int
	kind   string // "create" or "append"
	path   string // vault-relative: the note created, or the shared note appended to
	marker string // a word found nowhere else
	at     time.Time
}

// initAndPush makes the first member's vault from tpl in dir and pushes
// it to remote, as a team's first member does (cairn init, then a push).
func initAndPush(tpl, dir, remote string) error {
	if _, err := vault.Init(dir, vault.InitOptions{From: tpl}); err != nil {
		return fmt.Errorf("seed vault: %w", err)
	}
	if err := git(dir, "remote", "add", "origin", remote); err != nil {
		return err
	}
	return git(dir, "push", "-q", "origin", "HEAD:refs/heads/main")
}

// refusals counts the writes an agent tried that were not acknowledged,
// by reason.
type refusals struct {
	mu      sync.Mutex
	reasons map[string]int
	retried int // appends that met versionConflict and read the note again
}

func (r *refusals) add(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reasons == nil {
		r.reasons = map[string]int{}
	}
	r.reasons[reason]++
}

// write runs one agent per clone until the run's duration is over and
// returns every acknowledged write, each also handed to w as it is
// acknowledged.
func (t *team) write(rng *rand.Rand, w *watch) ([]ack, *refusals) {
	end := time.Now().Add(t.cfg.duration)
	var (
		mu   sync.Mutex
		acks []ack
		wg   sync.WaitGroup
	)
	ref := &refusals{}
	for i, c := range t.clones {
		r := rand.New(rand.NewSource(rng.Int63())) // one per agent: rand.Rand is not safe to share
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				pause := time.Duration(float64(t.cfg.writeEvery) * (0.5 + r.Float64()))
				if time.Now().Add(pause).After(end) {
					return
				}
				time.Sleep(pause)
				a, err := t.writeOnce(i, c, n, r, ref)
				if err != nil {
					ref.add(reason(err))
					fmt.Fprintf(errOut, "teambench: %s: write %d not acknowledged: %v\n", c.name, n, err)
					continue
				}
				w.add(a)
				mu.Lock()
				acks = append(acks, a)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return acks, ref
}

// writeOnce makes one write of agent i: a new note, or an append to a
// shared note.
func (t *team) writeOnce(i int, c *clone, n int, r *rand.Rand, ref *refusals) (ack, error) {
	a := ack{clone: i, marker: fmt.Sprintf("tbm%02dw%04d%s", i, n, letters(r, 4))}
	if r.Float64() >= t.cfg.editShare {
		a.kind = "create"
		body := fmt.Sprintf("# Teambench %s write %d\n\nMarker %s, written by the agent of %s.\n", c.name, n, a.marker, c.name)
		var out struct {
			Path string `json:"path"`
		}
		args := map[string]any{"project": project, "path": "teambench/" + c.name, "body": body}
		if err := c.p.Call("create_note", args, &out); err != nil {
			return a, err
		}
		a.path, a.at = out.Path, time.Now()
		return a, nil
	}
	a.kind = "append"
	a.path = path.Join(sharedFolder, sharedTitle(1+r.Intn(t.cfg.shared))+".md")
	for try := 0; ; try++ {
		var note struct {
			VersionToken string `json:"versionToken"`
		}
		if err := c.p.Call("get_note", map[string]any{"ref": a.path}, &note); err != nil {
			return a, err
		}
		args := map[string]any{"ref": a.path, "versionToken": note.VersionToken, "operation": "append",
			"content": fmt.Sprintf("- %s appended %s", c.name, a.marker)}
		err := c.p.Call("edit_note", args, nil)
		if err == nil {
			a.at = time.Now()
			return a, nil
		}
		if !strings.Contains(err.Error(), "versionConflict") || try == 2 {
			return a, err
		}
		ref.mu.Lock()
		ref.retried++
		ref.mu.Unlock()
	}
}

// reason is the kind of a refused write, for counting.
func reason(err error) string {
	switch s := err.Error(); {
	case strings.Contains(s, "versionConflict"):
		return "versionConflict 3 times"
	case strings.Contains(s, "isError"):
		return "tool error"
	default:
		return "transport error"
	}
}

func letters(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.Intn(26))
	}
	return string(b)
}

// close stops every server still running.
func (t *team) close() {
	for _, c := range t.clones {
		if c.p != nil {
			if err := c.p.Close(); err != nil {
				fmt.Fprintln(errOut, "teambench:", err)
			}
			c.p = nil
		}
	}
}
