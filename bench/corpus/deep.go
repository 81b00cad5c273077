package corpus

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/note"
)

// vocab is DeepHistory's made-up words: no real language, so no analyser
// or embedder knows them (bench/vaultbench measures writes and reads, not
// retrieval).
var vocab = func() []string {
	rng := rand.New(rand.NewSource(1))
	syl := []string{"ka", "lo", "mi", "ne", "ru", "ta", "ve", "so", "pi", "da", "gre", "str", "on", "el", "ix", "ar"}
	out := make([]string, 3000)
	for i := range out {
		var b strings.Builder
		for j := 0; j < 2+rng.Intn(3); j++ {
			b.WriteString(syl[rng.Intn(len(syl))])
		}
		out[i] = b.String()
	}
	return out
}()

// Words is n made-up words, a sentence break every twelve.
func Words(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if i%12 == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(vocab[rng.Intn(len(vocab))])
	}
	return b.String()
}

// DeepHistory makes a vault in dir with git fast-import: a first commit
// with the vault's settings and a project marker, then one commit per
// note (notes-1 of them, words made-up words each, over folders folders),
// a minute apart from since, as a vault written note by note over years.
// It returns the notes' paths.
func DeepHistory(dir string, notes, folders, words int, since time.Time) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := Git(dir, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	rng := rand.New(rand.NewSource(3))
	when := since.Unix()
	mark := 0
	commit := func(msg string, files map[string]string) {
		var paths []string
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		mark++
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter bench <bench@cairn.local> %d +0000\ndata %d\n%s\n", mark, when, len(msg), msg)
		if mark > 1 {
			fmt.Fprintf(w, "from :%d\n", mark-1)
		}
		for _, p := range paths {
			fmt.Fprintf(w, "M 100644 inline \"%s\"\ndata %d\n%s\n", p, len(files[p]), files[p])
		}
		when += 60
	}
	commit("vault settings", map[string]string{
		".gitignore":                   ".cairn/cache/\n.cairn/secrets/\n",
		".cairn/config.yaml":           "format: 1\nlanguage: en\n",
		".cairn/access.yaml":           "owner: owner\n",
		"space/" + vault.ProjectMarker: "handle: space\nname: Space\n",
	})
	var paths []string
	for i := 0; i < notes-1; i++ {
		p := fmt.Sprintf("space/f%03d/Note %05d.md", i%folders, i)
		body := fmt.Sprintf("---\nid: %s\ntype: note\ntags: [t%d, bench]\n---\n# Note %05d\n\n%s\n", note.NewID(), i%50, i, Words(rng, words))
		commit(fmt.Sprintf("note %d", i), map[string]string{p: body})
		paths = append(paths, p)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git fast-import: %w", err)
	}
	if err := Git(dir, "reset", "-q", "--hard", "main"); err != nil {
		return nil, err
	}
	return paths, nil
}
