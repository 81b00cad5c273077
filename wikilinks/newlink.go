package wikilinks

import "strings"

// How the path of a new link is written: Obsidian's "New link format"
// setting (newLinkFormat in .obsidian/app.json).
const (
	// FormatShortest: the file name when no other file of the vault has
	// it (ignoring case), else the full path. Obsidian's default.
	FormatShortest = "shortest"
	// FormatRelative: the path from the linking note's folder ("Note",
	// "sub/Note", "../other/Note").
	FormatRelative = "relative"
	// FormatAbsolute: the full path from the vault's root ("a/b/Note").
	FormatAbsolute = "absolute"
)

// NewLinkText is the link path cairn writes for a new link to the file at
// path (a note or an attachment) in the note at src, so that Obsidian
// opens exactly that file. It is written as Obsidian's
// MetadataCache.fileToLinktext writes it for format (FormatShortest when
// "" or unknown): a note without .md in a wikilink, with it in a Markdown
// link (markdown; the text is not URL-encoded: Link.Spell does that).
// Relative paths are written as Obsidian writes them, without "./" for the
// linking note's folder and below ("Note", "sub/Note").
//
// The text is then checked against Obsidian's rule (obsidianDest), which
// Obsidian's own choice does not always pass: a relative "sub/Note" is
// read as a vault path first, so a root "sub/Note.md" takes it (cairn
// writes "./sub/Note" then, which Obsidian reads from the note's folder);
// a name or path holding # | [ ] ^ (or %% or a line break in a wikilink)
// cannot be written; two paths equal but for case may tie. Whatever does
// not resolve to the file falls back to its full path, and ok is false
// when even that does not: the caller refuses the link.
//
// pending are notes about to be written (a note being created, at its
// future path): the text must hold in the vault as the write leaves it.
// Nothing is hidden: Obsidian sees every file.
func (g *Graph) NewLinkText(path, src, format string, markdown bool, pending ...Note) (string, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	w := g.view(nil)
	if len(pending) > 0 {
		w = g.plan(pending, nil, nil).after(nil)
	}
	full, name := path, fileName(path)
	if !markdown && strings.HasSuffix(strings.ToLower(path), ".md") {
		full, name = path[:len(path)-3], name[:len(name)-3]
	}
	var tries []string
	switch format {
	case FormatAbsolute:
	case FormatRelative:
		rel := relativePath(dirName(src), full)
		tries = append(tries, rel)
		if !strings.HasPrefix(rel, "../") {
			tries = append(tries, "./"+rel)
		}
	default:
		if len(w.candidates(nil, fileKey(path))) == 1 {
			tries = append(tries, name)
		}
	}
	for _, t := range append(tries, full) {
		if opens(w, t, src, path, markdown) {
			return t, true
		}
	}
	return "", false
}

// opens says whether the link path t, written in the note at src, is
// read back as itself and opens the file at path in Obsidian.
func opens(w view, t, src, path string, markdown bool) bool {
	bad := "#\r\n"
	if !markdown {
		bad = "#|[]^\r\n"
		if strings.Contains(t, "%%") {
			return false
		}
	}
	if t == "" || t != strings.TrimSpace(t) || strings.ContainsAny(t, bad) {
		return false
	}
	win, _, ok := obsidianDest(w, t, src)
	return ok && win.path == path
}

// relativePath is the path of to from the folder from ("" for the root),
// as "../" steps up to their common folder, then down.
func relativePath(from, to string) string {
	var f []string
	if from != "" {
		f = strings.Split(from, "/")
	}
	t := strings.Split(to, "/")
	i := 0
	for i < len(f) && i < len(t)-1 && f[i] == t[i] {
		i++
	}
	return strings.Repeat("../", len(f)-i) + strings.Join(t[i:], "/")
}
