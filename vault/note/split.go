package note

import (
	"bufio"
	"bytes"
	"io"
	"sync"

	"github.com/adrg/frontmatter"
)

// splitFrontmatter finds the frontmatter region of a note's file with
// github.com/adrg/frontmatter and one YAML format ("---" to "---"), and
// hands back its text unparsed: Parse reads it with yaml.v3 into a node
// (which keeps key order and comments for a round trip), Summarize reads
// the plain shape without a YAML parser at all. yaml is the text between
// the two fences, rest what follows the closing one (a part of raw). A
// file without both fences has no frontmatter: rest is the whole file.
//
// The library reads through a bufio.Reader of 4 KiB it makes and copies
// everything it reads, the body too, into a growing buffer: 2 GB of the
// 27 GB of garbage a 100,000-note build made, for a copy of the body
// nobody used. So it is given a pooled bufio.Reader (which it takes as
// its own) over a reader that hands out one line per read, and that
// ends as soon as the closing fence is found: the library reads the
// frontmatter and nothing more. A file whose first line that is not blank
// is no fence has none, as the library finds, without reading it.
func splitFrontmatter(raw []byte) (yaml, rest []byte, found bool) {
	if !opensWithFence(raw) {
		return nil, raw, false
	}
	lr := &lineReader{raw: raw}
	br := bufioPool.Get().(*bufio.Reader)
	defer bufioPool.Put(br)
	br.Reset(lr)
	defer br.Reset(nil)
	// The unmarshal step only keeps the text: the slice stays valid, as
	// it is part of the library's buffer, which nothing writes over once
	// the call returns.
	format := frontmatter.NewFormat("---", "---", func(data []byte, _ any) error {
		yaml, found = data, true
		lr.done = true
		return nil
	})
	var none struct{}
	if _, err := frontmatter.Parse(br, &none, format); err != nil || !found {
		// Reading from memory and keeping text cannot fail; an opening
		// fence never closed is no frontmatter.
		return nil, raw, false
	}
	return yaml, raw[lr.off:], true
}

// opensWithFence says the first line of raw that is not blank is "---",
// spaces around it aside: where the library looks for the opening fence.
func opensWithFence(raw []byte) bool {
	for len(raw) > 0 {
		line, after, _ := bytes.Cut(raw, []byte{'\n'})
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return string(t) == "---"
		}
		raw = after
	}
	return false
}

// bufioPool holds the readers splitFrontmatter lends the library, of its
// default size so that bufio.NewReader takes them as they are.
var bufioPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// lineReader reads raw one line at most per call (up to and including
// its newline), so a bufio.Reader over it never holds more than the line
// asked for, and nothing once done is set.
type lineReader struct {
	raw  []byte
	off  int // bytes handed out
	done bool
}

func (r *lineReader) Read(p []byte) (int, error) {
	if r.done || r.off == len(r.raw) {
		return 0, io.EOF
	}
	line := r.raw[r.off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	n := copy(p, line)
	r.off += n
	return n, nil
}
