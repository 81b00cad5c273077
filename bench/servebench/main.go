// Command servebench measures what a person waits for and what a server
// holds when `cairn serve` starts beside their editor (issue 16,
// "footprint and cold start"): a separate process over stdio, driven by
// mcp-go's client (bench/mcpproc) as an MCP client is.
//
// Run it from the repository root (it builds ./cmd/cairn once into a
// temporary folder):
//
//	go run ./bench/servebench -notes 10000,100000 -history 1,all
//
// For each size of -notes and each depth of -history, a vault is
// generated (notes of real English sentences, bench/corpus), spread over
// that many commits, adopted by `vault.Init`, then `git clone`d, so that
// no .cairn cache exists (or, with -clone cairn, cloned by the measured
// binary's `cairn clone`, which builds and saves the version map, timed).
// Two scenarios run on the clone, one after the other:
//
//   - fresh clone: the first `cairn serve` of the clone;
//   - warm: a second start on the same clone, with the caches the first
//     one left when it stopped cleanly (stdin closed).
//
// Each reports, from the process's start: MCP initialize answered; the
// first search answered at all, and with how many results (during a
// build, a search may answer with none); the first search answered with
// results (a query of words taken from a generated note; errors, e.g. no
// host yet, are retried), and whether that
// reply was complete or said that vectors or long notes were still
// pending (search's vectorsPending and indexPending); the full index
// (Bleve and every vector): the first search whose reply has neither
// pending, polled every -poll; the p99 and the slowest of the searches
// made until then (no call should wait behind the build), and of the
// get_note calls made beside them (the first of the oldest note, then
// others spread over the vault), with the first, and the edit_note calls
// made on every tenth note read (its p50 and the slowest); VmRSS and VmHWM then; then -searches
// searches (three words in a row of a generated sentence), their p50 and
// p99, beside ripgrep's time for the words of every tenth (`rg -l -i -F`
// over the clone, when rg is on the PATH); then -writes writes
// through MCP, create_note and edit_note (append, its versionToken from
// an untimed get_note) in turn, their p50 and p99, and VmRSS and VmHWM
// after them; then VmRSS again once the server has sat idle for -quiet.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/measure"
)

// config is the command line.
type config struct {
	notes   []int
	history []string // commit counts, or "all" (each note its own commit)
	words   int
	folders int // the generated notes' folders (corpus.Folders)
	writes  int
	// searches are made once the index is complete, before the writes.
	searches int
	within   time.Duration // bound on each wait (first search, full index)
	poll     time.Duration // between searches while waiting for the full index
	quiet    time.Duration // idle after the writes, before memory is read again
	data     string
	bin      string // a cairn binary to measure instead of building ./cmd/cairn
	vaults   string // keep the generated vaults here, and reuse them
	// cpuprofile is a folder for each served process's CPU profile.
	cpuprofile string
	// warmCopy is a clone indexed once: measure warm starts on copies of it.
	warmCopy string
	// cloneWith is what clones the generated vault: git or cairn.
	cloneWith string
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(2)
	}
	sents, err := corpus.Sentences(c.data)
	must(err)
	tmp, err := os.MkdirTemp("", "servebench-")
	must(err)
	fmt.Printf("%d CPUs, load average %s; notes of ~%d words in %d folders (bench/corpus); `cairn serve` over stdio, one mcp-go client; %d writes per scenario\n\n",
		runtime.NumCPU(), measure.LoadAvg(), c.words, c.folders, c.writes)
	rows, err := run(c, sents, tmp, os.Stderr)
	printTable(os.Stdout, rows)
	fmt.Printf("\nload average at the end: %s\n", measure.LoadAvg())
	os.RemoveAll(tmp) // before must: os.Exit runs no deferred call
	must(err)
}

