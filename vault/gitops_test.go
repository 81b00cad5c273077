package vault

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
)

// personGit runs git as a person at the terminal would: it returns what
// git printed and whether it succeeded, and never fails the test.
func personGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Person", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=Person",
		"GIT_COMMITTER_EMAIL=p@x", "GIT_EDITOR=true", "GIT_MERGE_AUTOEDIT=no")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// persist runs a person's git command until it succeeds, as a person does
// when git meets another git process at work: the index locked, or a
// moment behind HEAD (cairn moves the branch, then writes the index, as
// git commit does). At most 50 tries. What the issue is about fails the
// test at once: a pull that took cairn's commit for its fetch's, a ref
// moved under a rebase.
func persist(t *testing.T, dir string, args ...string) string {
	t.Helper()
	for try := 0; ; try++ {
		out, err := personGit(dir, args...)
		if err == nil {
			return out
		}
		transient := strings.Contains(out, "index.lock") || strings.Contains(out, "your local changes would be overwritten by") ||
			strings.Contains(out, "Your local changes to the following files would be overwritten") || strings.Contains(out, "index contains uncommitted changes")
		broken := strings.Contains(out, "fetch updated the current branch head") || strings.Contains(out, "cannot lock ref")
		if (args[0] == "merge" || args[0] == "cherry-pick") && (strings.Contains(out, "Unable to write index") ||
			strings.Contains(out, "stash failed") || strings.Contains(out, "would be overwritten by")) {
			// git merge and cherry-pick meeting a held index.lock half-way
			// can leave their work half-staged, nothing in conflict: the
			// person undoes it and runs the command again.
			halfMade.Add(1)
			switch {
			case exists(filepath.Join(dir, ".git", "MERGE_HEAD")):
				persist(t, dir, "merge", "--abort")
			case exists(filepath.Join(dir, ".git", "CHERRY_PICK_HEAD")):
				persist(t, dir, "cherry-pick", "--abort")
			default:
				persist(t, dir, "reset", "-q", "--merge")
			}
			transient = true
		}
		if try == 50 || !transient || broken {
			st, _ := personGit(dir, "status", "--porcelain")
			cached, _ := personGit(dir, "diff", "--cached", "--stat", "HEAD")
			lg, _ := personGit(dir, "log", "--oneline", "-5")
			t.Fatalf("git %v: %v\n%s\nstatus:\n%s\ncached:\n%s\nlog:\n%s", args, err, out, st, cached, lg)
		}
		retries.Add(1)
		time.Sleep(20 * time.Millisecond)
	}
}

// retries counts the person's commands run again; halfMade those a
// held index.lock left half-made.
var retries, halfMade atomic.Int64

// agentWriter creates a note every interval until stop is closed, and
// keeps the acknowledged ones: path → a line of its body.
type agentWriter struct {
	mu    sync.Mutex
	acked map[string]string
	busy  int // writes answered GitBusyError (nothing written)
	fails []error
}

func (a *agentWriter) run(v *Vault, stop <-chan struct{}, interval time.Duration, done *sync.WaitGroup) {
	defer done.Done()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		line := fmt.Sprintf("agent write %d", i)
		w, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: fmt.Sprintf("# Agent note %d\n\n%s\n", i, line)})
		var busy *gitstore.GitBusyError
		a.mu.Lock()
		switch {
		case err == nil:
			a.acked[w.Path] = line
		case errors.As(err, &busy):
			a.busy++
		default:
			a.fails = append(a.fails, err)
		}
		a.mu.Unlock()
		time.Sleep(interval)
	}
}

