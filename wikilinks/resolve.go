package wikilinks

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Obsidian's rule, as its MetadataCache.getLinkpathDest(linkpath,
// sourcePath) applies it (Obsidian 1.x app.js; getFirstLinkpathDest takes
// the first of its list). docs/link-resolution.md, "How a link resolves",
// states it with its sources; the steps, in order:
//
//  1. The file name is the link's last path segment, lower-cased. When it
//     has a dot, the files so named (any extension: pic.png, Note.md) are
//     the candidates; when there are none, or it has no dot, the files
//     named it + ".md". No candidate: unresolved.
//  2. A link without a folder and a single candidate: that one.
//  3. A link starting ./ or ../ is made a vault path from the source's
//     folder; a candidate with exactly that path (ignoring case) wins.
//  4. A leading / is dropped; a candidate whose path is the link (ignoring
//     case, .md added as in step 1) wins. A link that started with / goes
//     no further: unresolved.
//  5. Candidates whose path ends with the link (ignoring case; a plain
//     string suffix) are ordered: those whose path starts with the
//     source's folder first (a string prefix: the source's folder and
//     everything under it), each group by path length, shortest first.
//     The first wins. Obsidian sorts stably in the order it loaded the
//     files, so two paths of the same length at the head of the list are
//     a tie cairn cannot break as Obsidian would: it reports them.
//
// Paths are compared by their UTF-16 length, as JavaScript measures them.

// fileRef is one candidate file: its path and, for a note, its id.
type fileRef struct{ path, id string }

// fileKey is the lower-cased file name a file is looked up by.
func fileKey(path string) string { return strings.ToLower(fileName(path)) }

func fileName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func dirName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// lookupKeys are the file names (lower-cased) a link path can name: the
// name itself when it has a dot, and the name + ".md".
func lookupKeys(linkpath string) []string {
	name := strings.ToLower(fileName(linkpath))
	if strings.Contains(name, ".") {
		return []string{name, name + ".md"}
	}
	return []string{name + ".md"}
}

// obsidianDest applies Obsidian's rule to what w sees. It returns the
// winner, or the tied candidates at the head of the list (more than one),
// or nothing.
func obsidianDest(w view, linkpath, sourcePath string) (win fileRef, tied []fileRef, ok bool) {
	var buf [4]fileRef
	n := strings.ToLower(linkpath)
	name := fileName(n)
	var r []fileRef
	if strings.Contains(name, ".") {
		r = w.candidates(buf[:0], name)
	}
	if len(r) == 0 {
		n += ".md"
		name += ".md"
		r = w.candidates(buf[:0], name)
	}
	if len(r) == 0 {
		return fileRef{}, nil, false
	}
	if name == n && len(r) == 1 {
		return r[0], nil, true
	}
	o := strings.ToLower(dirName(sourcePath))
	if strings.HasPrefix(n, "./") || strings.HasPrefix(n, "../") {
		if strings.HasPrefix(n, "./../") {
			n = n[2:]
		}
		if strings.HasPrefix(n, "./") {
			if o != "" {
				o += "/"
			}
			n = o + n[2:]
		} else {
			for strings.HasPrefix(n, "../") {
				n = n[3:]
				o = dirName(o)
			}
			if o != "" {
				o += "/"
			}
			n = o + n
		}
		for _, f := range r {
			if strings.ToLower(f.path) == n {
				return f, nil, true
			}
		}
	}
	n = strings.TrimPrefix(n, "/")
	for _, f := range r {
		if strings.ToLower(f.path) == n {
			return f, nil, true
		}
	}
	if strings.HasPrefix(linkpath, "/") {
		return fileRef{}, nil, false
	}
	return bySuffix(r, n, o)
}

// bySuffix is step 5: among the candidates whose lower-cased path ends
// with n, those under folder o first, each group shortest path first.
func bySuffix(r []fileRef, n, o string) (win fileRef, tied []fileRef, ok bool) {
	var near, far []fileRef
	for _, f := range r {
		if m := strings.ToLower(f.path); strings.HasSuffix(m, n) {
			if strings.HasPrefix(m, o) {
				near = append(near, f)
			} else {
				far = append(far, f)
			}
		}
	}
	head := near
	if len(head) == 0 {
		head = far
	}
	if len(head) == 0 {
		return fileRef{}, nil, false
	}
	sort.Slice(head, func(i, j int) bool {
		if a, b := jsLen(head[i].path), jsLen(head[j].path); a != b {
			return a < b
		}
		return head[i].path < head[j].path
	})
	k := 1
	for k < len(head) && jsLen(head[k].path) == jsLen(head[0].path) {
		k++
	}
	if k > 1 {
		return fileRef{}, head[:k], false
	}
	return head[0], nil, true
}

// jsLen is the length of s in UTF-16 code units (JavaScript's length).
func jsLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
