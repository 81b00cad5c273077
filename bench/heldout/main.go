// Command heldout measures retrieval on sets the search code was never
// tuned on, with natural questions written before the corpus was built or
// any search run:
//
//   - go (questions.tsv): one note per package of Go's standard library
//     (its package documentation and a line per exported function and
//     type, read from the Go installation running the bench);
//   - fr-man (questions-fr.tsv): one note per French manual page installed
//     on the machine (/usr/share/man/fr, sections 1, 5 and 8, rendered by
//     man), questions in French, some typed without accents;
//   - web (web/, see web.go): passages of Go's documentation, keyword
//     queries, graded judgments, under numbered names and names without
//     order.
//
// It reports, per mode, hit@1, hit@5 and MRR@10 (a hit is any of the
// notes a question names), or nDCG@10 for web, and search latency, beside
// the bench's own plain BM25 (bench/bm25).
//
//	go run ./bench/heldout [-set go|fr-man|web] [-names numbered|hashed|both]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/bm25"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// question is one line of questions.tsv.
type question struct {
	text    string
	answers map[string]bool // import paths
}

func main() {
	set := flag.String("set", "go", "the set: go (Go's standard library), fr-man (French manual pages) or web (passages of Go's documentation, graded)")
	modes := flag.String("modes", "lexical,semantic,hybrid", "modes to measure")
	names := flag.String("names", "both", "web: the notes' names, numbered, hashed (without order) or both")
	show := flag.Bool("v", false, "print each question's top result per mode")
	flag.Parse()
	if *set == "web" {
		for _, n := range []string{"numbered", "hashed"} {
			if *names != "both" && *names != n {
				continue
			}
			if err := runWeb(n == "numbered", strings.Split(*modes, ","), *show); err != nil {
				fmt.Fprintln(os.Stderr, "heldout:", err)
				os.Exit(1)
			}
		}
		return
	}
	c, ok := corpora[*set]
	if !ok {
		fmt.Fprintf(os.Stderr, "heldout: -set %q: go or fr-man\n", *set)
		os.Exit(2)
	}
	if err := run(c, strings.Split(*modes, ","), *show); err != nil {
		fmt.Fprintln(os.Stderr, "heldout:", err)
		os.Exit(1)
	}
}

// corpus is one set: its questions and how its notes are written and
// named (key: the name a question's answers use, from a note's path).
type corpus struct {
	questions string
	write     func(dir string) (int, error)
	key       func(path string) string
}

var corpora = map[string]corpus{
	"go":     {"bench/heldout/questions.tsv", writeCorpus, importPath},
	"fr-man": {"bench/heldout/questions-fr.tsv", writeManCorpus, manName},
}

func run(c corpus, modes []string, show bool) error {
	qs, err := readQuestions(c.questions)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "heldout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	n, err := c.write(src)
	if err != nil {
		return err
	}
	v, done, err := openBenchVault(tmp, src)
	if err != nil {
		return err
	}
	defer done()
	fmt.Printf("%d notes (%s), %d questions\n\n", n, runtime.Version(), len(qs))
	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "bench"}
	fmt.Println("| mode | hit@1 | hit@5 | MRR@10 | p50 |")
	fmt.Println("|---|---|---|---|---|")
	if err := bm25Row(c, src, qs, show); err != nil {
		return err
	}
	for _, mode := range modes {
		var hit1, hit5, mrr float64
		var lat []time.Duration
		for _, q := range qs {
			t0 := time.Now()
			res, err := v.Search(context.Background(), caller, vault.SearchArgs{Query: q.text, Project: "std", Limit: 10, Mode: mode})
			lat = append(lat, time.Since(t0))
			if err != nil {
				return fmt.Errorf("%q: %w", q.text, err)
			}
			rank := 0
			for i, h := range res.Results {
				if q.answers[c.key(h.Path)] {
					rank = i + 1
					break
				}
			}
			if show {
				top := ""
				if len(res.Results) > 0 {
					top = c.key(res.Results[0].Path)
				}
				fmt.Printf("  %s | %q: rank %d, top %s\n", mode, q.text, rank, top)
			}
			if rank == 1 {
				hit1++
			}
			if rank >= 1 && rank <= 5 {
				hit5++
			}
			if rank > 0 {
				mrr += 1 / float64(rank)
			}
		}
		k := float64(len(qs))
		fmt.Printf("| %s | %.3f | %.3f | %.3f | %.1f ms |\n", mode, hit1/k, hit5/k, mrr/k, float64(measure.Pct(lat, 50).Microseconds())/1000)
	}
	return nil
}

// openBenchVault makes a vault of the notes in src (under tmp), opens
// it, and returns once its index and vectors are built.
func openBenchVault(tmp, src string) (*vault.Vault, func(), error) {
	vdir := filepath.Join(tmp, "vault")
	if _, err := vault.Init(vdir, vault.InitOptions{From: src}); err != nil {
		return nil, nil, err
	}
	v, err := vault.Open(vdir, vault.Options{})
	if err != nil {
		return nil, nil, err
	}
	ix, err := v.SearchIndex()
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	ix.WaitVectors(10 * time.Minute)
	return v, func() { v.Close() }, nil
}

