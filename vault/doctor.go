package vault

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/note"
)

// Finding is one thing cairn doctor reports.
type Finding struct {
	Level   string `json:"level"` // ok, warning, problem
	Check   string `json:"check"`
	Message string `json:"message"`
}

// Doctor checks a vault's health without changing it: project markers,
// access file, notes whose frontmatter is broken, notes sharing an id,
// links that are ambiguous, unresolved or resolved only by cairn, the
// vault's Obsidian link settings (how cairn writes new links), the git
// index format, files that should be private, what crashed processes left,
// notes not committed, a git operation in progress or another branch
// checked out, and writes a git operation left off the branch.
func (v *Vault) Doctor() []Finding {
	var f report
	v.settingsFindings(&f)
	bodyLine := v.noteFindings(&f)
	f = append(f, v.linkFindings(bodyLine)...)
	f = append(f, v.linkSettingsFinding())
	v.gitFindings(&f)
	return f
}

// report is what Doctor finds, in order.
type report []Finding

func (f *report) add(level, check, format string, a ...any) {
	*f = append(*f, Finding{Level: level, Check: check, Message: fmt.Sprintf(format, a...)})
}

// settingsFindings checks the vault's own files: the scan, projects, the
// access file, the config (sync and embedder) and the secrets' modes.
func (v *Vault) settingsFindings(f *report) {
	if err := v.rescan(); err != nil {
		f.add("problem", "scan", "%v", err)
	}
	ps := v.projectSet()
	if len(ps.problems) == 0 {
		f.add("ok", "projects", "%d projects", len(ps.list))
	}
	for _, p := range ps.problems {
		f.add("problem", "projects", "%s", p)
	}
	if a, err := effectiveAccess(v.root); err != nil {
		f.add("problem", "access", "%v (the last good access rules stay in force)", err)
	} else {
		f.add("ok", "access", "%s is readable; the owner here is %s", AccessFile, a.Owner)
	}
	cfg, cfgErr := LoadConfig(v.root)
	if cfgErr == nil {
		if _, err := cfg.Sync.Settings(); err != nil {
			f.add("problem", "sync", "%v (background sync is off until it is fixed)", err)
		}
	}
	if cfgErr != nil {
		f.add("problem", "config", "%v (background sync, and semantic search unless %s sets the embedder, are off until it is fixed)", cfgErr, LocalFile)
	}
	if e := embedderFinding(v.root); e != nil {
		*f = append(*f, *e)
	}
	// Every secret: tokens and grants, and the sign-in passwords, OAuth
	// keys and clients (package oauth) beside them.
	secrets, _ := os.ReadDir(filepath.Join(v.root, SecretsDir))
	for _, e := range secrets {
		rel := SecretsDir + "/" + e.Name()
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			f.add("problem", "tokens", "%s is readable by others (mode %o); run chmod 600", rel, fi.Mode().Perm())
		}
	}
}

// noteFindings reads every note: names that cannot be shared, broken
// frontmatter, conflicts, stale conflict links, legacy typed links and
// copied ids. It returns, for each note, the lines before its body (the
// frontmatter's), which the link findings count from.
func (v *Vault) noteFindings(f *report) map[string]int {
	var broken, conflicts, resolved, legacy []string
	bodyLine := map[string]int{}
	paths := v.catalog.paths()
	for _, p := range paths {
		data, err := readFileNoFollow(v.abs(p))
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		n := note.Parse(p, data)
		if err := n.FrontmatterError(); err == nil && n.HasLegacyLinks() && note.Parse(p, data).MigrateLinks() {
			legacy = append(legacy, p)
		}
		bodyLine[p] = bytes.Count(data[:len(data)-len(n.Body)], []byte{'\n'})
		if err := n.FrontmatterError(); err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", p, err))
		} else if c := v.unresolvedConflict(n); c != "" {
			conflicts = append(conflicts, c)
		} else if stale := v.staleConflictLinks(n); len(stale) > 0 {
			resolved = append(resolved, fmt.Sprintf("%s still lists %s under %s, deleted: the conflict is resolved (doctor --fix removes the entry)",
				p, strings.Join(stale, ", "), note.ConflictsKey))
		}
	}
	f.add("ok", "notes", "%d notes", len(paths))
	for _, p := range paths {
		if why := unshareableName(p); why != "" {
			f.add("warning", "names", "%s is %s; it stays on this machine, uncommitted, until it is renamed", gitstore.QuotePath(p), why)
		}
	}
	for _, b := range broken {
		f.add("warning", "frontmatter", "%s (read as it is; writes refused until fixed)", b)
	}
	conflicts = append(conflicts, v.fileConflictCopies()...)
	for _, c := range conflicts {
		f.add("warning", "conflicts", "%s", c)
	}
	for _, c := range resolved {
		f.add("info", "conflict links", "%s", c)
	}
	if len(legacy) > 0 {
		f.add("info", "typed links", "%d note(s) keep typed links in the old links: list, which Obsidian's Properties cannot show: %s (read as before; cairn's next write of each moves them into properties, doctor --fix does it now)",
			len(legacy), abbreviate(legacy, 5))
	}
	for _, c := range v.DuplicateIDs() {
		f.add("warning", "ids", "%s repeats the id %s of %s, which keeps it; it is known by %s, which cairn sync or doctor --fix writes into its file", c.Path, c.ID, c.Kept, c.NewID)
	}
	return bodyLine
}

