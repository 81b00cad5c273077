// Package doctor is cairn doctor and its --fix, on top of the vault's
// exported API and the few hooks it exports for them (vault/hooks_doctor.go).
//
// Check looks at a vault's health without changing it and returns what it
// finds, in order; Repair fixes what is safe to fix without a person and
// says what it did. Package vault never imports this one.
//
// What is where:
//   - doctor.go: Check, the vault's own settings and files, git.
//   - notes.go: every note read (names, frontmatter, conflicts, legacy
//     typed links, copied ids) and the conflict copies of other files.
//   - links.go: the links a person should look at, and how cairn writes
//     new ones.
//   - leftovers.go: what crashed processes left, notes not committed,
//     writes a git operation left off the branch.
//   - embedder.go: the embedder this machine uses.
//   - repair.go: Repair (--fix).
package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/vault"
)

// Finding is one thing cairn doctor reports.
type Finding struct {
	Level   string `json:"level"` // ok, warning, problem
	Check   string `json:"check"`
	Message string `json:"message"`
}

// Check looks at a vault's health without changing it: project markers,
// access file, notes whose frontmatter is broken, notes sharing an id,
// links that are ambiguous, unresolved or resolved only by cairn, the
// vault's Obsidian link settings (how cairn writes new links), the git
// index format, files that should be private, what crashed processes left,
// notes not committed, a git operation in progress or another branch
// checked out, and writes a git operation left off the branch.
func Check(v *vault.Vault) []Finding {
	var f report
	settingsFindings(v, &f)
	bodyLine := noteFindings(v, &f)
	f = append(f, linkFindings(v, bodyLine)...)
	f = append(f, linkSettingsFinding(v))
	gitFindings(v, &f)
	return f
}

// report is what Check finds, in order.
type report []Finding

func (f *report) add(level, check, format string, a ...any) {
	*f = append(*f, Finding{Level: level, Check: check, Message: fmt.Sprintf(format, a...)})
}

// settingsFindings checks the vault's own files: the scan, projects, the
// access file, the config (sync and embedder) and the secrets' modes.
func settingsFindings(v *vault.Vault, f *report) {
	if err := v.Rescan(); err != nil {
		f.add("problem", "scan", "%v", err)
	}
	projects, problems := v.ScannedProjects()
	if len(problems) == 0 {
		f.add("ok", "projects", "%d projects", len(projects))
	}
	for _, p := range problems {
		f.add("problem", "projects", "%s", p)
	}
	if a, err := vault.ReadAccess(v.Root()); err != nil {
		f.add("problem", "access", "%v (the last good access rules stay in force)", err)
	} else {
		f.add("ok", "access", "%s is readable; the owner here is %s", vault.AccessFile, a.Owner)
	}
	cfg, cfgErr := vault.LoadConfig(v.Root())
	if cfgErr == nil {
		if _, err := cfg.Sync.Settings(); err != nil {
			f.add("problem", "sync", "%v (background sync is off until it is fixed)", err)
		}
	}
	if cfgErr != nil {
		f.add("problem", "config", "%v (background sync, and semantic search unless %s sets the embedder, are off until it is fixed)", cfgErr, vault.LocalFile)
	}
	if e := embedderFinding(v.Root()); e != nil {
		*f = append(*f, *e)
	}
	// Every secret: tokens and grants, and the sign-in passwords, OAuth
	// keys and clients (package oauth) beside them.
	secrets, _ := os.ReadDir(filepath.Join(v.Root(), vault.SecretsDir))
	for _, e := range secrets {
		rel := vault.SecretsDir + "/" + e.Name()
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			f.add("problem", "tokens", "%s is readable by others (mode %o); run chmod 600", rel, fi.Mode().Perm())
		}
	}
}

// gitFindings says what the watcher and git meet: the folders watched,
// an index in version 4, leftovers of a crashed commit, a git command
// working in the vault, and stranded writes.
func gitFindings(v *vault.Vault, f *report) {
	f.add("ok", "watcher", "cairn serve watches %d folders (one inotify watch each)", v.WatchedFolders())
	if data, err := os.ReadFile(filepath.Join(v.Root(), ".git", "index")); err == nil && len(data) >= 8 {
		if version := int(data[7]); version == 4 {
			f.add("ok", "git index", "version 4 (updated through go-git, slower)")
		}
	}
	*f = append(*f, leftoverFindings(v)...)
	if err := v.Store().Busy(); err != nil {
		f.add("problem", "git", "%v: writes wait for it (up to %s each, then they are answered unavailable)", strings.TrimSuffix(err.Error(), "; nothing was written"), vault.GitWait)
	}
	*f = append(*f, strandedFindings(v)...)
}

// abbreviate joins the first n of list, and counts the rest.
func abbreviate(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:n], ", "), len(list)-n)
}

// short is a commit hash cut to 10 characters.
func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}
