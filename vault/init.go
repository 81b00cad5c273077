package vault

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
)

// InitOptions for Init.
type InitOptions struct {
	// Owner is the owner principal. For a new or adopted repository it is
	// committed in the access file ("" keeps an existing access file's,
	// else "owner"); for a clone of a vault it is this machine's, kept in
	// .cairn/local.yaml ("" keeps the committed one, or the local file's).
	Owner string
	From  string // a folder to copy notes from (a template such as sample-vault/)
	// RootProject makes the whole vault one project when the folder holds
	// none yet, so that the owner's agents can write at once: adopting
	// one's own notes and letting an agent write in them is the first use
	// (cairn init does unless --no-project). Without it, notes outside
	// every project are the owner's to read, and no agent can write until
	// cairn project create makes one.
	RootProject bool
	// Project is that project's handle ("" derives one from the folder's
	// name); giving one implies RootProject.
	Project string
}

// InitResult says what Init did.
type InitResult struct {
	Adopted bool   // an existing git repository was adopted
	Joined  bool   // it was a vault already (a clone): only this machine was set up, nothing committed
	Commit  string // the commit Init made ("" if there was nothing to commit)
	Notes   int    // notes in the vault
	Owner   string // the owner principal (on this machine)
	// Ignored are the ignore lines Init added: to .gitignore (committed)
	// for a new or adopted repository, to .git/info/exclude (this clone
	// only) when it joined a vault.
	Ignored []string
	// Skipped are files of a new vault left out of its first commit, as
	// "path: why" (a symbolic link, a file too large to share): they stay
	// on disk, untracked.
	Skipped []string
	Advice  []string // what a person may want to do next, said by cairn init
	// Project is the project the whole vault was made (nil when the folder
	// had projects already, or RootProject was not asked).
	Project *Project
}

const defaultConfig = `# cairn vault settings (committed with the vault). See docs/vault-format.md.
format: 1
language: en
`

// Init makes dir a cairn vault in one commit: a new git repository (from a
// template folder, empty, or a folder of notes such as an Obsidian vault),
// or an existing repository adopted. Either way the person's files are
// left as they are, byte for byte and file for file: the commit takes them
// as they are on disk and writes none of them back (an editor watching the
// folder sees nothing change, and the files keep their creation times,
// which Obsidian shows and sorts by); only .cairn/ is written and lines
// added to .gitignore. A repository that is a vault already (a clone of a
// team's vault) is set up for this machine instead, without a commit
// (join).
func Init(dir string, o InitOptions) (*InitResult, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	res := &InitResult{Adopted: gitstore.IsRepository(abs)}
	if !res.Adopted || !isVault(abs) {
		src := abs
		if o.From != "" {
			src = o.From
		}
		if res.Project, err = planRootProject(src, filepath.Base(abs), o); err != nil {
			return nil, err
		}
	}
	if o.From != "" {
		if err := copyTemplate(dir, abs, o.From, res.Adopted); err != nil {
			return nil, err
		}
	}
	if res.Adopted && isVault(abs) {
		return join(abs, o)
	}
	a, touched, err := writeVaultFiles(abs, o, res)
	if err != nil {
		return nil, err
	}
	if err := firstCommit(abs, a.Owner, touched, res); err != nil {
		return nil, err
	}
	return res, nil
}

// copyTemplate copies the template at from into the new or empty folder
// abs (dir as the caller named it).
func copyTemplate(dir, abs, from string, adopted bool) error {
	if adopted {
		return fmt.Errorf("%s is already a git repository; --from copies a template into a new folder only", dir)
	}
	if items, err := os.ReadDir(abs); err == nil && len(items) > 0 {
		return fmt.Errorf("%s is not empty; --from copies a template into a new or empty folder", dir)
	}
	if err := copyTree(from, abs); err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return nil
}

