// Command graphbench measures the link graph: building it for 10,000 and
// 100,000 generated notes with ~10 links each (parse + index, time and
// memory), the same for notes whose links are written in every form
// (wikilinks, embeds, Markdown links, attachments; mixed.go) with every
// link resolved once, cairn doctor on such a vault on disk, get_note with
// links p50 on a real vault, and rename_note and move_note of a note that
// has 1,000 backlinks of every form in that mixed vault.
//
//	go run ./bench/graphbench
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

func main() {
	sizes := flag.String("sizes", "10000,100000", "graph sizes (notes)")
	backlinks := flag.Int("backlinks", 1000, "backlinks of the renamed note")
	mixed := flag.String("mixed", "10000", "sizes (notes) of the mixed-forms graph; the first is also written to disk for cairn doctor (empty: none)")
	flag.Parse()
	var ns []int
	for _, s := range splitComma(*sizes) {
		var n int
		fmt.Sscan(s, &n)
		ns = append(ns, n)
	}
	fmt.Println("| notes | links | parse + build | updates of one note, p50 | heap |")
	fmt.Println("|---|---|---|---|---|")
	for _, n := range ns {
		graphBuild(n)
	}
	fmt.Println()
	if *mixed != "" {
		fmt.Println("| notes | links (mixed forms) | parse + build | resolve every link | unresolved or ambiguous | cairn only |")
		fmt.Println("|---|---|---|---|---|---|")
		var ms []int
		for _, s := range splitComma(*mixed) {
			var n int
			fmt.Sscan(s, &n)
			ms = append(ms, n)
			mixedBuild(n)
		}
		fmt.Println()
		fmt.Printf("| figure | measured |\n|---|---|\n")
		doctorBench(ms[0], *backlinks)
		fmt.Println()
	}
	renameBench(*backlinks)
}

func splitComma(s string) []string {
	var out []string
	cur := ""
	for _, r := range s {
		if r == ',' {
			out = append(out, cur)
			cur = ""
			continue
		}
		cur += string(r)
	}
	return append(out, cur)
}

func body(rng *rand.Rand, i, n int) []byte {
	b := fmt.Sprintf("# Note %06d\n\nSome words about the note.\n\n", i)
	for k := 0; k < 10; k++ {
		j := rng.Intn(n)
		switch k % 3 {
		case 0:
			b += fmt.Sprintf("See [[Note %06d]]. ", j)
		case 1:
			b += fmt.Sprintf("And [[Note %06d|that one]]. ", j)
		case 2:
			b += fmt.Sprintf("Also [[f%03d/Note %06d#Part]].\n", j%100, j)
		}
	}
	return []byte(b + "\n## Part\n\nmore words\n")
}

func graphBuild(n int) {
	rng := rand.New(rand.NewSource(1))
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = body(rng, i, n)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	g := wikilinks.New()
	links := 0
	// As the vault does on a cold start: parse on every core, index in one.
	parsed := make([][]wikilinks.Link, n)
	var wg sync.WaitGroup
	workers := runtime.NumCPU()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				parsed[i] = wikilinks.Parse(bodies[i])
			}
		}(w)
	}
	wg.Wait()
	for i, ls := range parsed {
		links += len(ls)
		g.Set(wikilinks.Note{ID: fmt.Sprintf("id%06d", i), Path: fmt.Sprintf("f%03d/Note %06d.md", i%100, i), Title: fmt.Sprintf("Note %06d", i), Links: ls})
	}
	build := time.Since(t0)
	parsed = nil
	runtime.GC()
	runtime.ReadMemStats(&m1)
	// Updating one note: re-parse and re-index it.
	var upd []time.Duration
	for k := 0; k < 500; k++ {
		i := rng.Intn(n)
		t := time.Now()
		ls := wikilinks.Parse(bodies[i])
		g.Set(wikilinks.Note{ID: fmt.Sprintf("id%06d", i), Path: fmt.Sprintf("f%03d/Note %06d.md", i%100, i), Title: fmt.Sprintf("Note %06d", i), Links: ls})
		upd = append(upd, time.Since(t))
	}
	sort.Slice(upd, func(a, b int) bool { return upd[a] < upd[b] })
	fmt.Printf("| %d | %d | %v | %v | %.0f MiB |\n", n, links, build.Round(time.Millisecond), upd[len(upd)/2].Round(time.Microsecond), float64(m1.HeapAlloc-m0.HeapAlloc)/(1<<20))
	runtime.KeepAlive(g)
}

