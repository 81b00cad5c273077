package vault

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRandomReorganizationsNeverBreakALink builds a vault whose notes link
// to each other in every form (title, alias, full path, path tail, id,
// typed links), then applies a random sequence of moves and renames of
// notes and folders. After each step, every link that resolved at the
// start must still resolve to the same note id.
func TestRandomReorganizationsNeverBreakALink(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { randomReorg(t, seed) })
	}
}

func randomReorg(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	dir := filepath.Join(t.TempDir(), "v")
	if _, err := Init(dir, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "s"), 0o755)
	os.WriteFile(filepath.Join(dir, "s", ProjectMarker), []byte("handle: s\nname: S\n"), 0o644)
	folders := []string{"s/a", "s/a/x", "s/b", "s/c"}
	const n = 30
	titles := make([]string, n)
	ids := make([]string, n)
	paths := make([]string, n)
	for i := 0; i < n; i++ {
		titles[i] = fmt.Sprintf("Note %02d", i)
		ids[i] = NewID()
		paths[i] = folders[i%len(folders)] + "/" + titles[i] + ".md"
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nid: %s\naliases: [Alias %02d]\nlinks:\n  - {type: depends_on, to: \"[[%s]]\"}\n---\n# %s\n\n", ids[i], i, titles[rng.Intn(n)], titles[i])
		for k := 0; k < 6; k++ {
			j := rng.Intn(n)
			switch rng.Intn(5) {
			case 0:
				fmt.Fprintf(&b, "See [[%s]]. ", titles[j])
			case 1:
				fmt.Fprintf(&b, "See [[Alias %02d|alias]]. ", j)
			case 2:
				fmt.Fprintf(&b, "See [[%s]]. ", strings.TrimSuffix(paths[j], ".md"))
			case 3:
				fmt.Fprintf(&b, "See [[%s#Part]]. ", paths[j][strings.Index(paths[j], "/")+1:])
			case 4:
				fmt.Fprintf(&b, "See [[%s]]. ", ids[j])
			}
		}
		b.WriteString("\n\n## Part\n\ntext\n")
		full := filepath.Join(dir, filepath.FromSlash(paths[i]))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(b.String()), 0o644)
	}
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "generated")
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	before := resolvedLinks(v)
	if len(before) < n*6 {
		t.Fatalf("only %d links resolve at the start", len(before))
	}
	ops := 0
	for step := 0; step < 40; step++ {
		id := ids[rng.Intn(n)]
		var err error
		what := ""
		switch rng.Intn(4) {
		case 0:
			to := folders[rng.Intn(len(folders))]
			what = "move_note " + id + " → " + to
			_, err = v.MoveNote(owner, id, to, "")
		case 1:
			title := fmt.Sprintf("Renamed %d-%d", seed, step)
			what = "rename_note " + id + " → " + title
			_, err = v.RenameNote(owner, id, title, "", rng.Intn(2) == 0)
		case 2:
			f := folders[1+rng.Intn(len(folders)-1)]
			if _, statErr := os.Stat(filepath.Join(dir, f)); statErr != nil {
				continue
			}
			parent := []string{"s", "s/b", "s/c"}[rng.Intn(3)]
			what = "move_folder " + f + " → " + parent
			var m *Moved
			if m, err = v.MoveFolder(owner, "", f, parent); err == nil {
				for i := range folders {
					if folders[i] == f || strings.HasPrefix(folders[i], f+"/") {
						folders[i] = m.To + strings.TrimPrefix(folders[i], f)
					}
				}
			}
		case 3:
			f := folders[1+rng.Intn(len(folders)-1)]
			if _, statErr := os.Stat(filepath.Join(dir, f)); statErr != nil {
				continue
			}
			name := fmt.Sprintf("d%d", step)
			what = "rename_folder " + f + " → " + name
			var m *Moved
			if m, err = v.RenameFolder(owner, "", f, name); err == nil {
				for i := range folders {
					if folders[i] == f || strings.HasPrefix(folders[i], f+"/") {
						folders[i] = m.To + strings.TrimPrefix(folders[i], f)
					}
				}
			}
		}
		if err != nil {
			// Refusals (onto an existing path, into itself) are fine; they must change nothing.
			if _, ok := err.(*ArgError); !ok {
				t.Fatalf("step %d %s: %v", step, what, err)
			}
			continue
		}
		ops++
		sameResolution(t, before, resolvedLinks(v), fmt.Sprintf("step %d (%s)", step, what))
	}
	if ops < 15 {
		t.Fatalf("only %d operations went through", ops)
	}
	cleanAndSound(t, dir)
}
