// Package corpus makes the benchmarks' generated vaults: notes of real
// English sentences (LoCoMo's dialogue turns) and the half-remembered
// queries searched in them. searchbench and pathobench share it, so their
// figures are measured on the same kind of vault.
package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/note"
)

// Sentences are LoCoMo's dialogue turns, sorted (a fixed seed then draws
// the same notes on every run).
func Sentences(file string) ([]string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []string
	for _, s := range samples {
		for k, v := range s.Conversation {
			if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "date_time") {
				continue
			}
			var turns []struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(v, &turns) == nil {
				for _, t := range turns {
					out = append(out, strings.ReplaceAll(t.Text, "#", ""))
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Query is 2 to 5 words taken from one sentence: what someone half
// remembers.
func Query(rng *rand.Rand, sents []string) string {
	for {
		w := strings.Fields(sents[rng.Intn(len(sents))])
		if len(w) < 6 {
			continue
		}
		k := 2 + rng.Intn(4)
		i := rng.Intn(len(w) - k)
		return strings.Join(w[i:i+k], " ")
	}
}

// Generate writes n notes of about words words in Folders folders of project
// `space` under dir and commits them with the git command line.
func Generate(dir string, n, words int, sents []string, rng *rand.Rand) error {
	return GenerateHistory(dir, n, words, 1, sents, rng)
}

// Folders is how many folders of project `space` the generated notes are
// spread over, note i in folder i mod Folders: 100 unless a benchmark
// measures another shape (1: every note in one folder, where each
// commit's tree lists them all and git's walks over history grow with
// notes times commits).
var Folders = 100

// NotePath is the vault-relative path of the i-th generated note.
func NotePath(i int) string {
	return fmt.Sprintf("space/f%03d/Note %06d.md", i%Folders, i)
}

// GenerateHistory is Generate with the notes spread over commits commits
// (1 to n), each adding the next slice of notes in order: a vault's cost
// at open follows its git history (issue 16), so a benchmark must be able
// to give the same files a deep history. More than one commit is made
// with git fast-import (seconds for 100,000 commits, where a commit
// command each would take hours).
func GenerateHistory(dir string, n, words, commits int, sents []string, rng *rand.Rand) error {
	if commits < 1 || commits > max(n, 1) {
		return fmt.Errorf("commits: %d is not between 1 and the %d notes", commits, n)
	}
	if err := os.MkdirAll(filepath.Join(dir, "space"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "space", vault.ProjectMarker), []byte("handle: space\nname: Space\n"), 0o644); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if i < Folders {
			if err := os.MkdirAll(filepath.Join(dir, "space", fmt.Sprintf("f%03d", i)), 0o755); err != nil {
				return err
			}
		}
		var b strings.Builder
		for cnt := 0; cnt < words; {
			s := sents[rng.Intn(len(sents))]
			b.WriteString(s)
			b.WriteString(" ")
			cnt += len(strings.Fields(s))
		}
		body := fmt.Sprintf("---\nid: %s\ntype: note\ntags: [t%d]\n---\n# Note %06d\n\n%s\n", note.NewID(), i%50, i, b.String())
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(NotePath(i))), []byte(body), 0o644); err != nil {
			return err
		}
	}
	if err := Git(dir, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	if commits == 1 {
		if err := Git(dir, "add", "-A"); err != nil {
			return err
		}
		return Git(dir, "commit", "-q", "-m", "notes")
	}
	if err := importHistory(dir, n, commits); err != nil {
		return err
	}
	return Git(dir, "reset", "-q") // the index, to the files already in place
}

// importHistory commits the notes already written under dir in commits
// commits on main, with git fast-import reading a stream written as the
// files are read (100,000 notes are hundreds of MiB).
func importHistory(dir string, n, commits int) error {
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	werr := writeHistory(w, dir, n, commits)
	if werr == nil {
		werr = w.Flush()
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w\n%s", err, out.String())
	}
	if werr != nil {
		return fmt.Errorf("git fast-import: %w", werr)
	}
	return nil
}

// writeHistory writes the fast-import stream: commit k adds notes
// [k·n/commits, (k+1)·n/commits), the first one the project marker too.
func writeHistory(w *bufio.Writer, dir string, n, commits int) error {
	when := time.Now().Unix() - int64(commits)
	files := []string{"space/" + vault.ProjectMarker}
	for k := 0; k < commits; k++ {
		for i := k * n / commits; i < (k+1)*n/commits; i++ {
			files = append(files, NotePath(i))
		}
		msg := fmt.Sprintf("notes %d of %d", k+1, commits)
		fmt.Fprintf(w, "commit refs/heads/main\ncommitter bench <bench@cairn.local> %d +0000\ndata %d\n%s\n", when+int64(k), len(msg), msg)
		for _, p := range files {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			// The generated paths hold spaces, no quotes or newlines.
			fmt.Fprintf(w, "M 100644 inline \"%s\"\ndata %d\n", p, len(b))
			w.Write(b)
			w.WriteString("\n")
		}
		files = files[:0]
	}
	return nil
}

// Git runs the git command line in dir as a bench identity.
func Git(dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@cairn.local", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@cairn.local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return nil
}
