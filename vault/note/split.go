package note

import "bytes"

// splitFrontmatter finds the frontmatter region of a note's file as
// github.com/adrg/frontmatter did with one YAML format ("---" to "---"),
// without copying the file through a reader and a buffer (a tenth of a
// fresh clone's open at 100,000 notes): blank lines may come first; the
// first other line, spaces trimmed, must be "---" and end in a newline;
// the region ends at the next line that is "---", spaces trimmed. yaml is
// the text between the two fences, rest what follows the closing one. A
// file without both fences has no frontmatter: rest is the whole file.
func splitFrontmatter(raw []byte) (yaml, rest []byte, found bool) {
	pos := 0
	for {
		line, next, eof := lineAt(raw, pos)
		if eof {
			return nil, raw, false
		}
		pos = next
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if string(t) != "---" {
			return nil, raw, false
		}
		break
	}
	start := pos
	for {
		line, next, eof := lineAt(raw, pos)
		if string(bytes.TrimSpace(line)) == "---" {
			return raw[start:pos], raw[next:], true
		}
		if eof {
			return nil, raw, false
		}
		pos = next
	}
}

// lineAt is the line of raw from pos, its newline included, and where
// the next begins; eof when it ends without a newline (it may be empty).
func lineAt(raw []byte, pos int) (line []byte, next int, eof bool) {
	if i := bytes.IndexByte(raw[pos:], '\n'); i >= 0 {
		return raw[pos : pos+i+1], pos + i + 1, false
	}
	return raw[pos:], len(raw), true
}
