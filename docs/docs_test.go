// Package docs holds cairn's documentation; its test checks that what the
// documents cite exists.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository's top-level folders: a path starting with one of them,
// with a file's extension, names a file of the repository.
var repoPath = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:cmd|vault|search|mcptools|gitstore|wikilinks|oauth|host|teamsync|internal|bench|e2e|docs|sample-vault|\.ci)/[\w./-]*\.(?:go|md|mjs|json|yaml|yml|tsv|sh|txt|gz))\b`)

// docName is a document cited by its name alone (README.md, say):
// some file of that name must be in the repository.
var docName = regexp.MustCompile(`\b([A-Z]+(?:[-_][A-Z]+)*\.md)\b`)

var mdLink = regexp.MustCompile(`\]\(([^)\s#]+)(?:#[^)]*)?\)`)

// fence and code are code blocks and spans: examples, not citations.
var (
	fence = regexp.MustCompile("(?ms)^```.*?^```")
	code  = regexp.MustCompile("`[^`\n]*`")
)

// Every document and Go file cites only files that exist: a relative
// Markdown link from where the document is, a repository path anywhere
// (in prose, in backticks, in a comment), and a document named alone
// (a reader of the repository cannot open one that lives outside it).
// Tests are left out of the last rule: they name the files they make.
func TestDocumentsCiteFilesThatExist(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	type source struct{ path, rel, text string }
	var sources []source
	names := map[string]bool{} // every file name in the repository
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".") && name != ".ci" && p != root || name == "sample-vault" {
				return filepath.SkipDir
			}
			return nil
		}
		names[name] = true
		if !strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sources = append(sources, source{p, rel, string(data)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, src := range sources {
		prose := src.text // a document's prose: its code blocks and spans are examples
		if strings.HasSuffix(src.rel, ".md") {
			prose = code.ReplaceAllString(fence.ReplaceAllString(src.text, ""), "")
		}
		for _, m := range repoPath.FindAllStringSubmatch(src.text, -1) {
			checked++
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m[1]))); err != nil {
				t.Errorf("%s cites %s, which does not exist", src.rel, m[1])
			}
		}
		if !strings.HasSuffix(src.rel, "_test.go") {
			for _, m := range docName.FindAllStringSubmatch(prose, -1) {
				checked++
				if !names[m[1]] {
					t.Errorf("%s cites %s, which is not in the repository: say what it needs in docs/", src.rel, m[1])
				}
			}
		}
		if strings.HasSuffix(src.rel, ".md") {
			for _, m := range mdLink.FindAllStringSubmatch(prose, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "`") {
					continue
				}
				checked++
				if _, err := os.Stat(filepath.Join(filepath.Dir(src.path), filepath.FromSlash(target))); err != nil {
					t.Errorf("%s links to %s, which does not exist", src.rel, target)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d citations found: the patterns no longer match the documents", checked)
	}
}
