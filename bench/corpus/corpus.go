// Package corpus makes the benchmarks' generated vaults: notes of real
// English sentences (LoCoMo's dialogue turns) and the half-remembered
// queries searched in them. searchbench and pathobench share it, so their
// figures are measured on the same kind of vault.
package corpus

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/vault"
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

// Generate writes n notes of about words words in 100 folders of project
// `space` under dir and commits them with the git command line.
func Generate(dir string, n, words int, sents []string, rng *rand.Rand) error {
	if err := os.MkdirAll(filepath.Join(dir, "space"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "space", vault.ProjectMarker), []byte("handle: space\nname: Space\n"), 0o644); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		folder := filepath.Join(dir, "space", fmt.Sprintf("f%03d", i%100))
		if i < 100 {
			if err := os.MkdirAll(folder, 0o755); err != nil {
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
		body := fmt.Sprintf("---\nid: %s\ntype: note\ntags: [t%d]\n---\n# Note %06d\n\n%s\n", vault.NewID(), i%50, i, b.String())
		if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("Note %06d.md", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "notes"}} {
		if err := Git(dir, args...); err != nil {
			return err
		}
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
