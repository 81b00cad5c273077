package search

import (
	"strings"
	"unicode"
)

// Chunk is one section of a note's body, embedded on its own: a heading
// and what follows it up to the next heading, split further when long.
// Start and End are byte offsets into the body.
type Chunk struct {
	Start, End int
	Heading    string
}

// maxChunkWords bounds a chunk: a static or small embedding model says
// less the more words it averages.
const maxChunkWords = 160

// maxChunks bounds a note's chunks (its vectors, the embedder's calls and
// the scan's rows): a note of 10,000 headings made 10,000 chunks. Past it,
// neighbouring chunks are merged, so the whole body is still embedded. A
// 1 MiB body of prose makes about 1,100 chunks, merged in pairs.
const maxChunks = 512

// maxHeadingBytes of a heading are kept with its chunks (embedded with
// each, and stored in the vectors file).
const maxHeadingBytes = 200

// Chunks cuts a Markdown body at its ATX headings (not inside fenced
// code), then cuts sections longer than maxChunkWords at paragraph breaks,
// or at a word when one paragraph is longer still. Empty sections are
// dropped; a body with no words has no chunks.
func Chunks(body string) []Chunk {
	type section struct {
		start, end int
		heading    string
	}
	var secs []section
	cur := section{}
	fence := ""
	off := 0
	for off < len(body) {
		end := strings.IndexByte(body[off:], '\n')
		lineEnd := len(body)
		if end >= 0 {
			lineEnd = off + end + 1
		}
		line := strings.TrimRight(body[off:lineEnd], "\r\n")
		trim := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			fence = trim[:3]
		case len(line)-len(trim) < 4 && isHeading(trim):
			cur.end = off
			secs = append(secs, cur)
			// A copy: a substring would keep the whole body alive in
			// the vectors' chunk lists (issue 16).
			cur = section{start: off, heading: strings.Clone(strings.TrimSpace(strings.TrimRight(strings.TrimLeft(trim, "#"), "#")))}
		}
		off = lineEnd
	}
	cur.end = len(body)
	secs = append(secs, cur)

	var out []Chunk
	for _, s := range secs {
		out = append(out, splitSection(body, s.start, s.end, cutBytes(s.heading, maxHeadingBytes))...)
	}
	return mergeChunks(out, maxChunks)
}

// mergeChunks merges runs of neighbouring chunks so that at most max are
// left; a merged chunk spans its run and keeps its first heading.
func mergeChunks(cs []Chunk, max int) []Chunk {
	if len(cs) <= max {
		return cs
	}
	per := (len(cs) + max - 1) / max
	out := make([]Chunk, 0, max)
	for i := 0; i < len(cs); i += per {
		last := cs[min(i+per, len(cs))-1]
		out = append(out, Chunk{Start: cs[i].Start, End: last.End, Heading: cs[i].Heading})
	}
	return out
}

func isHeading(s string) bool {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ' || s[n] == '\t')
}

// hasWord says s holds a word: a character that is not a space, as
// strings.Fields splits.
func hasWord(s string) bool { return strings.IndexFunc(s, notSpace) >= 0 }

func notSpace(r rune) bool { return !unicode.IsSpace(r) }

// countWords is len(strings.Fields(s)) without the slice: splitSection
// counted words so, and at 100,000 notes that was 1.3 GB of a build's 27
// GB of garbage.
func countWords(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// splitSection cuts body[start:end] into chunks of at most maxChunkWords.
func splitSection(body string, start, end int, heading string) []Chunk {
	if !hasWord(body[start:end]) {
		return nil
	}
	var out []Chunk
	words := 0
	chunkStart := start
	// Walk word by word, remembering the last paragraph break.
	inWord := false
	lastBreak := -1
	for i := start; i < end; i++ {
		c := body[i]
		space := c == ' ' || c == '\n' || c == '\t' || c == '\r'
		if c == '\n' && i+1 < end && (body[i+1] == '\n' || body[i+1] == '\r') {
			lastBreak = i + 1
		}
		if !space && !inWord {
			words++
			if words > maxChunkWords {
				cut := i
				if lastBreak > chunkStart {
					cut = lastBreak
				}
				out = append(out, Chunk{Start: chunkStart, End: cut, Heading: heading})
				chunkStart = cut
				words = countWords(body[cut : i+1])
				lastBreak = -1
			}
		}
		inWord = !space
	}
	if hasWord(body[chunkStart:end]) {
		out = append(out, Chunk{Start: chunkStart, End: end, Heading: heading})
	}
	return out
}