// writeVaultFiles writes the vault's own files (the config unless there
// is one, the access file with its owner, .gitignore's lines, the root
// project's marker) and returns the access rules and the files written.
func writeVaultFiles(abs string, o InitOptions, res *InitResult) (*access.Access, []string, error) {
	if err := makeLocalDirs(abs); err != nil {
		return nil, nil, err
	}
	var touched []string
	if _, err := os.Stat(filepath.Join(abs, ConfigFile)); err != nil {
		if err := os.WriteFile(filepath.Join(abs, ConfigFile), []byte(defaultConfig), 0o644); err != nil {
			return nil, nil, err
		}
	}
	touched = append(touched, ConfigFile)
	a, err := loadAccess(abs)
	if err != nil {
		return nil, nil, err
	}
	if o.Owner != "" {
		a.Owner = o.Owner
	}
	if err := access.ValidPrincipal(a.Owner); err != nil {
		return nil, nil, fmt.Errorf("owner: %w", err)
	}
	data, err := a.Marshal()
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(abs, AccessFile), data, 0o644); err != nil {
		return nil, nil, err
	}
	touched = append(touched, AccessFile)
	if res.Ignored, err = ensureGitignore(abs); err != nil {
		return nil, nil, err
	}
	if res.Project != nil {
		if err := writeRootMarker(abs, res.Project); err != nil {
			return nil, nil, err
		}
		touched = append(touched, ProjectMarker)
	}
	if _, err := os.Stat(filepath.Join(abs, ".gitignore")); err == nil {
		touched = append(touched, ".gitignore")
	}
	return a, touched, nil
}

// firstCommit commits the vault's files (and, in a new repository, every
// file already in the folder) as the owner, as they are on disk, and
// fills in the result.
func firstCommit(abs, owner string, touched []string, res *InitResult) error {
	opts := gitstore.Options{LockFile: filepath.Join(abs, CacheDir, "write.lock")}
	var store *gitstore.Store
	var err error
	if res.Adopted {
		store, err = gitstore.Open(abs, opts)
	} else {
		store, err = gitstore.Init(abs, opts)
		if err == nil {
			touched, res.Skipped, err = firstCommitFiles(abs)
		}
	}
	if err != nil {
		return err
	}
	var changes []gitstore.Change
	for _, p := range touched {
		full := filepath.Join(abs, filepath.FromSlash(p))
		fi, err := os.Stat(full)
		if err != nil {
			store.Close()
			return fmt.Errorf("read %s: %w", p, err)
		}
		// Committed as it is on disk and never written back, read when the
		// commit stages it (one file in memory at a time).
		changes = append(changes, gitstore.Change{Path: p, OnDisk: true, ReadFrom: full, Executable: fi.Mode()&0o111 != 0})
		if isNotePath(p) {
			res.Notes++
		}
	}
	msg := "Initialise the cairn vault"
	if res.Adopted {
		msg = "Adopt this repository as a cairn vault"
	}
	sig := gitstore.Signature{Name: owner, Email: owner + "@cairn.local"}
	h, err := store.Commit(gitstore.CommitRequest{Author: sig, Message: msg, Changes: changes, Trailers: []gitstore.Trailer{
		{Key: "Cairn-Tool", Value: "init"}, {Key: "Cairn-Principal", Value: owner}, {Key: "Cairn-Actor", Value: "human"}}})
	if err != nil && err != gitstore.ErrNothingToCommit {
		store.Close()
		return fmt.Errorf("first commit: %w", err)
	}
	res.Commit, res.Owner = h, owner
	if res.Adopted {
		paths, _ := store.Paths()
		res.Notes = countNotes(paths)
		res.Advice = trackedDeviceFiles(paths)
	}
	return store.Close()
}

// isVault says whether the repository at root holds a vault's committed
// settings already: a clone of a team's vault, or a vault set up before.
func isVault(root string) bool {
	for _, f := range []string{AccessFile, ConfigFile} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			return false
		}
	}
	return true
}

