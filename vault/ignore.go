package vault

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreMatcher reads the vault's .gitignore and .git/info/exclude: a file
// git ignores is not part of the shared vault, so it is not a note (no
// tool sees it, and cairn never commits it). Nested .gitignore files are
// not read.
func (v *Vault) ignoreMatcher() gitignore.Matcher {
	var ps []gitignore.Pattern
	for _, f := range []string{".gitignore", filepath.Join(".git", "info", "exclude")} {
		file, err := os.Open(filepath.Join(v.root, f))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
		file.Close()
	}
	return gitignore.NewMatcher(ps)
}

func ignored(m gitignore.Matcher, rel string, dir bool) bool {
	return m.Match(strings.Split(rel, "/"), dir)
}
