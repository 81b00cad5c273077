package vault

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// InitOptions for Init.
type InitOptions struct {
	Owner string // the owner principal; "" keeps an existing access file's, else "owner"
	From  string // a folder to copy notes from (a template such as sample-vault/)
}

// InitResult says what Init did.
type InitResult struct {
	Adopted bool   // an existing git repository was adopted
	Commit  string // the commit Init made ("" if there was nothing to commit)
	Notes   int    // notes in the vault
	Owner   string // the owner principal
}

const defaultConfig = `# cairn vault settings (committed with the vault). See docs/vault-format.md.
format: 1
language: en
`

// Init makes dir a cairn vault in one commit: a new git repository (from a
// template folder, or empty), or an existing repository adopted without
// touching its notes (only .cairn/ and .gitignore lines are added).
func Init(dir string, o InitOptions) (*InitResult, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	res := &InitResult{Adopted: gitstore.IsRepository(abs)}
	if o.From != "" {
		if res.Adopted {
			return nil, fmt.Errorf("%s is already a git repository; --from copies a template into a new folder only", dir)
		}
		if items, err := os.ReadDir(abs); err == nil && len(items) > 0 {
			return nil, fmt.Errorf("%s is not empty; --from copies a template into a new or empty folder", dir)
		}
		if err := copyTree(o.From, abs); err != nil {
			return nil, fmt.Errorf("copy %s: %w", o.From, err)
		}
	}
	if _, err := os.Stat(filepath.Join(abs, AccessFile)); err == nil && res.Adopted {
		if _, err := os.Stat(filepath.Join(abs, ConfigFile)); err == nil {
			return nil, fmt.Errorf("%s is already a cairn vault", dir)
		}
	}
	if err := os.MkdirAll(filepath.Join(abs, CacheDir), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(abs, ".cairn", "secrets"), 0o700); err != nil {
		return nil, err
	}
	var touched []string
	if _, err := os.Stat(filepath.Join(abs, ConfigFile)); err != nil {
		if err := os.WriteFile(filepath.Join(abs, ConfigFile), []byte(defaultConfig), 0o644); err != nil {
			return nil, err
		}
	}
	touched = append(touched, ConfigFile)
	a, err := loadAccess(abs)
	if err != nil {
		return nil, err
	}
	if o.Owner != "" {
		a.Owner = o.Owner
	}
	if err := ValidPrincipal(a.Owner); err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	data, err := a.Marshal()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(abs, AccessFile), data, 0o644); err != nil {
		return nil, err
	}
	touched = append(touched, AccessFile)
	if err := ensureGitignore(abs); err != nil {
		return nil, err
	}
	touched = append(touched, ".gitignore")

	var store *gitstore.Store
	if res.Adopted {
		store, err = gitstore.Open(abs, gitstore.Options{LockFile: filepath.Join(abs, CacheDir, "write.lock")})
	} else {
		store, err = gitstore.Init(abs, gitstore.Options{LockFile: filepath.Join(abs, CacheDir, "write.lock")})
		if err == nil {
			touched, err = trackedFiles(abs)
		}
	}
	if err != nil {
		return nil, err
	}
	var changes []gitstore.Change
	for _, p := range touched {
		data, err := os.ReadFile(filepath.Join(abs, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		changes = append(changes, gitstore.Change{Path: p, Content: data})
		if isNotePath(p) {
			res.Notes++
		}
	}
	msg := "Initialise the cairn vault"
	if res.Adopted {
		msg = "Adopt this repository as a cairn vault"
	}
	sig := gitstore.Signature{Name: a.Owner, Email: a.Owner + "@cairn.local"}
	h, err := store.Commit(gitstore.CommitRequest{Author: sig, Message: msg, Changes: changes, Trailers: []gitstore.Trailer{
		{Key: "Cairn-Tool", Value: "init"}, {Key: "Cairn-Principal", Value: a.Owner}, {Key: "Cairn-Actor", Value: "human"}}})
	if err != nil && err != gitstore.ErrNothingToCommit {
		return nil, fmt.Errorf("first commit: %w", err)
	}
	res.Commit, res.Owner = h, a.Owner
	if res.Adopted {
		paths, _ := store.Paths()
		res.Notes = 0
		for _, p := range paths {
			if isNotePath(p) {
				res.Notes++
			}
		}
	}
	return res, store.Close()
}

// ValidPrincipal checks a principal id: a lower-case word usable in paths.
func ValidPrincipal(p string) error {
	if p == "" || len(p) > 64 || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" || strings.HasPrefix(p, ".") || strings.HasPrefix(p, "-") {
		return fmt.Errorf("%q is not a valid principal (lower-case letters, digits, '-', '_', '.'; at most 64)", p)
	}
	if err := safeNewName(p); err != nil { // it names the folder people/<p>/
		return fmt.Errorf("%q is not a valid principal: %w", p, err)
	}
	return nil
}

func ensureGitignore(root string) error {
	path := filepath.Join(root, ".gitignore")
	data, _ := os.ReadFile(path)
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	out := string(data)
	for _, l := range gitignoreLines {
		if !have[l] {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += l + "\n"
		}
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// trackedFiles lists what a new vault's first commit holds: every file
// but .git and what .gitignore excludes.
func trackedFiles(root string) ([]string, error) {
	ps, _ := gitignore.ReadPatterns(osfs.New(root), nil)
	m := gitignore.NewMatcher(ps)
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if d.Name() == ".git" || m.Match(parts, true) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || m.Match(parts, false) {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ".git" || (rel != "." && strings.HasPrefix(filepath.ToSlash(rel), ".cairn/cache")) {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
