// Command teambench simulates a team sharing one vault through a git
// remote (issue "teams"): does every acknowledged write reach every
// clone, how fast, and what does a sync leave behind.
//
// Run it from the repository root (it builds ./cmd/cairn into a temporary
// folder and drives real processes, each through an mcp-go stdio client):
//
//		go run ./bench/teambench -clones 10 -duration 2m -sync-every 5s -write-every 3s
//
//	 1. A bare remote is seeded with the sample vault plus -shared notes
//	    every clone edits (acme/teambench/shared), so that true conflicts
//	    happen; -clones clones are made with `cairn clone`.
//	 2. Each clone runs `cairn serve --sync-every S` with an agent (an
//	    mcp-go client) writing every -write-every, jittered ±50%: mostly
//	    create_note of a new note holding a unique marker, and with
//	    probability -edit-share an append (get_note, then edit_note) of a
//	    marker to one of the shared notes. Every acknowledged write is
//	    recorded with its clone, note, marker and time.
//	 3. Meanwhile every -poll each clone's files are read (the new note's
//	    file; the shared folder, whose conflict copies may hold an appended
//	    marker) to note when each marker first appears there: the time
//	    for a write to reach every clone, from its acknowledgement.
//	 4. After -duration the agents stop; the background syncs are given
//	    -settle to bring every clone to the remote's head, then `cairn
//	    sync` (through each serving process) runs in rounds until they
//	    agree (at most -rounds rounds).
//	 5. Checks: every acknowledged marker on every clone, the clones'
//	    trees identical to the remote's, `git fsck` clean everywhere, no
//	    line in any file starting with a conflict marker, and the conflict
//	    copies (notes whose frontmatter has conflict_from) counted; one
//	    search per clone for a note another clone made. It exits 1 when
//	    a check fails.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/mcpproc"
	"github.com/cairn-dev/cairn/bench/measure"
)

// config is the run's flags.
type config struct {
	clones     int
	duration   time.Duration
	syncEvery  time.Duration
	writeEvery time.Duration
	editShare  float64
	shared     int
	poll       time.Duration
	settle     time.Duration
	rounds     int
	sample     string
	keep       bool
	seed       int64

	mode          string
	data          string
	notes         []int
	words         int
	serveNotes    int
	history       int
	vectorsWithin time.Duration
	pushClones    []int
	pushFor       time.Duration
}