// renameBench makes a vault where one note has many backlinks (half by
// title, half by path, so the rename rewrites half), then measures
// get_note with links and rename_note.
func renameBench(backlinks int) {
	dir, cleanup := fastVault("cairn-graphbench-", func(file func(p, content string)) {
		file("s/"+vault.ProjectMarker, "handle: s\nname: S\n")
		file("s/hub/Hub.md", "---\nid: "+note.NewID()+"\n---\n# Hub\n\nThe note everyone links to.\n")
		for i := 0; i < backlinks; i++ {
			target := "[[Hub]]"
			if i%2 == 1 {
				target = "[[s/hub/Hub]]"
			}
			file(fmt.Sprintf("s/f%02d/Source %04d.md", i%50, i), fmt.Sprintf("---\nid: %s\n---\n# Source %04d\n\nLinks to %s and more text.\n", note.NewID(), i, target))
		}
	})
	defer cleanup()
	t0 := time.Now()
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	defer v.Close()
	open := time.Since(t0)
	owner := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Tool: "bench"}
	var det []time.Duration
	for k := 0; k < 200; k++ {
		t := time.Now()
		n, err := v.GetNote(owner, "[[Hub]]", true, "")
		must(err)
		if len(n.Links.Incoming) != backlinks {
			panic(fmt.Sprintf("incoming %d", len(n.Links.Incoming)))
		}
		det = append(det, time.Since(t))
	}
	sort.Slice(det, func(a, b int) bool { return det[a] < det[b] })
	var plain []time.Duration
	for k := 0; k < 200; k++ {
		t := time.Now()
		_, err := v.GetNote(owner, fmt.Sprintf("Source %04d", k%backlinks), true, "")
		must(err)
		plain = append(plain, time.Since(t))
	}
	sort.Slice(plain, func(a, b int) bool { return plain[a] < plain[b] })
	t0 = time.Now()
	m, err := v.RenameNote(owner, "[[Hub]]", "Hub renamed", "", false)
	must(err)
	rename := time.Since(t0)
	t0 = time.Now()
	m2, err := v.RenameNote(owner, "[[Hub renamed]]", "Hub again", "", true)
	// (keepAlias: the old title joins the aliases; links are rewritten alike)
	must(err)
	renameAll := time.Since(t0)
	fmt.Printf("| figure | measured |\n|---|---|\n")
	fmt.Printf("| vault open, %d notes (cold) | %v |\n", backlinks+1, open.Round(time.Millisecond))
	fmt.Printf("| get_note detailed p50, a note with 1 link (vault, no transport) | %v |\n", plain[len(plain)/2].Round(time.Microsecond))
	fmt.Printf("| get_note detailed p50, the note with %d backlinks | %v |\n", backlinks, det[len(det)/2].Round(time.Microsecond))
	fmt.Printf("| rename_note, %d backlinks by name and by path, all rewritten (%d notes) | %v |\n", backlinks, len(m.Rewritten), rename.Round(time.Millisecond))
	fmt.Printf("| rename_note again with keepAlias (%d notes) | %v |\n", len(m2.Rewritten), renameAll.Round(time.Millisecond))
}

// fastVault writes a vault in one commit with git fast-import (fast for
// tens of thousands of files): cairn's settings, then what write adds. It
// returns the vault's folder and a function removing it.
func fastVault(prefix string, write func(file func(p, content string))) (string, func()) {
	tmp, err := os.MkdirTemp("", prefix)
	must(err)
	dir := filepath.Join(tmp, "v")
	must(os.MkdirAll(dir, 0o755))
	gitRun(dir, "init", "-q", "-b", "main")
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	must(err)
	must(cmd.Start())
	w := bufio.NewWriter(in)
	file := func(p, content string) {
		fmt.Fprintf(w, "M 100644 inline \"%s\"\ndata %d\n%s\n", p, len(content), content)
	}
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter b <b@x> 1700000000 +0000\ndata 5\nvault\n")
	file(".gitignore", ".cairn/cache/\n.cairn/secrets/\n")
	file(".cairn/config.yaml", "format: 1\n")
	file(".cairn/access.yaml", "owner: owner\n")
	write(file)
	must(w.Flush())
	must(in.Close())
	must(cmd.Wait())
	gitRun(dir, "reset", "-q", "--hard", "main")
	return dir, func() { os.RemoveAll(tmp) }
}

func gitRun(dir string, args ...string) {
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		panic(fmt.Sprintf("git %v: %v\n%s", args, err, out))
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
