package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/bench/mcpproc"
	"github.com/cairn-dev/cairn/host"
)

// hostOf is the process among procs that holds the host lock.
func hostOf(dir string, procs []*mcpproc.Proc) (*mcpproc.Proc, error) {
	pid := host.HolderPID(dir)
	for _, p := range procs {
		if p.PID() == pid {
			return p, nil
		}
	}
	return nil, fmt.Errorf("the host lock names process %d, none of the benchmark's", pid)
}

// answerSize is the size of a call's result as JSON (content and
// structured content): what the host encodes and the front end decodes
// and encodes again.
func answerSize(p *mcpproc.Proc, tool string, args map[string]any) (int, error) {
	res, err := p.CallResult(tool, args, nil)
	if err != nil {
		return 0, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return 0, fmt.Errorf("%s on %s: encode its result: %w", tool, p.Name, err)
	}
	return len(b), nil
}

// searchOut is the part of search's answer the benchmark reads.
type searchOut struct {
	VectorsPending int               `json:"vectorsPending"`
	IndexPending   int               `json:"indexPending"`
	Results        []json.RawMessage `json:"results"`
}

// waitReady searches through p until the index holds every note and
// every vector (a search answered while they are made is slower).
func waitReady(p *mcpproc.Proc, query string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		var s searchOut
		if err := p.Call("search", map[string]any{"query": query}, &s); err != nil {
			return err
		}
		if s.VectorsPending == 0 && s.IndexPending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("index not ready after %s: %d vectors and %d notes pending", within, s.VectorsPending, s.IndexPending)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
