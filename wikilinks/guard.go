package wikilinks

import (
	"bytes"
	"sort"
)

// Goldmark's parsing is quadratic on some hostile bodies (measured in one
// note each, 40,000 repetitions; four times as many took 10 to 40 times
// longer): "[a](" unclosed 9.5 s, "![a](" 10 s, "[a](<" 3.8 s, one
// paragraph of reference definitions 1.2 s, list items nested on one line
// ("- - - … x") 5 s, block quotes ("> > > …") 1.9 s, unclosed "[[" 0.2 s.
// A 1 MiB note of them held the catalog (and every search waiting on it)
// for minutes. Parse only needs goldmark to tell which [[…]] and which
// complete [text](destination) are links, not code, so it parses a
// neutralised copy, changed byte for byte so that every offset stays true:
//
//   - each '[' and ']' that is not part of a "[[…]]" closed on its line
//     within maxLinkBytes, nor of a "[text](destination)" or
//     "![alt](destination)" whose brackets and parentheses balance on its
//     line within maxLinkBytes, becomes an 'x': goldmark then sees no
//     unclosed link, image or reference definition (whose parsing is what
//     grows quadratically), and an unclosed "[[" is text (a letter, not a
//     space: "- [ ] task" must not turn into indented code);
//   - on one line, the block quote or list markers past the
//     maxLineNesting-th become 'x': deeper containers are text.
//
// Neither changes which links an ordinary note has (a test compares the
// two parsers on the sample vault and on mixed Markdown). A Markdown link
// whose text or destination runs over a line break is not seen: like a
// wikilink, a link is written on one line.
const (
	maxLinkBytes   = 1024
	maxLineNesting = 16
)

// neutralise returns body, or a changed copy as described above.
func neutralise(body []byte) []byte {
	out := body
	set := func(i int, c byte) {
		if &out[0] == &body[0] {
			out = bytes.Clone(body)
		}
		out[i] = c
	}
	for start := 0; start < len(body); {
		end := bytes.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		line := body[start:end]
		for _, m := range deepMarkers(line) {
			set(start+m, 'x')
		}
		keep := mergeSpans(wikilinkSpans(line), markdownSpans(line))
		k := 0
		for i, c := range line {
			if c != '[' && c != ']' {
				continue
			}
			for k < len(keep) && keep[k][1] <= i {
				k++
			}
			if k < len(keep) && keep[k][0] <= i {
				continue
			}
			set(start+i, 'x')
		}
		start = end + 1
	}
	return out
}

// wikilinkSpans are the [start, end) ranges of line that a wikilink may
// occupy: from each "[[" (or "![[") to the first "]]" after it, when that
// is within maxLinkBytes. Linear: the next "]]" is found once per run of
// openings before it.
func wikilinkSpans(line []byte) [][2]int {
	var spans [][2]int
	next := -1 // the first "]]" at or after the current position, once found
	for i := 0; i+1 < len(line); i++ {
		if line[i] != '[' || line[i+1] != '[' {
			continue
		}
		if len(spans) > 0 && i < spans[len(spans)-1][1] {
			continue // inside the previous span
		}
		if next < i+2 {
			if j := bytes.Index(line[i+2:], []byte("]]")); j >= 0 {
				next = i + 2 + j
			} else {
				break // no "]]" after this on the line: none after later ones either
			}
		}
		if next+2-i <= maxLinkBytes {
			spans = append(spans, [2]int{i, next + 2})
		}
	}
	return spans
}

// markdownSpans are the [start, end) ranges of line that a Markdown link
// or image may occupy: from a '[' to the ')' that closes the "(" right
// after its matching ']', brackets matched as nested pairs, parentheses
// balanced (a backslash escapes either), within maxLinkBytes. Linear: one
// pass matches the parentheses, one the brackets.
func markdownSpans(line []byte) [][2]int {
	if bytes.IndexByte(line, ']') < 0 || bytes.IndexByte(line, '(') < 0 {
		return nil
	}
	closeOf := map[int]int{} // '(' offset → matching ')'
	var parens, brackets []int
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '(':
			parens = append(parens, i)
		case ')':
			if n := len(parens); n > 0 {
				closeOf[parens[n-1]] = i
				parens = parens[:n-1]
			}
		}
	}
	var spans [][2]int
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '[':
			brackets = append(brackets, i)
		case ']':
			n := len(brackets)
			if n == 0 {
				continue
			}
			open := brackets[n-1]
			brackets = brackets[:n-1]
			if i+1 >= len(line) || line[i+1] != '(' {
				continue
			}
			if end, ok := closeOf[i+1]; ok && end+1-open <= maxLinkBytes {
				spans = append(spans, [2]int{open, end + 1})
			}
		}
	}
	return spans
}

// mergeSpans unites two lists of spans into one sorted list of disjoint
// spans.
func mergeSpans(a, b [][2]int) [][2]int {
	if len(b) == 0 {
		return a
	}
	all := append(append([][2]int{}, a...), b...)
	sort.Slice(all, func(i, j int) bool { return all[i][0] < all[j][0] })
	out := all[:1]
	for _, s := range all[1:] {
		if last := &out[len(out)-1]; s[0] < last[1] {
			last[1] = max(last[1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}

// deepMarkers are the offsets in line of the container markers past the
// maxLineNesting-th: '>' (block quote), '-', '*' or '+' followed by a
// space or tab (list item), or the first digit of "12." or "12)" followed
// by one (ordered list item; its digits and delimiter are all listed).
// Only the leading run of markers counts.
func deepMarkers(line []byte) []int {
	var out []int
	depth := 0
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		n := markerLen(line[i:])
		if n == 0 {
			break
		}
		if depth++; depth > maxLineNesting {
			for j := i; j < i+n; j++ {
				if line[j] != ' ' && line[j] != '\t' {
					out = append(out, j)
				}
			}
		}
		i += n
	}
	return out
}

// markerLen is the length of the container marker s starts with, its
// following space included (0 when s does not start with one).
func markerLen(s []byte) int {
	if len(s) == 0 {
		return 0
	}
	space := func(i int) bool { return i < len(s) && (s[i] == ' ' || s[i] == '\t') }
	switch c := s[0]; {
	case c == '>':
		if space(1) {
			return 2
		}
		return 1
	case (c == '-' || c == '*' || c == '+') && space(1):
		return 2
	case c >= '0' && c <= '9':
		d := 0
		for d < len(s) && d < 9 && s[d] >= '0' && s[d] <= '9' {
			d++
		}
		if d < len(s) && (s[d] == '.' || s[d] == ')') && space(d+1) {
			return d + 2
		}
	}
	return 0
}