func main() {
	var c config
	flag.IntVar(&c.clones, "clones", 10, "clones, each with its cairn serve and its agent")
	flag.DurationVar(&c.duration, "duration", 2*time.Minute, "how long the agents write")
	flag.DurationVar(&c.syncEvery, "sync-every", 5*time.Second, "each cairn serve's --sync-every")
	flag.DurationVar(&c.writeEvery, "write-every", 3*time.Second, "mean pause between an agent's writes (jittered ±50%)")
	flag.Float64Var(&c.editShare, "edit-share", 0.2, "share of writes that append to a shared note (the rest create notes)")
	flag.IntVar(&c.shared, "shared", 3, "notes every clone appends to")
	flag.DurationVar(&c.poll, "poll", 100*time.Millisecond, "how often each clone's files are read for markers")
	flag.DurationVar(&c.settle, "settle", 30*time.Second, "how long the background syncs get to agree once the agents stop")
	flag.IntVar(&c.rounds, "rounds", 5, "at most this many rounds of cairn sync on every clone after -settle")
	flag.StringVar(&c.sample, "sample", "sample-vault", "the vault the remote is seeded with")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary folder (its path is printed)")
	flag.Int64Var(&c.seed, "seed", 1, "seed of the agents' choices")
	flag.StringVar(&c.mode, "mode", "team", "team (the simulated team), scale (size and clone times), push (push rate), shallow (a shallow clone)")
	flag.StringVar(&c.data, "data", "../shared/data/locomo10.json", "LoCoMo file, for the generated notes' sentences (scale)")
	notes := flag.String("notes", "10000,100000", "sizes of the generated vaults, in notes (scale)")
	flag.IntVar(&c.words, "words", 300, "words per generated note (scale)")
	flag.IntVar(&c.serveNotes, "serve-notes", 10000, "the size at which cairn clone and the first cairn serve are timed (scale; 0: none)")
	flag.IntVar(&c.history, "history", 0, "commits added to the first size's vault, one note edited in each, measured again (scale; 0: none)")
	flag.DurationVar(&c.vectorsWithin, "vectors-within", 10*time.Minute, "how long the first serve is given to make every vector (scale)")
	pushClones := flag.String("push-clones", "1,10,20", "clones pushing at once, one round per number (push)")
	flag.DurationVar(&c.pushFor, "push-for", 30*time.Second, "how long each push round lasts (push)")
	flag.Parse()
	var err error
	if c.notes, err = ints("-notes", *notes); err == nil {
		c.pushClones, err = ints("-push-clones", *pushClones)
	}
	must(err)
	if c.clones < 1 || c.shared < 1 || c.editShare < 0 || c.editShare > 1 || c.writeEvery <= 0 || c.poll <= 0 {
		must(fmt.Errorf("-clones and -shared must be ≥ 1, -edit-share in [0, 1], -write-every and -poll > 0"))
	}

	tmp, err := os.MkdirTemp("", "teambench-")
	must(err)
	if c.keep {
		fmt.Fprintln(errOut, "teambench: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := filepath.Join(tmp, "cairn")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/cairn").CombinedOutput(); err != nil {
		must(fmt.Errorf("build cairn: %w\n%s", err, out))
	}
	ok := true
	switch c.mode {
	case "team":
		ok, err = run(c, tmp, bin)
	case "scale":
		err = runScale(c, tmp, bin)
	case "push":
		err = runPush(c, tmp)
	case "shallow":
		err = runShallow(c, tmp, bin)
	default:
		err = fmt.Errorf("-mode %q: want team, scale, push or shallow", c.mode)
	}
	if err != nil && !c.keep {
		os.RemoveAll(tmp)
	}
	must(err)
	if !ok {
		if !c.keep {
			os.RemoveAll(tmp)
		}
		os.Exit(1)
	}
}

// run sets the team up, lets the agents write, settles and checks. It
// says whether every check passed; an error is a failure to measure.
func run(c config, tmp, bin string) (bool, error) {
	remote := filepath.Join(tmp, "remote.git")
	if err := seed(c, tmp, remote); err != nil {
		return false, err
	}
	t := &team{cfg: c, bin: bin, remote: remote, start: time.Now()}
	defer t.close()
	for i := 0; i < c.clones; i++ {
		dir := filepath.Join(tmp, fmt.Sprintf("c%02d", i))
		if out, err := exec.Command(bin, "clone", remote, dir).CombinedOutput(); err != nil {
			return false, fmt.Errorf("cairn clone %s: %w\n%s", dir, err, out)
		}
		p, err := mcpproc.Start(bin, dir, fmt.Sprintf("c%02d", i), "--sync-every", c.syncEvery.String())
		if err != nil {
			return false, err
		}
		t.clones = append(t.clones, &clone{name: p.Name, dir: dir, p: p})
	}
	fmt.Fprintf(errOut, "teambench: %d clones serving, agents writing for %s\n", c.clones, c.duration)
	fmt.Printf("%d CPUs, load average %s; %d clones of %s, each a `cairn serve --sync-every %s` driven by an mcp-go stdio client\n\n",
		runtime.NumCPU(), measure.LoadAvg(), c.clones, c.sample, c.syncEvery)

	w := newWatch(t.clones, c.poll)
	stopWatch := w.start()
	acks, refused := t.write(rand.New(rand.NewSource(c.seed)), w)
	fmt.Fprintf(errOut, "teambench: agents stopped (%d writes acknowledged); settling\n", len(acks))
	st := t.settle()
	stopWatch()
	res := t.check(acks, refused, w, st)
	res.print(c)
	fmt.Printf("\nload average at the end: %s\n", measure.LoadAvg())
	return res.ok(), nil
}

// seed makes the bare remote and pushes the sample vault to it, with the
// shared notes added.
func seed(c config, tmp, remote string) error {
	if err := git(tmp, "init", "-q", "--bare", "-b", "main", remote); err != nil {
		return err
	}
	tpl := filepath.Join(tmp, "template")
	if err := os.CopyFS(tpl, os.DirFS(c.sample)); err != nil {
		return fmt.Errorf("copy %s: %w", c.sample, err)
	}
	shared := filepath.Join(tpl, filepath.FromSlash(sharedFolder))
	if err := os.MkdirAll(shared, 0o755); err != nil {
		return fmt.Errorf("shared notes: %w", err)
	}
	for i := 1; i <= c.shared; i++ {
		body := fmt.Sprintf("# %s\n\nWhat each clone's agent appends, one line per write.\n", sharedTitle(i))
		if err := os.WriteFile(filepath.Join(shared, sharedTitle(i)+".md"), []byte(body), 0o644); err != nil {
			return fmt.Errorf("shared notes: %w", err)
		}
	}
	return initAndPush(tpl, filepath.Join(tmp, "seed"), remote)
}

// sharedFolder holds the notes every clone appends to, and their conflict
// copies (beside them): the folder a poll reads for appended markers.
const sharedFolder = "acme/teambench/shared"

func sharedTitle(i int) string { return fmt.Sprintf("Shared board %d", i) }

// git runs the git command line in dir as a bench identity.
func git(dir string, args ...string) error {
	_, err := gitOut(dir, args...)
	return err
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@cairn.local",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@cairn.local")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		return "", fmt.Errorf("git %s in %s: %w\n%s", strings.Join(args, " "), dir, err, msg)
	}
	return strings.TrimSpace(string(out)), nil
}

// ints parses a comma-separated list of positive numbers given as flag.
func ints(flag, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a positive number", flag, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// errOut receives progress, so that stdout holds only the tables.
var errOut = os.Stderr

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "teambench:", err)
		os.Exit(2)
	}
}