// parseFlags reads the command line; each error names its flag.
func parseFlags(args []string) (config, error) {
	c := config{}
	fs := flag.NewFlagSet("servebench", flag.ContinueOnError)
	notes := fs.String("notes", "10000", "notes of the generated vaults, a comma list (e.g. 10000,100000)")
	history := fs.String("history", "1", "commits the notes are spread over, a comma list; all: each note its own commit")
	fs.IntVar(&c.words, "words", 300, "words per generated note")
	fs.IntVar(&c.folders, "folders", 100, "folders the generated notes are spread over (1: all in one folder; a kept vault of another count is kept apart)")
	fs.IntVar(&c.writes, "writes", 1000, "writes per scenario (create_note and edit_note in turn)")
	fs.IntVar(&c.searches, "searches", 200, "searches per scenario once the index is complete, before the writes (ripgrep timed on every tenth, when on the PATH)")
	fs.DurationVar(&c.within, "within", 20*time.Minute, "give up a wait (first search, full index) after this long")
	fs.DurationVar(&c.poll, "poll", 250*time.Millisecond, "time between searches while waiting for the full index")
	fs.DurationVar(&c.quiet, "quiet", 45*time.Second, "after the writes, sit idle this long and read memory again (the periodic save of derived state comes within 30 s, the trim after it)")
	fs.StringVar(&c.data, "data", "../shared/data/locomo10.json", "LoCoMo file, for its sentences")
	fs.StringVar(&c.vaults, "vaults", "", "keep each generated vault in this folder and reuse it in later runs (each run still measures a fresh clone of it)")
	fs.StringVar(&c.bin, "bin", "", "measure this cairn binary (e.g. one built from an older commit, for a before/after) instead of building ./cmd/cairn")
	fs.StringVar(&c.cpuprofile, "cpuprofile", "", "write each served process's CPU profile into this folder (cpu-NOTES-SCENARIO.pprof; the binary must read $CAIRN_CPUPROFILE). A server still saving 5 s after its client closed is killed and leaves the file empty: give it -quiet 20s")
	fs.StringVar(&c.warmCopy, "warm-copy", "", "measure a warm start alone, on a copy of this clone (one a first start indexed, e.g. by cairn search), generated with -notes notes; -history is not used")
	fs.StringVar(&c.cloneWith, "clone", "git", "what clones the generated vault: git (git clone: the first serve builds the version map, as after a person's git clone) or cairn (the binary's cairn clone, which builds and saves it; its time is logged)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.cloneWith != "git" && c.cloneWith != "cairn" {
		return c, fmt.Errorf("-clone: %q is neither git nor cairn", c.cloneWith)
	}
	if c.warmCopy != "" {
		if _, err := os.Stat(c.warmCopy + "/.git"); err != nil {
			return c, fmt.Errorf("-warm-copy: %q is not a clone of a vault", c.warmCopy)
		}
	}
	if c.cpuprofile != "" {
		if st, err := os.Stat(c.cpuprofile); err != nil || !st.IsDir() {
			return c, fmt.Errorf("-cpuprofile: %q is not a folder", c.cpuprofile)
		}
	}
	for _, s := range strings.Split(*notes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-notes: %q is not a number of notes (1 or more)", s)
		}
		c.notes = append(c.notes, n)
	}
	for _, s := range strings.Split(*history, ",") {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); s != "all" && (err != nil || n < 1) {
			return c, fmt.Errorf("-history: %q is neither a number of commits (1 or more) nor all", s)
		}
		c.history = append(c.history, s)
	}
	for _, h := range c.history {
		for _, n := range c.notes {
			if k, _ := strconv.Atoi(h); k > n {
				return c, fmt.Errorf("-history: %d commits for %d notes: a commit adds one note at least", k, n)
			}
		}
	}
	switch {
	case c.words < 1:
		return c, fmt.Errorf("-words: %d; at least 1", c.words)
	case c.folders < 1 || c.folders > 1000:
		return c, fmt.Errorf("-folders: %d; between 1 and 1000", c.folders)
	case c.writes < 2:
		return c, fmt.Errorf("-writes: %d; at least 2 (a create and an edit)", c.writes)
	case c.searches < 0:
		return c, fmt.Errorf("-searches: %d is negative", c.searches)
	case c.within <= 0:
		return c, fmt.Errorf("-within: %s is not a positive duration", c.within)
	case c.poll <= 0:
		return c, fmt.Errorf("-poll: %s is not a positive duration", c.poll)
	case c.quiet < 0:
		return c, fmt.Errorf("-quiet: %s is negative", c.quiet)
	}
	return c, nil
}

// commitsFor is the number of commits history means for n notes.
func commitsFor(history string, n int) int {
	if history == "all" {
		return n
	}
	k, _ := strconv.Atoi(history)
	return k
}

// logf says where the benchmark is (on stderr: stdout is the table).
func logf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "servebench: "+format+"\n", args...)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}
