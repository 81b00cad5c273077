package search

import (
	"regexp"
	"strings"
)

// A snippet is a piece of Markdown cut out of a note and put on one line,
// with matches in **bold**. Cut or marked carelessly it breaks what it
// shows: `[[Decision **CDN** provider]]` is no longer a link to the note,
// `https://**cdn**.example.com` no longer a URL, a bold inside `**Status:**`
// gives `****`, a snippet that starts inside `[[…]]` or ends inside a code
// span leaves brackets or backticks open. So the parts of the text around
// the window that must stay whole are found first (mdRegions), and:
//   - no match is marked inside code, a wikilink or embed, a link's
//     destination, a bare URL or an existing **strong** span;
//   - the window's edges move out of any such part of at most
//     maxRegionBytes (a link is shown whole or not at all);
//   - a fenced code block, whose fences lose their meaning on one line, is
//     shown as an inline code span.

// maxRegionBytes bounds what one link, code span or strong span may add to
// a snippet: a wikilink or Markdown link longer than 1 KiB is not a link
// to the link parser either (wikilinks/guard.go).
const maxRegionBytes = 1024

type mdKind int

const (
	mdCode     mdKind = iota // `code`
	mdWikilink               // [[…]] or ![[…]]
	mdLink                   // [text](destination): kept whole at the edges
	mdDest                   // the (destination) of a link: never marked
	mdURL                    // https://… or <…>
	mdStrong                 // **…** or __…__
)

type mdRegion struct {
	start, end int
	kind       mdKind
}

// fence is a fenced code block: from its opening fence line to the end of
// its closing one (or of the body); inner is the code between.
type fence struct{ start, innerStart, innerEnd, end int }

var (
	wikilinkRE = regexp.MustCompile(`!?\[\[[^\[\]\n]+\]\]`)
	mdLinkRE   = regexp.MustCompile(`!?\[[^\[\]\n]*\]\(([^()\s]|\([^()\s]*\))*(\s+"[^"\n]*")?\)`)
	urlRE      = regexp.MustCompile(`<[a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^<>\s]*>|https?://[^\s<>()\[\]]+`)
	strongRE   = regexp.MustCompile(`\*\*[^*\n]+?\*\*|__[^_\n]+?__`)
	fenceRE    = regexp.MustCompile("^ {0,3}(```+|~~~+)")
)

// fences finds the fenced code blocks of body that end after from and
// start before to (the scan reads the lines before from, which says
// whether from is inside a fence, and stops at to).
func fences(body string, from, to int) []fence {
	var out []fence
	open := -1 // start of the open fence's line
	var marker string
	inner := 0
	for pos := 0; pos < len(body); {
		nl := strings.IndexByte(body[pos:], '\n')
		lineEnd := len(body)
		if nl >= 0 {
			lineEnd = pos + nl
		}
		next := min(lineEnd+1, len(body))
		line := body[pos:lineEnd]
		if open < 0 && pos >= to {
			break
		}
		if t := strings.TrimLeft(line, " "); !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
			// most lines: not a fence
		} else if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch {
			case open < 0:
				open, marker, inner = pos, m[1], next
			case strings.HasPrefix(strings.TrimLeft(line, " "), marker) && strings.TrimSpace(strings.TrimLeft(line, marker[:1])) == "":
				if next > from {
					out = append(out, fence{open, inner, pos, next})
				}
				open = -1
			}
		}
		pos = next
	}
	if open >= 0 {
		out = append(out, fence{open, inner, len(body), len(body)})
	}
	return out
}