// bm25Row prints the bench's own plain BM25 over the notes' files.
func bm25Row(c corpus, src string, qs []question, show bool) error {
	texts := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		texts[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		return err
	}
	ref := bm25.New(texts)
	var hit1, hit5, mrr float64
	for _, q := range qs {
		got, rank := ref.Search(q.text, 10), 0
		for i, p := range got {
			if q.answers[c.key(p)] {
				rank = i + 1
				hit1 += b2f(i == 0)
				hit5 += b2f(i < 5)
				mrr += 1 / float64(i+1)
				break
			}
		}
		if show && len(got) > 0 {
			fmt.Printf("  bm25 | %q: rank %d, top %s\n", q.text, rank, c.key(got[0]))
		}
	}
	k := float64(len(qs))
	fmt.Printf("| plain BM25 (bench) | %.3f | %.3f | %.3f | |\n", hit1/k, hit5/k, mrr/k)
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func readQuestions(file string) ([]question, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []question
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		text, ans, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s: %q has no tab", file, line)
		}
		q := question{text: text, answers: map[string]bool{}}
		for _, a := range strings.Split(ans, ",") {
			q.answers[strings.TrimSpace(a)] = true
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// notePath is where the note of a package goes: std/<path with / as ->.md.
func notePath(pkg string) string { return "std/" + strings.ReplaceAll(pkg, "/", "-") + ".md" }

// importPath reads a note's path back as its package.
func importPath(p string) string {
	return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(p, "std/"), ".md"), "-", "/")
}

// writeCorpus writes one note per public package of the standard
// library into dir/std, a project, and returns how many.
func writeCorpus(dir string) (int, error) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}", "std").Output()
	if err != nil {
		return 0, fmt.Errorf("go list std: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "std"), 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "std", ".cairn-project.yaml"), []byte("handle: std\nname: Standard library\n"), 0o644); err != nil {
		return 0, err
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, pdir, _ := strings.Cut(line, "\t")
		if strings.Contains(pkg, "internal") || strings.HasPrefix(pkg, "vendor/") || strings.Contains(pkg, "-") {
			continue
		}
		body, err := packageNote(pkg, pdir)
		if err != nil || body == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(notePath(pkg))), []byte(body), 0o644); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// packageNote is a package's note: its documentation, then a line per
// exported function, type and method with the first sentence of its doc.
func packageNote(pkg, dir string) (string, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil || f.Name.Name == "main" || f.Name.Name == "documentation" {
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return "", nil
	}
	p, err := doc.NewFromFiles(fset, files, pkg)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Package %s\n\n%s\n", pkg, strings.TrimSpace(p.Doc))
	var items []string
	add := func(name, d string) {
		if s := p.Synopsis(d); s != "" {
			items = append(items, fmt.Sprintf("- %s: %s", name, s))
		}
	}
	for _, f := range p.Funcs {
		add(f.Name, f.Doc)
	}
	for _, t := range p.Types {
		add(t.Name, t.Doc)
		for _, f := range t.Funcs {
			add(f.Name, f.Doc)
		}
		for _, m := range t.Methods {
			add(t.Name+"."+m.Name, m.Doc)
		}
	}
	if len(items) > 0 {
		fmt.Fprintf(&b, "\n## Functions and types\n\n%s\n", strings.Join(items, "\n"))
	}
	return b.String(), nil
}

// manName reads a manual page note's path back as the page's name.
func manName(p string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(p, "std/"), ".md")
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i] // the section
	}
	return name
}

// writeManCorpus writes one note per French manual page of sections 1, 5
// and 8 into dir/std, a project, rendered as text by man.
func writeManCorpus(dir string) (int, error) {
	if err := os.MkdirAll(filepath.Join(dir, "std"), 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "std", ".cairn-project.yaml"), []byte("handle: std\nname: Pages de manuel\n"), 0o644); err != nil {
		return 0, err
	}
	n := 0
	for _, sec := range []string{"1", "5", "8"} {
		pages, _ := filepath.Glob(filepath.Join("/usr/share/man/fr", "man"+sec, "*."+sec+".gz"))
		for _, page := range pages {
			name := strings.TrimSuffix(filepath.Base(page), "."+sec+".gz")
			cmd := exec.Command("sh", "-c", "man -l \"$0\" 2>/dev/null | col -b", page)
			cmd.Env = append(os.Environ(), "MANWIDTH=100", "LANG=fr_FR.UTF-8", "MAN_KEEP_FORMATTING=0")
			text, err := cmd.Output()
			if err != nil || len(strings.TrimSpace(string(text))) == 0 {
				continue
			}
			body := fmt.Sprintf("# %s(%s)\n\n%s\n", name, sec, strings.ReplaceAll(string(text), "[[", "[ ["))
			if err := os.WriteFile(filepath.Join(dir, "std", name+"."+sec+".md"), []byte(body), 0o644); err != nil {
				return 0, err
			}
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("no French manual page in /usr/share/man/fr (Debian: apt-get install manpages-fr)")
	}
	return n, nil
}
