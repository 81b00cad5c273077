package vault

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// TestRandomReorganizationsNeverBreakALink builds a vault whose notes link
// to each other in every form (title, alias, full path, path tail, id,
// typed links), then applies a random sequence of moves and renames of
// notes and folders. After each step, every link that resolved at the
// start must still resolve to the same note id.
func TestRandomReorganizationsNeverBreakALink(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { randomReorg(t, seed, false) })
	}
}

// TestRandomReorganizationsKeepOthersLinks is the same with two
// principals: bob writes the project and does everything; alice reads it
// and her private memory links to its notes in every form, folded titles
// included, which bob's new notes (titled like those) take over. Bob never
// hears of alice's notes, is never refused because of them, and every
// link, hers included, keeps naming its note.
func TestRandomReorganizationsKeepOthersLinks(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { randomReorg(t, seed, true) })
	}
}

// randomLink writes a link to note j in one of the forms.
func randomLink(b *strings.Builder, rng *rand.Rand, j int, titles, ids, paths []string, forms int) {
	switch rng.Intn(forms) {
	case 0:
		fmt.Fprintf(b, "See [[%s]]. ", titles[j])
	case 1:
		fmt.Fprintf(b, "See [[Alias %02d|alias]]. ", j)
	case 2:
		fmt.Fprintf(b, "See [[%s]]. ", strings.TrimSuffix(paths[j], ".md"))
	case 3:
		fmt.Fprintf(b, "See [[%s#Part]]. ", paths[j][strings.Index(paths[j], "/")+1:])
	case 4:
		fmt.Fprintf(b, "See [[%s]]. ", ids[j])
	case 5:
		fmt.Fprintf(b, "See [[%s]]. ", strings.ToLower(titles[j]))
	}
}

func randomReorg(t *testing.T, seed int64, others bool) {
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
		ids[i] = note.NewID()
		paths[i] = folders[i%len(folders)] + "/" + titles[i] + ".md"
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nid: %s\naliases: [Alias %02d]\nlinks:\n  - {type: depends_on, to: \"[[%s]]\"}\n---\n# %s\n\n", ids[i], i, titles[rng.Intn(n)], titles[i])
		for k := 0; k < 6; k++ {
			randomLink(&b, rng, rng.Intn(n), titles, ids, paths, 5)
		}
		b.WriteString("\n\n## Part\n\ntext\n")
		full := filepath.Join(dir, filepath.FromSlash(paths[i]))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(b.String()), 0o644)
	}
	who := owner
	if others {
		who = access.Caller{Principal: "bob", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
		os.WriteFile(filepath.Join(dir, AccessFile), []byte("owner: owner\nmembers:\n  bob:\n    s: write\n  alice:\n    s: read\n"), 0o644)
		for i := 0; i < 10; i++ {
			var b strings.Builder
			fmt.Fprintf(&b, "# Memory %02d\n\n", i)
			for k := 0; k < 8; k++ {
				randomLink(&b, rng, rng.Intn(n), titles, ids, paths, 6)
			}
			full := filepath.Join(dir, "people", "alice", "memory", fmt.Sprintf("Memory %02d.md", i))
			os.MkdirAll(filepath.Dir(full), 0o755)
			os.WriteFile(full, []byte(b.String()), 0o644)
		}
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
	ops, kinds := 0, 4
	if others {
		kinds = 5
	}
	for step := 0; step < 40; step++ {
		id := ids[rng.Intn(n)]
		var err error
		what := ""
		var told []string
		switch rng.Intn(kinds) {
		case 0:
			to := folders[rng.Intn(len(folders))]
			what = "move_note " + id + " → " + to
			var m *Moved
			if m, err = v.MoveNote(who, id, to, ""); err == nil {
				told = m.Rewritten
			}
		case 1:
			title := fmt.Sprintf("Renamed %d-%d", seed, step)
			what = "rename_note " + id + " → " + title
			var m *Moved
			if m, err = v.RenameNote(who, id, title, "", rng.Intn(2) == 0); err == nil {
				told = m.Rewritten
			}
		case 2:
			f := folders[1+rng.Intn(len(folders)-1)]
			if _, statErr := os.Stat(filepath.Join(dir, f)); statErr != nil {
				continue
			}
			parent := []string{"s", "s/b", "s/c"}[rng.Intn(3)]
			what = "move_folder " + f + " → " + parent
			var m *Moved
			if m, err = v.MoveFolder(who, "", f, parent); err == nil {
				told = m.Rewritten
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
			if m, err = v.RenameFolder(who, "", f, name); err == nil {
				told = m.Rewritten
				for i := range folders {
					if folders[i] == f || strings.HasPrefix(folders[i], f+"/") {
						folders[i] = m.To + strings.TrimPrefix(folders[i], f)
					}
				}
			}
		case 4:
			// A new note titled like one of the notes, in lower case: it takes
			// alice's folded links over, and no link of the project's notes.
			title := strings.ToLower(titles[rng.Intn(n)])
			to := folders[rng.Intn(len(folders))]
			what = "create_note " + title + " in " + to
			var w *Written
			if w, err = v.CreateNote(who, CreateArgs{Project: "s", Path: to, Body: "# " + title + "\n"}); err == nil {
				told = w.LinksRewrittenIn
			}
		}
		for _, p := range told {
			if strings.HasPrefix(p, "people/") {
				t.Fatalf("step %d %s: bob is told of %s", step, what, p)
			}
		}
		if err != nil && strings.Contains(err.Error(), "people/") {
			t.Fatalf("step %d %s: the refusal names a private note: %v", step, what, err)
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
	if kept := gitOut(t, dir, "log", "--format=%(trailers:key=Cairn-Link-Upkeep,valueonly)"); others && !strings.Contains(kept, "people/alice/") {
		t.Fatal("no step had to keep alice's links: the test tests nothing")
	}
	cleanAndSound(t, dir)
}