// mdRegions finds the parts of body[from:to] (whole lines, outside fenced
// code) that a snippet must not mark or cut.
// A line of a megabyte is read only 32 KiB around the window (reading it
// from a point inside the line may pair its marks wrongly, which a line
// of prose never comes near).
func mdRegions(body string, from, to int, fs []fence) []mdRegion {
	const around = 32 << 10
	lo, hi := max(0, from-around), min(len(body), to+around)
	if i := strings.LastIndexByte(body[lo:from], '\n'); i >= 0 {
		lo += i + 1
	}
	if i := strings.IndexByte(body[to:hi], '\n'); i >= 0 {
		hi = to + i
	}
	from, to = lo, hi
	var out []mdRegion
	for pos := from; pos < to; {
		lineEnd := to
		if i := strings.IndexByte(body[pos:to], '\n'); i >= 0 {
			lineEnd = pos + i
		}
		if !inFence(fs, pos) {
			out = lineRegions(body[pos:lineEnd], pos, out)
		}
		pos = lineEnd + 1
	}
	return out
}

func inFence(fs []fence, at int) bool {
	for _, f := range fs {
		if f.start <= at && at < f.end {
			return true
		}
	}
	return false
}

// lineRegions adds the regions of one line (at offset base): code spans
// first, as nothing inside them is Markdown; then the rest outside them.
func lineRegions(line string, base int, out []mdRegion) []mdRegion {
	var code []mdRegion
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		run := line[i : i+n]
		closeAt := -1
		for j := i + n; j < len(line); {
			k := strings.Index(line[j:], run)
			if k < 0 {
				break
			}
			k += j
			if k+n < len(line) && line[k+n] == '`' { // a longer run
				for k < len(line) && line[k] == '`' {
					k++
				}
				j = k
				continue
			}
			closeAt = k + n
			break
		}
		if closeAt < 0 {
			i += n
			continue
		}
		code = append(code, mdRegion{base + i, base + closeAt, mdCode})
		i = closeAt
	}
	out = append(out, code...)
	outside := func(s, e int) bool {
		for _, c := range code {
			if s < c.end && c.start < e {
				return false
			}
		}
		return true
	}
	add := func(re *regexp.Regexp, kind mdKind, cue ...string) {
		// Most lines hold none of these: a regexp runs only on a line
		// that has what it needs ("[[", "](", ...), found by a plain
		// search (it was a quarter of a search's CPU).
		found := false
		for _, c := range cue {
			found = found || strings.Contains(line, c)
		}
		if !found {
			return
		}
		for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
			s, e := base+m[0], base+m[1]
			if !outside(s, e) {
				continue
			}
			out = append(out, mdRegion{s, e, kind})
			if kind == mdLink {
				// The destination: from "](" to the end.
				d := strings.LastIndex(line[m[0]:m[1]], "](")
				out = append(out, mdRegion{s + d + 1, e, mdDest})
			}
		}
	}
	add(wikilinkRE, mdWikilink, "[[")
	add(mdLinkRE, mdLink, "](")
	add(urlRE, mdURL, "<", "://")
	add(strongRE, mdStrong, "**", "__")
	return out
}

// markable reports whether a match at s may be put in bold: not inside
// code, a wikilink, a destination, a URL or a strong span, and not inside
// a fenced block.
func markable(s span, rs []mdRegion, fs []fence) bool {
	if inFence(fs, s.start) {
		return false
	}
	for _, r := range rs {
		if r.kind != mdLink && s.start < r.end && r.start < s.end {
			return false
		}
	}
	return true
}

// widen moves start back and end forward out of any region they cut,
// as long as the region is at most maxRegionBytes; regions may nest (a
// link in a strong span), so it goes on until nothing moves.
func widen(start, end int, rs []mdRegion) (int, int) {
	for moved := true; moved; {
		moved = false
		for _, r := range rs {
			if r.end-r.start > maxRegionBytes {
				continue
			}
			if r.start < start && start < r.end {
				start, moved = r.start, true
			}
			if r.start < end && end < r.end {
				end, moved = r.end, true
			}
		}
	}
	return start, end
}

// inlineCode renders code (a fenced block's lines) as one inline code
// span, with a fence of backticks longer than any run inside it.
func inlineCode(code string) string {
	code = strings.Join(strings.Fields(code), " ")
	if code == "" {
		return ""
	}
	longest, run := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	tick := strings.Repeat("`", longest+1)
	if strings.HasPrefix(code, "`") || strings.HasSuffix(code, "`") {
		code = " " + code + " "
	}
	return tick + code + tick
}
