package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/mcpproc"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
)

// row is what one scenario measured.
type row struct {
	scenario       string
	notes, commits int
	// From the process's start.
	initialize, firstSearch, fullIndex time.Duration
	firstReply                         string // complete, or what the first reply said was pending
	indexAtStart                       string // none, reused, or rebuilt (why): the search index the process found
	indexed, written, rested           measure.Mem
	creates, edits                     []time.Duration
	// firstAnswer is when the first search answered at all (no error),
	// with firstHits results: a search during the build may answer with
	// none (firstSearch is the first with results).
	firstAnswer time.Duration
	firstHits   int
	// duringBuild are the searches made while the index was incomplete
	// (each the time its answer took): no call may wait behind the build.
	duringBuild []time.Duration
	// readsDuringBuild are the get_note calls made beside those searches
	// (the first of the oldest note, whose version is the furthest back
	// in history), and firstRead the first of them.
	readsDuringBuild []time.Duration
	firstRead        time.Duration
	// editsDuringBuild are the edit_note calls made beside every tenth
	// of those reads, on the note it read (its versionToken from it).
	editsDuringBuild []time.Duration
	// slowReads counts the reads during the build over a second, and
	// lastSlowRead is when the last of them answered (from the start).
	slowReads    int
	lastSlowRead time.Duration
	// searches are -searches searches made once the index is complete,
	// before the writes (the default hybrid mode), and ripgrep the
	// times of `rg -l -i -F` for the words of every tenth of them, over
	// the same vault (none without rg on the PATH).
	searches, ripgrep []time.Duration
}

// run builds cairn into tmp, then measures both scenarios for each size
// and history depth. It returns the rows measured so far with an error.
func run(c config, sents []string, tmp string, log io.Writer) ([]row, error) {
	corpus.Folders = c.folders
	bin := c.bin
	if bin == "" {
		bin = filepath.Join(tmp, "cairn")
		build := exec.Command("go", "build", "-o", bin, "github.com/cairn-dev/cairn/cmd/cairn")
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build cairn: %w\n%s", err, out)
		}
	}
	if c.warmCopy != "" {
		r, err := runWarmCopy(c, bin, sents, tmp, log)
		return []row{r}, err
	}
	var rows []row
	for _, n := range c.notes {
		for _, h := range c.history {
			commits := commitsFor(h, n)
			rs, err := runVault(c, bin, sents, tmp, n, commits, log)
			rows = append(rows, rs...)
			if err != nil {
				return rows, fmt.Errorf("%d notes in %d commits: %w", n, commits, err)
			}
		}
	}
	return rows, nil
}

// cloneVault clones gen into clone with git, or with bin's cairn clone
// (-clone cairn), whose time it logs.
func cloneVault(c config, bin, gen, clone string, log io.Writer) error {
	if c.cloneWith == "git" {
		return corpus.Git(filepath.Dir(clone), "clone", "-q", gen, clone)
	}
	t0 := time.Now()
	if out, err := exec.Command(bin, "clone", gen, clone).CombinedOutput(); err != nil {
		return fmt.Errorf("cairn clone: %w: %s", err, out)
	}
	logf(log, "cairn clone took %s", time.Since(t0).Round(time.Millisecond))
	return nil
}

// runVault generates a vault of n notes in commits commits, clones it and
// measures the clone's first start, then its second.
func runVault(c config, bin string, sents []string, tmp string, n, commits int, log io.Writer) ([]row, error) {
	gen := filepath.Join(tmp, fmt.Sprintf("gen-%d-%d", n, commits))
	clone := filepath.Join(tmp, fmt.Sprintf("clone-%d-%d", n, commits))
	defer os.RemoveAll(clone)
	t0 := time.Now()
	if c.vaults == "" {
		defer os.RemoveAll(gen)
	} else {
		gen = filepath.Join(c.vaults, fmt.Sprintf("gen-%d-%d-%d", n, commits, c.words))
		if c.folders != 100 {
			gen += fmt.Sprintf("-%dfolders", c.folders)
		}
	}
	// A kept vault is reused once complete (its marker written last).
	done := filepath.Join(gen, ".git", "servebench-generated")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(gen)
		logf(log, "%s: generating %d notes in %d commits", time.Now().UTC().Format("15:04:05"), n, commits)
		if err := corpus.GenerateHistory(gen, n, c.words, commits, sents, rand.New(rand.NewSource(1))); err != nil {
			return nil, err
		}
		if _, err := vault.Init(gen, vault.InitOptions{}); err != nil {
			return nil, fmt.Errorf("init %s: %w", gen, err)
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return nil, err
		}
	}
	if err := cloneVault(c, bin, gen, clone, log); err != nil {
		return nil, err
	}
	out, err := exec.Command("git", "-C", clone, "rev-list", "--count", "HEAD").Output()
	if err != nil {
		return nil, fmt.Errorf("count the clone's commits: %w", err)
	}
	total, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	logf(log, "generated and cloned in %s: %d commits", time.Since(t0).Round(time.Millisecond), total)
	query, err := knownQuery(clone)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, scenario := range []string{"fresh clone", "warm"} {
		logf(log, "%s: %d notes, %d commits: %s", time.Now().UTC().Format("15:04:05"), n, total, scenario)
		r, err := measureRow(c, bin, clone, scenario, query, n, sents, log)
		r.notes, r.commits = n, total
		if err != nil {
			return rows, fmt.Errorf("%s: %w", scenario, err)
		}
		rows = append(rows, r)
		logf(log, "%s: done (initialize %s, VmRSS %s once indexed)", scenario, secs(r.initialize), mib(r.indexed.RSS))
	}
	return rows, nil
}

