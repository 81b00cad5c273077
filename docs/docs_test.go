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
var repoPath = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:cmd|vault|search|mcptools|gitstore|wikilinks|oauth|host|teamsync|bench|e2e|docs|sample-vault|\.ci)/[\w./-]*\.(?:go|md|mjs|json|yaml|yml|tsv|sh|txt|gz))\b`)

var mdLink = regexp.MustCompile(`\]\(([^)\s#]+)(?:#[^)]*)?\)`)

// fence and code are code blocks and spans: examples, not citations.
var (
	fence = regexp.MustCompile("(?ms)^```.*?^```")
	code  = regexp.MustCompile("`[^`\n]*`")
)

// Every document and Go file cites only files that exist: a relative
// Markdown link from where the document is, a repository path anywhere
// (in prose, in backticks, in a comment), and no document outside the
// repository (the spec's LIBRARY-NOTES.md, which a reader of the
// repository cannot open).
func TestDocumentsCiteFilesThatExist(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
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
		if !strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		text := string(data)
		if strings.Contains(text, "LIBRARY-NOTES") && rel != filepath.Join("docs", "docs_test.go") {
			t.Errorf("%s cites LIBRARY-NOTES.md, which is not in the repository: say what it needs in docs/", rel)
		}
		for _, m := range repoPath.FindAllStringSubmatch(text, -1) {
			checked++
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m[1]))); err != nil {
				t.Errorf("%s cites %s, which does not exist", rel, m[1])
			}
		}
		if strings.HasSuffix(name, ".md") {
			prose := code.ReplaceAllString(fence.ReplaceAllString(text, ""), "")
			for _, m := range mdLink.FindAllStringSubmatch(prose, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "`") {
					continue
				}
				checked++
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), filepath.FromSlash(target))); err != nil {
					t.Errorf("%s links to %s, which does not exist", rel, target)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d citations found: the patterns no longer match the documents", checked)
	}
}
