package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/wikilinks"
)

// A vault of mixed link forms, as an Obsidian vault has them: n notes in
// 100 folders, one file name in two folders for one note in ten (the
// same-folder-first and shortest-path rules at work), one attachment per
// ten notes, and ten links per note written in every form: wikilinks with
// a label, a path, a nested heading, a block; embeds of images and PDFs;
// Markdown links URL-encoded, in angle brackets, relative; an external
// URL (not a vault link) and a link in code (not a link either).

func mixedPath(i int) string {
	if i%10 == 0 && i%100 != 0 {
		// The name of the hundred's first note, one folder down: links from
		// its own folder find it, links from elsewhere the shorter path.
		return fmt.Sprintf("f%03d/sub/Note %06d.md", i%100, i-i%100)
	}
	return fmt.Sprintf("f%03d/Note %06d.md", i%100, i)
}

func mixedName(i int) string {
	p := mixedPath(i)
	return strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".md")
}

func mixedBody(rng *rand.Rand, i, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nSome words about the note. ^b%d\n\n## Part\n\n### Detail\n\n", mixedName(i), i)
	for k := 0; k < 10; k++ {
		j := rng.Intn(n)
		name, path := mixedName(j), strings.TrimSuffix(mixedPath(j), ".md")
		switch k {
		case 0:
			fmt.Fprintf(&b, "See [[%s]]. ", name)
		case 1:
			fmt.Fprintf(&b, "And [[%s|that one]]. ", name)
		case 2:
			fmt.Fprintf(&b, "Also [[%s#Part#Detail]].\n", path)
		case 3:
			fmt.Fprintf(&b, "Block [[%s#^b%d]]. ", name, j)
		case 4:
			fmt.Fprintf(&b, "![[pic %05d.png]] ", j/10)
		case 5:
			fmt.Fprintf(&b, "[encoded](%s.md) ", strings.ReplaceAll(path, " ", "%20"))
		case 6:
			fmt.Fprintf(&b, "[angle](<%s.md#Part>)\n", path)
		case 7:
			fmt.Fprintf(&b, "[relative](../%s.md) ", strings.ReplaceAll(path, " ", "%20"))
		case 8:
			fmt.Fprintf(&b, "![doc](docs/file%%20%05d.pdf) ", j/10)
		case 9:
			fmt.Fprintf(&b, "[[Not written %d]] [site](https://example.com/%d) `[[code %d]]`\n", j, j, j)
		}
	}
	return []byte(b.String() + "\n%% a comment [[hidden]] %%\n")
}

func mixedAttachments(n int) []string {
	var out []string
	for a := 0; a < (n+9)/10; a++ {
		out = append(out, fmt.Sprintf("assets/pic %05d.png", a), fmt.Sprintf("docs/file %05d.pdf", a))
	}
	return out
}

// mixedBuild parses and indexes n such notes as the vault does on a cold
// start, then resolves every link once (what cairn doctor's link check
// does), and counts what Obsidian would make of them.
func mixedBuild(n int) {
	rng := rand.New(rand.NewSource(1))
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = mixedBody(rng, i, n)
	}
	runtime.GC()
	t0 := time.Now()
	g := wikilinks.New()
	for _, a := range mixedAttachments(n) {
		g.SetFile(a)
	}
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
	links := 0
	for i, ls := range parsed {
		links += len(ls)
		g.Set(wikilinks.Note{ID: fmt.Sprintf("id%06d", i), Path: mixedPath(i), Title: mixedName(i), Links: ls})
	}
	build := time.Since(t0)
	t0 = time.Now()
	audit := g.Audit()
	resolve := time.Since(t0)
	only := 0
	for _, e := range audit {
		if e.Status == wikilinks.Resolved {
			only++
		}
	}
	fmt.Printf("| %d | %d | %v | %v | %d | %d |\n", n, links, build.Round(time.Millisecond), resolve.Round(time.Millisecond), len(audit)-only, only)
}

// doctorBench writes the same vault to disk (one commit, with git
// fast-import), opens it cold and runs cairn doctor on it.
func doctorBench(n int) {
	tmp, err := os.MkdirTemp("", "cairn-graphbench-doctor-")
	must(err)
	defer os.RemoveAll(tmp)
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
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < n; i++ {
		file(mixedPath(i), "---\nid: "+vault.NewID()+"\n---\n"+string(mixedBody(rng, i, n)))
	}
	for _, a := range mixedAttachments(n) {
		file(a, "binary")
	}
	w.Flush()
	in.Close()
	must(cmd.Wait())
	gitRun(dir, "reset", "-q", "--hard", "main")
	t0 := time.Now()
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	defer v.Close()
	open := time.Since(t0)
	t0 = time.Now()
	findings := v.Doctor()
	doctor := time.Since(t0)
	summary := ""
	for _, f := range findings {
		if f.Check == "links" && f.Level == "ok" {
			summary = f.Message
		}
	}
	fmt.Printf("| vault open, %d notes of mixed link forms (cold: version map, catalog, graph) | %v |\n", n, open.Round(time.Millisecond))
	fmt.Printf("| cairn doctor on it (%s) | %v |\n", summary, doctor.Round(time.Millisecond))
}