// runWarmCopy measures a warm start alone, on a copy of c.warmCopy (a
// clone a first start indexed, e.g. by `cairn search`): the writes of
// several binaries compared round after round on the same state, without
// a fresh clone's build before each.
func runWarmCopy(c config, bin string, sents []string, tmp string, log io.Writer) (row, error) {
	clone := filepath.Join(tmp, "warm-copy")
	defer os.RemoveAll(clone)
	if out, err := exec.Command("cp", "-a", c.warmCopy, clone).CombinedOutput(); err != nil {
		return row{scenario: "warm"}, fmt.Errorf("copy %s: %w\n%s", c.warmCopy, err, out)
	}
	// The copy's dirty pages would be written back during the writes
	// measured next, beside their own fsyncs.
	syscall.Sync()
	n := c.notes[0] // the generated notes the copy holds, which the writes edit
	query, err := knownQuery(clone)
	if err != nil {
		return row{scenario: "warm"}, err
	}
	logf(log, "%s: a copy of %s, %d notes: warm", time.Now().UTC().Format("15:04:05"), c.warmCopy, n)
	r, err := measureRow(c, bin, clone, "warm", query, n, sents, log)
	r.notes = n
	return r, err
}

// knownQuery is three words of the first generated note's body: a search
// for them has at least that note to find.
func knownQuery(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(corpus.NotePath(0))))
	if err != nil {
		return "", fmt.Errorf("a query known to match: %w", err)
	}
	_, body, _ := strings.Cut(string(b), "\n# ")
	_, body, _ = strings.Cut(body, "\n")
	w := strings.Fields(body)
	if len(w) < 3 {
		return "", fmt.Errorf("a query known to match: %s has under 3 words", corpus.NotePath(0))
	}
	return strings.Join(w[:3], " "), nil
}

// searchOut is the part of search's answer the benchmark reads.
type searchOut struct {
	Mode           string     `json:"mode"`
	Requested      string     `json:"requestedMode"`
	Notice         string     `json:"notice"`
	VectorsPending int        `json:"vectorsPending"`
	IndexPending   int        `json:"indexPending"`
	Results        []struct{} `json:"results"`
}

// complete says whether the index answering s holds every note and
// every vector.
func (s searchOut) complete() bool { return s.VectorsPending == 0 && s.IndexPending == 0 }

// describe is what a reply said about the index answering it.
func (s searchOut) describe() string {
	var parts []string
	if s.VectorsPending > 0 {
		parts = append(parts, fmt.Sprintf("%d vectors pending", s.VectorsPending))
	}
	if s.IndexPending > 0 {
		parts = append(parts, fmt.Sprintf("%d notes not yet indexed", s.IndexPending))
	}
	if s.Mode != s.Requested {
		parts = append(parts, fmt.Sprintf("%s instead of %s: %s", s.Mode, s.Requested, s.Notice))
	}
	if len(parts) == 0 {
		return "complete"
	}
	return "partial: " + strings.Join(parts, ", ")
}