// TestAgentWritesDuringAPersonsGitOperations: an agent writes ten times a
// second while a person, in the vault, pulls with rebase what a teammate
// pushed, checks out another branch for a moment, merges a branch and
// cherry-picks a commit, round after round, with real git. Every write
// the agent was told succeeded is on the vault's branch at the end, each
// operation of the person's succeeded (retried only when git found the
// index locked for a moment), and no write went to another branch.
func TestAgentWritesDuringAPersonsGitOperations(t *testing.T) {
	v, dir := sampleVault(t)
	base := t.TempDir()
	remote, mate := filepath.Join(base, "remote.git"), filepath.Join(base, "mate")
	gitOut(t, base, "init", "-q", "--bare", "-b", "main", remote)
	gitOut(t, dir, "remote", "add", "origin", remote)
	gitOut(t, dir, "push", "-q", "origin", "main")
	gitOut(t, base, "clone", "-q", remote, mate)

	a := &agentWriter{acked: map[string]string{}}
	stop := make(chan struct{})
	var done sync.WaitGroup
	done.Add(1)
	go a.run(v, stop, 100*time.Millisecond, &done)

	rounds := 6
	from := map[string]string{}                            // each side branch → the commit it started at
	pause := func() { time.Sleep(250 * time.Millisecond) } // a person between two commands
	for r := 0; r < rounds; r++ {
		pause()
		// A teammate pushes; the person pulls it with rebase.
		os.WriteFile(filepath.Join(mate, fmt.Sprintf("Mate %d.md", r)), []byte(fmt.Sprintf("# Mate %d\n", r)), 0o644)
		persist(t, mate, "add", "-A")
		persist(t, mate, "commit", "-qm", fmt.Sprintf("mate %d", r))
		persist(t, mate, "push", "-q", "origin", "main")
		persist(t, dir, "pull", "-q", "--rebase", "origin", "main")
		pause()

		// Another branch, checked out for a moment.
		side := fmt.Sprintf("side-%d", r)
		persist(t, dir, "checkout", "-q", "-b", side)
		from[side] = gitOut(t, dir, "rev-parse", "HEAD")
		os.WriteFile(filepath.Join(dir, side+".md"), []byte("# "+side+"\n"), 0o644)
		persist(t, dir, "add", side+".md")
		persist(t, dir, "commit", "-qm", side)
		time.Sleep(300 * time.Millisecond)
		persist(t, dir, "checkout", "-q", "main")
		pause()

		// Merged, then a commit of another branch cherry-picked.
		persist(t, dir, "merge", "-q", "--no-edit", side)
		pause()
		pick := fmt.Sprintf("pick-%d", r)
		persist(t, dir, "checkout", "-q", "-b", pick)
		from[pick] = gitOut(t, dir, "rev-parse", "HEAD")
		os.WriteFile(filepath.Join(dir, pick+".md"), []byte("# "+pick+"\n"), 0o644)
		persist(t, dir, "add", pick+".md")
		persist(t, dir, "commit", "-qm", pick)
		persist(t, dir, "checkout", "-q", "main")
		persist(t, dir, "cherry-pick", pick)
		pause()

		// The person packs the repository: the agent's loose objects
		// go into a pack and are deleted (gitstore/repacked.go).
		persist(t, dir, "gc", "-q")
	}
	close(stop)
	done.Wait()

	a.mu.Lock()
	defer a.mu.Unlock()
	for _, err := range a.fails {
		t.Errorf("a write failed otherwise than busy: %v", err)
	}
	if len(a.acked) < 10 {
		t.Fatalf("only %d writes acknowledged", len(a.acked))
	}
	onMain := strings.Split(gitOut(t, dir, "ls-tree", "-r", "--name-only", "main"), "\n")
	have := map[string]bool{}
	for _, p := range onMain {
		have[p] = true
	}
	lost := 0
	for p, line := range a.acked {
		if !have[p] {
			lost++
			t.Errorf("acknowledged write %s is not on main", p)
			continue
		}
		if body := gitOut(t, dir, "show", "main:"+p); !strings.Contains(body, line) {
			t.Errorf("%s on main lacks %q", p, line)
		}
	}
	// No write of the agent's went to a branch checked out for a moment:
	// nothing on a side branch since it started is the agent's.
	for branch, start := range from {
		if agents := gitOut(t, dir, "log", "--format=%H %s", "--grep=Cairn-Tool", start+".."+branch); agents != "" {
			t.Errorf("agent writes landed on %s:\n%s", branch, agents)
		}
	}
	t.Logf("%d writes acknowledged, %d answered busy, %d lost, %d rounds of pull --rebase, checkout, merge, cherry-pick, gc; %d commands of the person's run again, %d of them undone first", len(a.acked), a.busy, lost, rounds, retries.Load(), halfMade.Load())
	cleanAndSound(t, dir)
}