// join sets a clone of a vault up on this machine: the folders git does
// not carry (.cairn/cache, .cairn/secrets), this machine's owner in
// .cairn/local.yaml, and the ignore lines the shared .gitignore lacks in
// .git/info/exclude. Nothing is committed: each member's setup stays on
// their machine, so two members' settings never collide in the shared
// files. Running it again changes nothing but what it is asked to.
func join(abs string, o InitOptions) (*InitResult, error) {
	// Everything that can be refused is checked before anything changes.
	if o.Owner != "" {
		if err := access.ValidPrincipal(o.Owner); err != nil {
			return nil, fmt.Errorf("owner: %w", err)
		}
	}
	if _, err := loadAccess(abs); err != nil {
		return nil, fmt.Errorf("set up %s: %w", abs, err)
	}
	local, localErr := loadLocal(abs)
	if localErr != nil && o.Owner == "" {
		return nil, fmt.Errorf("set up %s: %w (--owner writes a new one)", abs, localErr)
	}
	if err := makeLocalDirs(abs); err != nil {
		return nil, err
	}
	if o.Owner != "" {
		// The rest of a sound local file (this machine's embedder) is kept.
		keep := &access.Local{}
		if localErr == nil {
			keep = local
		}
		keep.Owner = o.Owner
		data, err := keep.Marshal()
		if err != nil {
			return nil, err
		}
		if err := gitstore.WriteFileAtomic(filepath.Join(abs, LocalFile), data, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", LocalFile, err)
		}
	}
	res := &InitResult{Adopted: true, Joined: true}
	var err error
	if res.Ignored, err = excludeLocally(abs); err != nil {
		return nil, err
	}
	a, err := effectiveAccess(abs)
	if err != nil {
		return nil, err
	}
	res.Owner = a.Owner
	// Opening the vault builds now what its first serve would have to:
	// the version map (git's log, read in the background) and, meanwhile
	// on the other core, the catalog (every note read). Close saves both
	// where the vault keeps them, so the first serve starts from them: at
	// 100,000 notes its first answer no longer waits for every note to be
	// read (docs/benchmarks.md, "A clone's first serve starts warm").
	// NoRepair: a commit a crashed process left is the first serve's to
	// finish; init changes nothing in the repository.
	v, err := Open(abs, Options{NoRepair: true, noOpenTexts: true})
	if err != nil {
		return nil, err
	}
	paths, err := v.store.Paths()
	if err != nil {
		v.Close()
		return nil, err
	}
	res.Notes = countNotes(paths)
	res.Advice = trackedDeviceFiles(paths)
	return res, v.Close()
}

// makeLocalDirs makes the folders git does not carry; secrets readable by
// this user only.
func makeLocalDirs(abs string) error {
	if err := os.MkdirAll(filepath.Join(abs, CacheDir), 0o755); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(abs, ".cairn", "secrets"), 0o700)
}

func countNotes(paths []string) int {
	n := 0
	for _, p := range paths {
		if isNotePath(p) {
			n++
		}
	}
	return n
}

// excludeLocally adds to .git/info/exclude (which git reads and never
// shares) each of the vault's ignore lines that neither it nor .gitignore
// has, and returns those it added.
func excludeLocally(root string) ([]string, error) {
	have := linesOf(filepath.Join(root, ".gitignore"))
	path := filepath.Join(root, ".git", "info", "exclude")
	for l := range linesOf(path) {
		have[l] = true
	}
	data, _ := os.ReadFile(path)
	out, added := appendIgnores(string(data), have)
	if len(added) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := gitstore.WriteFileAtomic(path, []byte(out), 0o644); err != nil {
		return nil, fmt.Errorf("write .git/info/exclude: %w", err)
	}
	return added, nil
}

// linesOf is the set of a file's trimmed lines (empty when it is absent).
func linesOf(path string) map[string]bool {
	data, _ := os.ReadFile(path)
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	return have
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
