package wikilinks

import "strings"

// respell is the link text that names the file at dest from the note at
// src, in w, written in the style of old (the text a link had): what
// Obsidian's "automatically update internal links" writes when a file
// moves, and no more.
//
//   - relative (./x, ../x): the path from src's folder, "./" when dest is
//     under it;
//   - absolute (/a/x): "/" and the full path;
//   - the full path of what it named (was): the full path;
//   - a trailing part of it (b/x for a/b/x): as many trailing segments of
//     dest's path, more while that does not name dest, up to the full
//     path;
//   - a name (x), or text only cairn resolved (a title, an alias, an
//     id): dest's file name when that names dest, else the full path
//     (what Obsidian's "shortest path when possible" writes).
//
// A note keeps ".md" only when old had it; another file keeps its
// extension. The answer resolves from src to dest as Obsidian resolves it
// ("" when no text does: a name holding # | [ ] ^, which no link can
// carry). A Markdown link writes the answer in its own way (Link.Spell).
func (w view) respell(old, src, dest, was string, obsidian bool) string {
	old = strings.TrimSpace(old)
	full := dest
	if isNotePath(dest) && !isNotePath(fileName(old)) {
		full = dest[:len(dest)-3]
	}
	names := func(t string) bool { return opens(w, t, src, dest, false) }
	switch {
	case !obsidian:
		if t := fileName(full); names(t) {
			return t
		}
	case strings.HasPrefix(old, "./") || strings.HasPrefix(old, "../"):
		t := relativePath(dirName(src), full)
		if !strings.HasPrefix(t, "../") {
			t = "./" + t
		}
		if names(t) {
			return t
		}
	case strings.HasPrefix(old, "/"):
		if names("/" + full) {
			return "/" + full
		}
	case strings.EqualFold(old, was) || strings.EqualFold(old+".md", was):
		// the full path: below
	case strings.Contains(old, "/"):
		segs := strings.Split(full, "/")
		for k := min(strings.Count(old, "/")+1, len(segs)); k < len(segs); k++ {
			if t := strings.Join(segs[len(segs)-k:], "/"); names(t) {
				return t
			}
		}
	default:
		if t := fileName(full); names(t) {
			return t
		}
	}
	if names(full) {
		return full
	}
	return ""
}

// isNotePath says whether a path or file name ends in .md, in any case.
func isNotePath(p string) bool {
	return len(p) > 3 && strings.EqualFold(p[len(p)-3:], ".md")
}
