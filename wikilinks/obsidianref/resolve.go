// Package obsidianref is a reference for how Obsidian reads and resolves
// links, written from Obsidian's documented rules (help.obsidian.md,
// "Internal links"; the API's MetadataCache.getFirstLinkpathDest) and
// its resolver's steps as its app.js applies them, independently of package
// wikilinks: it shares no code with it, and parses with a line scanner
// where wikilinks uses goldmark. Tests compare cairn's link graph with it
// on a test vault (wikilinks/testdata/obsidian), and the vault's rename
// and move tests can use it to check that no link changed target.
package obsidianref

import (
	"sort"
	"strings"
	"unicode/utf16"
)

// Resolve returns the file Obsidian opens for link (a link path: no
// fragment, no label, URL-decoded for a Markdown link) written in the
// note at sourcePath, among vaultFiles (every file of the vault, paths
// relative to its root, in the order Obsidian loaded them: ties between
// equally good paths go to the first). ok is false when Obsidian shows the
// link unresolved. An empty link names the source itself.
//
// The steps:
//   - Candidates are the files whose name, ignoring case, is the link's
//     last segment, if that has a dot; else (or if there are none) the
//     last segment + ".md". Links to other files carry their extension.
//   - A link without a folder and one candidate: that candidate.
//   - ./ and ../ make the link a path from the source's folder; a
//     candidate with that path (ignoring case) is taken.
//   - Without its leading /, a link that is a candidate's whole path
//     (ignoring case) takes it; a link written with a leading / is then
//     unresolved.
//   - Otherwise, among the candidates whose path ends with the link
//     (ignoring case), those whose path begins with the source's folder
//     (as a string) come first, then the others; within each, the
//     shortest path (in UTF-16 units) first.
func Resolve(vaultFiles []string, sourcePath, link string) (targetPath string, ok bool) {
	if link == "" {
		return sourcePath, sourcePath != ""
	}
	want := strings.ToLower(link)
	cands := named(vaultFiles, lastSegment(want))
	if !strings.Contains(lastSegment(want), ".") || len(cands) == 0 {
		want = strings.ToLower(link + ".md")
		cands = named(vaultFiles, lastSegment(want))
	}
	if len(cands) == 0 {
		return "", false
	}
	if !strings.Contains(want, "/") && len(cands) == 1 {
		return cands[0], true
	}
	folder := strings.ToLower(parent(sourcePath))
	if strings.HasPrefix(want, "./") || strings.HasPrefix(want, "../") {
		want, folder = fromFolder(want, folder)
		for _, c := range cands {
			if strings.ToLower(c) == want {
				return c, true
			}
		}
	}
	want = strings.TrimPrefix(want, "/")
	for _, c := range cands {
		if strings.ToLower(c) == want {
			return c, true
		}
	}
	if strings.HasPrefix(link, "/") {
		return "", false
	}
	var first, second []string
	for _, c := range cands {
		lc := strings.ToLower(c)
		if !strings.HasSuffix(lc, want) {
			continue
		}
		if strings.HasPrefix(lc, folder) {
			first = append(first, c)
		} else {
			second = append(second, c)
		}
	}
	byLength := func(s []string) {
		sort.SliceStable(s, func(i, j int) bool { return len(utf16.Encode([]rune(s[i]))) < len(utf16.Encode([]rune(s[j]))) })
	}
	byLength(first)
	byLength(second)
	if all := append(first, second...); len(all) > 0 {
		return all[0], true
	}
	return "", false
}

// fromFolder makes a ./ or ../ link a path from folder, and returns the
// folder as the resolver keeps it for what follows (with a trailing /).
func fromFolder(link, folder string) (string, string) {
	if strings.HasPrefix(link, "./../") {
		link = link[2:]
	}
	if strings.HasPrefix(link, "./") {
		link = link[2:]
	} else {
		for strings.HasPrefix(link, "../") {
			link = link[3:]
			folder = parent(folder)
		}
	}
	if folder != "" {
		folder += "/"
	}
	return folder + link, folder
}

// named lists the files whose name is name, ignoring case, in order.
func named(files []string, name string) []string {
	var out []string
	for _, f := range files {
		if strings.ToLower(lastSegment(f)) == name {
			out = append(out, f)
		}
	}
	return out
}

func lastSegment(p string) string { return p[strings.LastIndex(p, "/")+1:] }

func parent(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i]
	}
	return ""
}