// measureRow starts cairn serve on dir and takes one row's figures. An
// error ends with the end of what the server logged.
func measureRow(c config, bin, dir, scenario, query string, n int, sents []string, log io.Writer) (row, error) {
	_, statErr := os.Stat(filepath.Join(dir, filepath.FromSlash(vault.CacheDir), "search"))
	if c.cpuprofile != "" {
		// The served process writes its own profile ($CAIRN_CPUPROFILE)
		// when it exits.
		name := fmt.Sprintf("cpu-%d-%s.pprof", n, strings.ReplaceAll(scenario, " ", "-"))
		os.Setenv("CAIRN_CPUPROFILE", filepath.Join(c.cpuprofile, name))
		defer os.Unsetenv("CAIRN_CPUPROFILE")
	}
	p, err := mcpproc.Start(bin, dir, scenario)
	if err != nil {
		return row{scenario: scenario}, err
	}
	// Closing stdin stops the server cleanly (it saves its caches for the
	// next start) and waits for it to exit.
	defer p.Close()
	r, err := measureProc(c, p, dir, scenario, query, n, sents, log)
	r.indexAtStart = "reused"
	if _, why, ok := strings.Cut(p.Stderr.String(), "search index: rebuilding ("); ok {
		why, _, _ = strings.Cut(why, ")\n")
		r.indexAtStart = "rebuilt (" + why + ")"
	} else if statErr != nil {
		r.indexAtStart = "none"
	}
	if err != nil {
		said := p.Stderr.String()
		err = fmt.Errorf("%w\nthe server's log ends:\n%s", err, said[max(0, len(said)-2000):])
	}
	return r, err
}

func measureProc(c config, p *mcpproc.Proc, dir, scenario, query string, n int, sents []string, log io.Writer) (row, error) {
	r := row{scenario: scenario}
	r.initialize = p.Initialized
	s, at, first, took, err := firstSearch(p, query, c.within)
	r.duringBuild = took
	r.firstAnswer, r.firstHits = first.at, first.hits
	if err != nil {
		return r, err
	}
	r.firstSearch, r.firstReply = at, s.describe()
	logf(log, "%s: first answer %s with %d hits; first with results %s, %s", scenario, secs(first.at), first.hits, secs(at), r.firstReply)
	for k := 0; !s.complete(); k++ {
		if time.Since(p.Started) > c.within {
			return r, fmt.Errorf("index not complete %s after start: %s", c.within, s.describe())
		}
		ref := corpus.NotePath((k * 7919) % n)
		d, token, err := readOne(p, ref)
		if err != nil {
			return r, err
		}
		if k == 0 {
			r.firstRead = d
		}
		r.readsDuringBuild = append(r.readsDuringBuild, d)
		if d > time.Second {
			r.slowReads, r.lastSlowRead = r.slowReads+1, time.Since(p.Started)
			logf(log, "%s: get_note %s took %s, %s after the start", scenario, ref, secs(d), secs(r.lastSlowRead))
		}
		if k%10 == 5 {
			args := map[string]any{"ref": ref, "versionToken": token, "operation": "append", "content": fmt.Sprintf("Edited during the build (%s, %d).", scenario, k)}
			t0 := time.Now()
			if err := p.Call("edit_note", args, nil); err != nil {
				return r, fmt.Errorf("edit_note %s during the build: %w", ref, err)
			}
			r.editsDuringBuild = append(r.editsDuringBuild, time.Since(t0))
		}
		time.Sleep(c.poll)
		s = searchOut{} // a field the reply omits (omitempty) is zero, not the last one's
		t0 := time.Now()
		if err := p.Call("search", map[string]any{"query": query}, &s); err != nil {
			return r, err
		}
		d = time.Since(t0)
		r.duringBuild = append(r.duringBuild, d)
		at = time.Since(p.Started)
		if d > time.Second {
			logf(log, "%s: a search during the build took %s, %s after the start", scenario, secs(d), secs(at))
		}
	}
	r.fullIndex = at
	logf(log, "%s: full index %s", scenario, secs(at))
	if r.indexed, err = measure.MemOf(p.PID()); err != nil {
		return r, err
	}
	if r.searches, r.ripgrep, err = searchesAfter(p, c.searches, dir, sents); err != nil {
		return r, err
	}
	if r.creates, r.edits, err = writes(p, c.writes, scenario, n, sents); err != nil {
		return r, err
	}
	if r.written, err = measure.MemOf(p.PID()); err != nil {
		return r, err
	}
	time.Sleep(c.quiet) // a server that then sits idle beside the editor
	r.rested, err = measure.MemOf(p.PID())
	return r, err
}

