package note

import (
	"bytes"

	"github.com/adrg/frontmatter"
)

// splitFrontmatter finds the frontmatter region of a note's file with
// github.com/adrg/frontmatter and one YAML format ("---" to "---"), and
// hands back its text unparsed: Parse reads it with yaml.v3 into a node
// (which keeps key order and comments for a round trip), Summarize reads
// the plain shape without a YAML parser at all. yaml is the text between
// the two fences, rest what follows the closing one. A file without both
// fences has no frontmatter: rest is the whole file.
func splitFrontmatter(raw []byte) (yaml, rest []byte, found bool) {
	// The unmarshal step only keeps the text: the slice stays valid, as
	// it is part of the buffer rest is cut from, which nothing writes
	// over once Parse returns.
	format := frontmatter.NewFormat("---", "---", func(data []byte, _ any) error {
		yaml, found = data, true
		return nil
	})
	var none struct{}
	rest, err := frontmatter.Parse(bytes.NewReader(raw), &none, format)
	if err != nil { // reading from memory and keeping text cannot fail
		return nil, raw, false
	}
	return yaml, rest, found
}
