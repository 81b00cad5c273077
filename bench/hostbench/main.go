// Command hostbench measures what serving one vault from many processes
// costs (package host): the per-call overhead of a client whose `cairn
// serve` is attached to the host against the host's own client, the time
// to take over after the host is killed, and the memory of a host and of
// an attached process.
//
// Run it from the repository root (it builds ./cmd/cairn into a temporary
// folder and drives real processes, each through an mcp-go stdio client):
//
//	go run ./bench/hostbench -notes 10000
//
// Each vault (the sample vault, copied by `vault.Init`, and a generated one
// of -notes notes of real English sentences, bench/corpus) is measured in
// turn:
//
//  1. Latency: process A starts and hosts (its call answered and the host
//     lock naming it), then B starts and attaches. Once the index holds
//     every note and vector, whoami, get_note, search and create_note are
//     called -calls times each on A's client and on B's, taking turns (A
//     first on even calls, B first on odd), one call at a time: p50 and
//     p99 of each, and the differences, the overhead of attaching.
//  2. Memory: VmRSS and VmHWM (/proc/PID/status) of A and B, idle (the
//     index ready, before the calls) and after the calls.
//  3. Takeover: C starts and attaches; an attached client creates a note,
//     and 1 s after the index holds it the host is killed with SIGKILL;
//     each surviving client at once calls get_note (which waits for a new
//     host), then search. Times from the kill to those answers, to the
//     new host's log line saying it took over, and to its first search
//     with every vector made. The killed process is replaced by a new one
//     that attaches, and the round repeats -rounds times. The host is
//     killed one more time after -idle without a write, past its periodic
//     save of derived state (every 30 s, vault.Maintain): whether each new
//     host rebuilt its search index is read from its log.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
)

func main() {
	n := flag.Int("notes", 10000, "notes of the generated vault (0: skip it)")
	words := flag.Int("words", 300, "words per generated note")
	sample := flag.String("sample", "sample-vault", "template of the small vault (empty: skip it)")
	calls := flag.Int("calls", 300, "calls of each tool on each client")
	rounds := flag.Int("rounds", 5, "host kills per vault")
	idle := flag.Duration("idle", 36*time.Second, "one more kill per vault after the host sat idle this long, past its periodic save of derived state every 30 s (0: skip it)")
	data := flag.String("data", "../shared/data/locomo10.json", "LoCoMo file, for its sentences")
	flag.Parse()

	sents, err := corpus.Sentences(*data)
	must(err)
	tmp, err := os.MkdirTemp("", "hostbench-")
	must(err)
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "cairn")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/cairn").CombinedOutput(); err != nil {
		must(fmt.Errorf("build cairn: %w\n%s", err, out))
	}

	var vaults []*benchVault
	if *sample != "" {
		dir := filepath.Join(tmp, "sample")
		_, err := vault.Init(dir, vault.InitOptions{From: *sample})
		must(err)
		vaults = append(vaults, scan(dir, "sample vault"))
	}
	if *n > 0 {
		dir := filepath.Join(tmp, "gen")
		t0 := time.Now()
		must(corpus.Generate(dir, *n, *words, sents, rand.New(rand.NewSource(1))))
		_, err := vault.Init(dir, vault.InitOptions{})
		must(err)
		bv := scan(dir, fmt.Sprintf("%d notes", *n))
		fmt.Printf("generated %d notes of %d words in %v\n", *n, *words, time.Since(t0).Round(time.Millisecond))
		vaults = append(vaults, bv)
	}
	fmt.Printf("%d CPUs, load average %s; `cairn serve` over stdio, each driven by an mcp-go stdio client; one call at a time\n\n", runtime.NumCPU(), measure.LoadAvg())

	var res []*result
	for _, bv := range vaults {
		fmt.Fprintf(errOut, "hostbench: %s (%d notes)\n", bv.label, bv.total)
		r, err := run(bin, bv, sents, *calls, *rounds, *idle)
		must(err)
		res = append(res, r)
	}
	printTables(res, *calls, *rounds, *idle)
	fmt.Printf("\nload average at the end: %s\n", measure.LoadAvg())
}

// benchVault is a vault under measure: its notes and where to create more.
type benchVault struct {
	label   string
	dir     string
	total   int      // notes in the vault
	notes   []string // vault-relative paths of its notes in projects (the owner reads them all)
	project string   // handle of the project notes are created in
	folders []string // that project's folders holding notes
}

// scan lists dir's notes and picks the first top-level project (by name)
// to create notes in, in the folders of its own notes (not of a project
// nested in it).
func scan(dir, label string) *benchVault {
	bv := &benchVault{label: label, dir: dir}
	projects := map[string]string{} // folder → handle
	var all []string                // every note: some are private to a person
	must(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && strings.HasPrefix(d.Name(), ".") && rel != ".":
			return filepath.SkipDir
		case d.Name() == vault.ProjectMarker:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(b), "\n") {
				if h, ok := strings.CutPrefix(line, "handle:"); ok {
					projects[filepath.ToSlash(filepath.Dir(rel))] = strings.TrimSpace(h)
				}
			}
		case !d.IsDir() && strings.HasSuffix(rel, ".md"):
			all = append(all, rel)
		}
		return nil
	}))
	bv.total = len(all)
	for _, rel := range all {
		if nearestProject(path.Dir(rel), projects) != "" {
			bv.notes = append(bv.notes, rel)
		}
	}
	var top []string
	for f := range projects {
		if !strings.Contains(f, "/") {
			top = append(top, f)
		}
	}
	if len(top) == 0 {
		must(fmt.Errorf("%s: no top-level project to create notes in", dir))
	}
	sort.Strings(top)
	bv.project = projects[top[0]]
	seen := map[string]bool{}
	for _, rel := range bv.notes {
		if d := path.Dir(rel); !seen[d] && nearestProject(d, projects) == top[0] {
			seen[d] = true
			bv.folders = append(bv.folders, d)
		}
	}
	sort.Strings(bv.folders)
	return bv
}

// nearestProject is the folder of the project holding folder d.
func nearestProject(d string, projects map[string]string) string {
	for ; d != "." && d != ""; d = path.Dir(d) {
		if _, ok := projects[d]; ok {
			return d
		}
	}
	return ""
}

// ms prints a duration in milliseconds (seconds past one).
func ms(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

// signedMS prints a difference of durations in milliseconds.
func signedMS(d time.Duration) string {
	return fmt.Sprintf("%+.2f ms", float64(d.Microseconds())/1000)
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostbench:", err)
		os.Exit(1)
	}
}
