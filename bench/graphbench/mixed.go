package main

import (
	"fmt"
	"math/rand"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/doctor"
	"github.com/cairn-dev/cairn/vault/note"
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

// hubBacklink is backlink k to "hub/Hub note.md" from a note one folder
// down from the root, written in one of eight forms: a name, a label, a
// path with a nested heading, an embed of a block, Markdown links
// URL-encoded, relative with a heading and in angle brackets, and a link
// property.
func hubBacklink(k int) (frontmatter, body string) {
	switch k % 8 {
	case 0:
		return "", "[[Hub note]]"
	case 1:
		return "", "[[Hub note|the hub]]"
	case 2:
		return "", "[[hub/Hub note#Part#Detail]]"
	case 3:
		return "", "![[Hub note#^top]]"
	case 4:
		return "", "[hub](hub/Hub%20note.md)"
	case 5:
		return "", "[hub](../hub/Hub%20note.md#Part)"
	case 6:
		return "", "[hub](<hub/Hub note.md>)"
	}
	return "up: \"[[Hub note]]\"\n", "nothing in the body"
}

// writeMixedVault writes the mixed vault of n notes to disk (one commit,
// with git fast-import), plus a hub note with backlinks notes linking to
// it in every form (hubBacklink). It returns the vault's folder and a
// function removing it.
func writeMixedVault(n, backlinks int) (string, func()) {
	return fastVault("cairn-graphbench-doctor-", func(file func(p, content string)) {
		rng := rand.New(rand.NewSource(1))
		for i := 0; i < n; i++ {
			file(mixedPath(i), "---\nid: "+note.NewID()+"\n---\n"+string(mixedBody(rng, i, n)))
		}
		for _, a := range mixedAttachments(n) {
			file(a, "binary")
		}
		if backlinks > 0 {
			file("hub/Hub note.md", "---\nid: "+note.NewID()+"\n---\n# Hub note\n\nThe note everyone links to. ^top\n\n## Part\n\n### Detail\n")
		}
		for k := 0; k < backlinks; k++ {
			fm, link := hubBacklink(k)
			file(fmt.Sprintf("h%02d/Source %04d.md", k%50, k), fmt.Sprintf("---\nid: %s\n%s---\n# Source %04d\n\nSee %s, and more text.\n", note.NewID(), fm, k, link))
		}
	})
}

// doctorBench opens the mixed vault (with a hub of backlinks) cold, runs
// cairn doctor on it, then renames the hub and moves it: every backlink
// rewritten in its own style, in one commit each, checked.
func doctorBench(n, backlinks int) {
	dir, cleanup := writeMixedVault(n, backlinks)
	defer cleanup()
	t0 := time.Now()
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	defer v.Close()
	open := time.Since(t0)
	t0 = time.Now()
	findings := doctor.Check(v)
	took := time.Since(t0)
	summary := ""
	for _, f := range findings {
		if f.Check == "links" && f.Level == "ok" {
			summary = f.Message
		}
	}
	fmt.Printf("| vault open, %d notes of mixed link forms (cold: version map, catalog, graph) | %v |\n", n+backlinks+1, open.Round(time.Millisecond))
	fmt.Printf("| cairn doctor on it (%s) | %v |\n", summary, took.Round(time.Millisecond))
	if backlinks == 0 {
		return
	}
	owner := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Tool: "bench"}
	for _, op := range []struct {
		what string
		do   func() (*vault.Moved, error)
	}{
		{"rename_note", func() (*vault.Moved, error) {
			return v.RenameNote(owner, "hub/Hub note.md", "Hub renamed", "", false)
		}},
		{"move_note to another folder", func() (*vault.Moved, error) {
			return v.MoveNote(owner, "hub/Hub renamed.md", "f001", "")
		}},
	} {
		commits := gitOut(dir, "rev-list", "--count", "HEAD")
		t0 = time.Now()
		m, err := op.do()
		must(err)
		took := time.Since(t0)
		after := gitOut(dir, "rev-list", "--count", "HEAD")
		hub, err := v.GetNote(owner, m.ID, true, "")
		must(err)
		if len(hub.Links.Incoming) != backlinks {
			panic(fmt.Sprintf("%s: %d backlinks, then %d", op.what, backlinks, len(hub.Links.Incoming)))
		}
		fmt.Printf("| %s of a note with %d backlinks of 8 forms, in this vault (%d notes rewritten, commits %s → %s, every backlink still names it) | %v |\n",
			op.what, backlinks, len(m.Rewritten), commits, after, took.Round(time.Millisecond))
	}
}

func gitOut(dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	must(err)
	return strings.TrimSpace(string(out))
}
