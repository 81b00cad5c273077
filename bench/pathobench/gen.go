package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/vault"
)

// query is 2 to 5 words taken from one sentence: what someone half
// remembers (as searchbench).
func query(rng *rand.Rand, sents []string) string {
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

// generate writes n notes in 100 folders of a project and commits them
// (as searchbench).
func generate(dir string, n, words int, sents []string, rng *rand.Rand) {
	must(os.MkdirAll(filepath.Join(dir, "space"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "space", vault.ProjectMarker), []byte("handle: space\nname: Space\n"), 0o644))
	for i := 0; i < n; i++ {
		folder := filepath.Join(dir, "space", fmt.Sprintf("f%03d", i%100))
		if i < 100 {
			must(os.MkdirAll(folder, 0o755))
		}
		var b strings.Builder
		for cnt := 0; cnt < words; {
			s := sents[rng.Intn(len(sents))]
			b.WriteString(s)
			b.WriteString(" ")
			cnt += len(strings.Fields(s))
		}
		body := fmt.Sprintf("---\nid: %s\ntype: note\ntags: [t%d]\n---\n# Note %06d\n\n%s\n", vault.NewID(), i%50, i, b.String())
		must(os.WriteFile(filepath.Join(folder, fmt.Sprintf("Note %06d.md", i)), []byte(body), 0o644))
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "notes"}} {
		git(dir, args...)
	}
}

// sentences are LoCoMo's dialogue turns.
func sentences(file string) ([]string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, err
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