// gitFindings says what the watcher and git meet: the folders watched,
// an index in version 4, leftovers of a crashed commit, a git command
// working in the vault, and stranded writes.
func (v *Vault) gitFindings(f *report) {
	folders := 0
	ign := v.ignoreMatcher()
	filepath.WalkDir(v.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(v.root, p)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || ignored(ign, filepath.ToSlash(rel), true)) {
			return filepath.SkipDir
		}
		folders++
		return nil
	})
	f.add("ok", "watcher", "cairn serve watches %d folders (one inotify watch each)", folders)
	if data, err := os.ReadFile(filepath.Join(v.root, ".git", "index")); err == nil && len(data) >= 8 {
		if version := int(data[7]); version == 4 {
			f.add("ok", "git index", "version 4 (updated through go-git, slower)")
		}
	}
	*f = append(*f, v.leftoverFindings()...)
	if err := v.store.Busy(); err != nil {
		f.add("problem", "git", "%v: writes wait for it (up to %s each, then they are answered unavailable)", strings.TrimSuffix(err.Error(), "; nothing was written"), GitWait)
	}
	*f = append(*f, v.strandedFindings()...)
}

// unresolvedConflict describes n when it is a sync's conflict copy not yet
// resolved: its frontmatter still says conflict_from. Resolving is
// deleting the copy (its content merged into the original, or not wanted)
// or removing its conflict_from key (both notes kept): either is a
// person's decision, so the warning stays until one is made.
func (v *Vault) unresolvedConflict(n *note.Note) string {
	from := n.Scalar("conflict_from")
	if n.KeyNode("conflict_from") == nil {
		return ""
	}
	orig := ""
	if id := n.Scalar("conflict_of"); id != "" {
		orig = v.pathOf(id)
	}
	if orig == "" {
		if stem, _, ok := strings.Cut(n.Path, " (conflict "); ok {
			if p := stem + path.Ext(n.Path); v.entry(p, false) != nil {
				orig = p
			}
		}
	}
	what := "a note no longer in the vault"
	if orig != "" {
		what = orig
	}
	return fmt.Sprintf("%s is the other version of %s, kept by a sync conflict (commit %s) and not yet resolved: "+
		"bring what you want of it into the note, then delete the copy (or remove its conflict_from key to keep both)",
		n.Path, what, short(from))
}

// fileCopyName is a sync's copy of a file other than a note: "name
// (conflict 2026-12-01 101500).ext", "… 101500 2).ext" (teamsync).
var fileCopyName = regexp.MustCompile(`^(.*) \(conflict \d{4}-\d{2}-\d{2} \d{6}(?: \d+)?\)(\.[^/.]*)?$`)

// fileConflictCopies are the copies a sync kept of files other than notes
// changed both ways (an image, Obsidian's settings): they carry no
// frontmatter to say so, their names do. They stay reported until deleted.
func (v *Vault) fileConflictCopies() []string {
	paths, err := v.store.Paths()
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range paths {
		m := fileCopyName.FindStringSubmatch(p)
		if m == nil || strings.HasSuffix(p, ".md") || strings.HasPrefix(p, TrashDir+"/") || strings.HasPrefix(p, legacyTrashDir+"/") {
			continue // notes say so in their frontmatter; the trash holds what was resolved
		}
		out = append(out, fmt.Sprintf("%s is the other version of %s, kept by a sync conflict and not yet resolved: "+
			"keep what you want of the two in %s, then delete the copy", p, m[1]+m[2], m[1]+m[2]))
	}
	return out
}

func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}
