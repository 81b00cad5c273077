// Command vaultbench measures the foundation's figures on a generated vault:
// open cold and warm, create_note / edit_note / get_note through MCP over
// loopback HTTP from one client, and the git command line committing one
// file in the same repository, for the ratio.
//
//	go run ./bench/vaultbench -notes 10000 -folders 100
//
// The vault is generated with `git fast-import` (one commit per note, so the
// history has as many commits as notes) into a temporary folder.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	notes := flag.Int("notes", 10000, "notes (and commits) in the generated vault")
	folders := flag.Int("folders", 100, "folders they are spread over")
	words := flag.Int("words", 300, "words per note")
	writes := flag.Int("writes", 300, "create_note and edit_note calls each")
	reads := flag.Int("reads", 2000, "get_note calls")
	gitRuns := flag.Int("git", 50, "git add + git commit runs for the baseline")
	keep := flag.String("dir", "", "generate here and keep it (default: a temporary folder, removed)")
	gap := flag.Duration("gap", 0, "pause between writes (a client that is not writing flat out)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the MCP calls to this file")
	traceFile := flag.String("trace", "", "write an execution trace of the creates and edits to this file (where a write waits: go tool trace -pprof=syscall FILE, -pprof=sync)")
	allocprofile := flag.String("allocprofile", "", "write what the writes allocated: FILE.before and FILE, two heap profiles taken before the creates and after the edits (go tool pprof -sample_index=alloc_space -base FILE.before FILE)")
	flag.Parse()

	dir := *keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "cairn-bench-")
		must(err)
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "vault")
	}
	t0 := time.Now()
	paths, err := corpus.DeepHistory(dir, *notes, *folders, *words, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	must(err)
	fmt.Printf("generated %d notes in %d folders, %d commits, in %v\n\n", len(paths), *folders, *notes, time.Since(t0).Round(time.Millisecond))

	// The version map alone: one pruned walk of the whole history.
	t0 = time.Now()
	gs, err := gitstore.Open(dir, gitstore.Options{})
	must(err)
	mapBuild := time.Since(t0)
	_ = gs.Close()

	// Open cold: no derived state at all.
	os.RemoveAll(filepath.Join(dir, vault.CacheDir))
	t0 = time.Now()
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	cold := time.Since(t0)
	must(v.Close())
	t0 = time.Now()
	v, err = vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	warm := time.Since(t0)
	// As `cairn serve` does: the search index is open, so every write
	// below also updates it (in the background) and queues its vectors.
	ix, err := v.SearchIndex()
	must(err)
	ix.WaitVectors(10 * time.Minute)

	// Serve over loopback HTTP, one client.
	srv := mcptools.NewServer(v, mcptools.NewRegistry(), "bench")
	tokens := mcptools.NewTokenStore(dir)
	tok, _, err := tokens.Create(mcptools.TokenRecord{Principal: "owner", Scope: "write"})
	must(err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	hs := &http.Server{Handler: mcptools.HTTPHandler(srv, tokens, mcptools.HTTPOptions{})}
	go hs.Serve(ln)
	c, err := client.NewStreamableHttpClient("http://"+ln.Addr().String()+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	must(err)
	ctx := context.Background()
	must(c.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultbench", Version: "1"}
	_, err = c.Initialize(ctx, init)
	must(err)

	var ss vault.SessionStart
	call(c, "start_session", map[string]any{"project": "space"}, &ss) // the first visit sets the mark
	rng := rand.New(rand.NewSource(2))
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		must(err)
		must(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	if *allocprofile != "" {
		must(writeAllocs(*allocprofile + ".before"))
	}
	var traceOut *os.File
	if *traceFile != "" {
		traceOut, err = os.Create(*traceFile)
		must(err)
		must(trace.Start(traceOut))
	}
	var created []string
	createLat := timeGapN(*writes, *gap, func(i int) {
		var w vault.Written
		call(c, "create_note", map[string]any{"project": "space", "path": fmt.Sprintf("space/f%03d", i%*folders),
			"body": fmt.Sprintf("# Bench created %d\n\n%s\n", i, corpus.Words(rng, *words))}, &w)
		created = append(created, w.ID)
	})
	createTotal := sum(createLat)
	var note vault.NoteView
	call(c, "get_note", map[string]any{"ref": created[0]}, &note)
	token := note.VersionToken
	editLat := timeGapN(*writes, *gap, func(i int) {
		var w vault.Written
		call(c, "edit_note", map[string]any{"ref": created[0], "versionToken": token, "operation": "append", "content": fmt.Sprintf("Line %d.", i)}, &w)
		token = w.VersionToken
	})
	if *allocprofile != "" {
		must(writeAllocs(*allocprofile))
	}
	if traceOut != nil {
		trace.Stop()
		must(traceOut.Close())
	}
	getLat := timeN(*reads, func(i int) {
		var n vault.NoteView
		call(c, "get_note", map[string]any{"ref": paths[rng.Intn(len(paths))]}, &n)
	})
	t0 = time.Now()
	call(c, "start_session", map[string]any{"project": "space"}, &ss)
	sessionDelta := time.Since(t0)
	deltaCommits := 2 * *writes
	sessionEmpty := timeN(50, func(i int) {
		call(c, "start_session", map[string]any{"project": "space"}, &ss)
		if len(ss.Project.Delta.Changes) != 0 {
			panic("second start_session in a row has a delta")
		}
	})
	actLat := timeN(100, func(i int) {
		var a vault.ActivityPage
		call(c, "recent_activity", map[string]any{"limit": 20}, &a)
		if len(a.Activity) != 20 {
			panic(fmt.Sprintf("recent_activity returned %d", len(a.Activity)))
		}
	})
	// get_note without the transport: the vault's own cost.
	owner := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Tool: "bench"}
	getDirect := timeN(*reads, func(i int) {
		_, err := v.GetNote(owner, paths[rng.Intn(len(paths))], false, "")
		must(err)
	})
	pprof.StopCPUProfile()
	c.Close()
	hs.Close()
	must(v.Close())

	// git CLI baseline: the same commit (one file) in the same repository.
	gitLat := timeN(*gitRuns, func(i int) {
		p := fmt.Sprintf("space/f%03d/git-baseline-%d.md", i%*folders, i)
		must(os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprintf("# Git baseline %d\n\n%s\n", i, corpus.Words(rng, *words))), 0o644))
		gitRun(dir, "add", "--", p)
		gitRun(dir, "commit", "-q", "-m", "baseline", "--", p)
	})
	gitRun(dir, "fsck", "--no-progress")

	fmt.Printf("| figure | measured | goal |\n|---|---|---|\n")
	fmt.Printf("| open cold (version map built, catalog scanned) | %v | ≤ 5 s |\n", cold.Round(time.Millisecond))
	fmt.Printf("| version map alone, no cache (%d commits walked) | %v | |\n", *notes, mapBuild.Round(time.Millisecond))
	fmt.Printf("| open warm (map and catalog loaded) | %v | ≤ 0.5 s |\n", warm.Round(time.Millisecond))
	fmt.Printf("| create_note p50 / p99 (MCP, HTTP) | %v / %v | p50 ≤ 15 ms |\n", pct(createLat, 50), pct(createLat, 99))
	fmt.Printf("| edit_note p50 / p99 (MCP, HTTP) | %v / %v | p50 ≤ 15 ms |\n", pct(editLat, 50), pct(editLat, 99))
	fmt.Printf("| sustained writes/s, one client (creates) | %.0f | ≥ 60 |\n", float64(len(createLat))/createTotal.Seconds())
	fmt.Printf("| sustained writes/s, one client (edits) | %.0f | ≥ 60 |\n", float64(len(editLat))/sum(editLat).Seconds())
	fmt.Printf("| get_note p50 / p99 (MCP, HTTP) | %v / %v | p50 ≤ 1 ms |\n", pct(getLat, 50), pct(getLat, 99))
	fmt.Printf("| get_note p50 / p99 (vault, no transport) | %v / %v | |\n", pct(getDirect, 50), pct(getDirect, 99))
	fmt.Printf("| recent_activity (20 notes) p50 / p99 (MCP, HTTP) | %v / %v | |\n", pct(actLat, 50), pct(actLat, 99))
	fmt.Printf("| start_session, delta of %d commits (MCP, HTTP) | %v | ≤ 50 ms at 1,000 |\n", deltaCommits, sessionDelta.Round(10*time.Microsecond))
	fmt.Printf("| start_session, empty delta, p50 (MCP, HTTP) | %v | ≤ 10 ms |\n", pct(sessionEmpty, 50))
	fmt.Printf("| git add + git commit of one file, p50 / p99 | %v / %v | |\n", pct(gitLat, 50), pct(gitLat, 99))
	fmt.Printf("| cairn write p50 / git CLI p50 | create %.2f×, edit %.2f× | |\n",
		float64(pct(createLat, 50))/float64(pct(gitLat, 50)), float64(pct(editLat, 50))/float64(pct(gitLat, 50)))
}

func call(c *client.Client, name string, args map[string]any, out any) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	must(err)
	if res.IsError {
		panic(fmt.Sprintf("%s: %v", name, res.Content))
	}
	b, _ := json.Marshal(res.StructuredContent)
	must(json.Unmarshal(b, out))
}

func timeN(n int, f func(i int)) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		t := time.Now()
		f(i)
		out[i] = time.Since(t)
	}
	return out
}

// timeGapN is timeN with a pause before each call, not counted.
func timeGapN(n int, gap time.Duration, f func(i int)) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		time.Sleep(gap)
		t := time.Now()
		f(i)
		out[i] = time.Since(t)
	}
	return out
}

func pct(d []time.Duration, p int) time.Duration {
	return measure.Pct(d, p).Round(10 * time.Microsecond)
}

func sum(d []time.Duration) time.Duration {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t
}

func gitRun(dir string, args ...string) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@cairn.local", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@cairn.local")
	if out, err := cmd.CombinedOutput(); err != nil {
		panic(fmt.Sprintf("git %v: %v\n%s", args, err, out))
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// writeAllocs writes the allocation profile so far (every allocation since
// the start, sampled) to file.
func writeAllocs(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("allocation profile: %w", err)
	}
	return f.Close()
}