// readOne times a get_note of ref, and returns its versionToken.
func readOne(p *mcpproc.Proc, ref string) (time.Duration, string, error) {
	var got struct {
		VersionToken string `json:"versionToken"`
	}
	t0 := time.Now()
	if err := p.Call("get_note", map[string]any{"ref": ref}, &got); err != nil {
		return 0, "", fmt.Errorf("get_note %s during the build: %w", ref, err)
	}
	if got.VersionToken == "" {
		return 0, "", fmt.Errorf("get_note %s during the build: no versionToken", ref)
	}
	return time.Since(t0), got.VersionToken, nil
}

// answer is when a search first answered (from the process's start), and
// with how many results.
type answer struct {
	at   time.Duration
	hits int
}

// firstSearch searches until a reply has results, retrying errors (the
// process may not host the vault yet), and returns that reply, when it
// came (from the process's start), the first reply that was no error, and
// how long each search took.
func firstSearch(p *mcpproc.Proc, query string, within time.Duration) (searchOut, time.Duration, answer, []time.Duration, error) {
	var last error
	var took []time.Duration
	first := answer{at: -1}
	for time.Since(p.Started) < within {
		var s searchOut
		t0 := time.Now()
		err := p.Call("search", map[string]any{"query": query}, &s)
		took = append(took, time.Since(t0))
		if err == nil && first.at < 0 {
			first = answer{at: time.Since(p.Started), hits: len(s.Results)}
		}
		if err == nil && len(s.Results) > 0 {
			return s, time.Since(p.Started), first, took, nil
		}
		if err == nil {
			err = fmt.Errorf("search %q found nothing: %s", query, s.describe())
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	return searchOut{}, 0, first, took, errors.Join(fmt.Errorf("no search answered with results within %s of start", within), last)
}

// searchesAfter makes k searches through p, each for three words in a
// row of a sentence the notes are made of, and returns how long each
// took; with ripgrep on the PATH, it also times `rg -l -i -F` for the
// words of every tenth search over dir (the files a search stands in
// for: issue 34's comparison).
func searchesAfter(p *mcpproc.Proc, k int, dir string, sents []string) (took, rg []time.Duration, err error) {
	rgPath, _ := exec.LookPath("rg")
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < k; i++ {
		w := strings.Fields(sents[rng.Intn(len(sents))])
		at := rng.Intn(max(len(w)-2, 1))
		query := strings.Join(w[at:min(at+3, len(w))], " ")
		var s searchOut
		t0 := time.Now()
		if err := p.Call("search", map[string]any{"query": query}, &s); err != nil {
			return took, rg, fmt.Errorf("search %q once indexed: %w", query, err)
		}
		took = append(took, time.Since(t0))
		if rgPath == "" || i%10 != 0 {
			continue
		}
		t0 = time.Now()
		// Exit status 1: no file holds the words.
		cmd := exec.Command(rgPath, "-l", "-i", "-F", "--", query, dir)
		if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
			return took, rg, fmt.Errorf("rg %q: %w", query, err)
		}
		rg = append(rg, time.Since(t0))
	}
	return took, rg, nil
}

// writes makes k writes through p, create_note and edit_note in turn (an
// edit appends a line to a generated note, its versionToken from an
// untimed get_note), and returns each kind's durations.
func writes(p *mcpproc.Proc, k int, scenario string, n int, sents []string) (creates, edits []time.Duration, err error) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < k; i++ {
		var tool string
		var args map[string]any
		if i%2 == 0 {
			var body strings.Builder
			fmt.Fprintf(&body, "# Servebench %s %d\n\n", scenario, i)
			for body.Len() < 600 {
				body.WriteString(sents[rng.Intn(len(sents))] + " ")
			}
			tool = "create_note"
			args = map[string]any{"project": "space", "path": fmt.Sprintf("space/f%03d", (i/2)%corpus.Folders), "body": body.String()}
		} else {
			ref := corpus.NotePath((i / 2 * 7919) % n)
			var got struct {
				VersionToken string `json:"versionToken"`
			}
			if err := p.Call("get_note", map[string]any{"ref": ref}, &got); err != nil {
				return nil, nil, err
			}
			tool = "edit_note"
			args = map[string]any{"ref": ref, "versionToken": got.VersionToken, "operation": "append",
				"content": fmt.Sprintf("Edit %d (%s): %s", i, scenario, sents[rng.Intn(len(sents))])}
		}
		t0 := time.Now()
		if err := p.Call(tool, args, nil); err != nil {
			return nil, nil, err
		}
		if d := time.Since(t0); tool == "create_note" {
			creates = append(creates, d)
		} else {
			edits = append(edits, d)
		}
	}
	return creates, edits, nil
}
