package vault

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreGroup is a set of lines a vault's repository ignores, with the
// comment written above them, so a person reading .gitignore knows why.
type ignoreGroup struct {
	comment string
	lines   []string
}

// deviceFiles are files each device rewrites for itself: shared through git
// they would change at every sync and collide between devices, and they
// say nothing about the notes. Every vault ignores them, Obsidian folder or
// not yet: a vault is made to be opened in Obsidian, and .obsidian/ appears
// the first time it is. The reasons for each are in docs/vault-setup.md
// ("Adopting a vault").
var deviceFiles = []string{
	".obsidian/workspace.json",        // the panes, tabs and last files open, on a desktop
	".obsidian/workspace-mobile.json", // the same on a phone or tablet
	".obsidian/workspace",             // both, as older Obsidian versions named them
	".obsidian/workspace-mobile",
	".trash/",   // Obsidian's trash (cairn's own is .cairn/trash/)
	".DS_Store", // macOS Finder's view of each folder
}

// ignoreGroups are the lines cairn makes a vault's repository ignore.
func ignoreGroups() []ignoreGroup {
	return []ignoreGroup{
		{"# cairn: this machine's cache, token hashes and settings (never shared)", gitignoreLines},
		{"# Written by each device for itself: Obsidian's window layout and trash, macOS folder views", deviceFiles},
	}
}

// appendIgnores appends to text each ignore line have lacks, a group's
// comment above the first line added of it, and says which lines it added.
func appendIgnores(text string, have map[string]bool) (string, []string) {
	var added []string
	for _, g := range ignoreGroups() {
		for _, l := range g.lines {
			if have[l] {
				continue
			}
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			if !have[g.comment] {
				text += g.comment + "\n"
				have[g.comment] = true
			}
			text += l + "\n"
			have[l] = true
			added = append(added, l)
		}
	}
	return text, added
}

// ensureGitignore adds the vault's ignore lines that .gitignore lacks, and
// returns those it added. A new or adopted vault commits them, so every
// clone ignores the same files.
func ensureGitignore(root string) ([]string, error) {
	path := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("read .gitignore: %w", err)
	}
	out, added := appendIgnores(string(data), linesOf(path))
	if len(added) == 0 {
		return nil, nil // the person's file stays as it is, byte for byte
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return nil, fmt.Errorf("write .gitignore: %w", err)
	}
	return added, nil
}

// trackedDeviceFiles advises untracking the per-device files a repository
// already commits. cairn does not untrack them itself: the commit removing
// them would delete them on every member's disk at their next sync, which
// is a team's decision.
func trackedDeviceFiles(paths []string) []string {
	var out []string
	finder := 0
	for _, p := range paths {
		switch {
		case slices.Contains(deviceFiles, p):
			out = append(out, fmt.Sprintf("%s is committed, so every device changes it and it collides at each sync: "+
				"to stop sharing it, one member runs `git rm --cached %s` and commits (it is ignored from then on)", p, p))
		case p == ".DS_Store" || strings.HasSuffix(p, "/.DS_Store"):
			finder++
		}
	}
	if finder > 0 {
		out = append(out, fmt.Sprintf("%d .DS_Store file(s) are committed, which macOS Finder rewrites on each machine: "+
			"to stop sharing them, one member runs `git rm --cached '*.DS_Store'` and commits (they are ignored from then on)", finder))
	}
	return out
}

// firstCommitFiles lists what a new vault's first commit holds: every file
// but .git and what .gitignore excludes, as `git add -A` would take them,
// less what a sync would never share either (skipped, "path: why"): a
// symbolic link, a name the others' sync would refuse (unshareableName),
// or a file over MaxSharedFileBytes, which git hosts refuse and which
// would make every push fail. Those stay on disk, untracked.
func firstCommitFiles(root string) (files, skipped []string, err error) {
	ps, _ := gitignore.ReadPatterns(osfs.New(root), nil)
	m := gitignore.NewMatcher(ps)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		parts := strings.Split(rel, "/")
		if d.IsDir() {
			if d.Name() == ".git" || m.Match(parts, true) {
				return filepath.SkipDir
			}
			return nil
		}
		if m.Match(parts, false) {
			return nil
		}
		if why := unshareableName(rel); why != "" {
			skipped = append(skipped, rel+": "+why)
			return nil
		}
		if !d.Type().IsRegular() {
			if d.Type()&fs.ModeSymlink != 0 {
				skipped = append(skipped, rel+": a symbolic link (cairn shares files, not links)")
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > MaxSharedFileBytes {
			skipped = append(skipped, fmt.Sprintf("%s: %d MiB, over the %d MiB git hosts accept", rel, fi.Size()>>20, MaxSharedFileBytes>>20))
			return nil
		}
		files = append(files, rel)
		return nil
	})
	return files, skipped, err
}
