package note

import (
	"bytes"
	"testing"

	"github.com/adrg/frontmatter"
)

// adrgSplit is what github.com/adrg/frontmatter, which Parse used before
// splitFrontmatter, finds in raw: the YAML text it would unmarshal, and
// the rest.
func adrgSplit(raw []byte) (yaml, rest []byte, found bool) {
	format := frontmatter.NewFormat("---", "---", func(data []byte, _ any) error {
		yaml, found = bytes.Clone(data), true
		return nil
	})
	var v struct{}
	rest, err := frontmatter.Parse(bytes.NewReader(raw), &v, format)
	if err != nil {
		panic(err)
	}
	return yaml, rest, found
}

var splitSeeds = []string{
	"", "\n", "---", "---\n", "---\n---", "---\n---\n", "\n\n---\na: 1\n---\nbody",
	"  ---  \na: 1\n ---\nbody\n", "---\r\na: 1\r\n---\r\nbody\r\n", "x\n---\na: 1\n---\n",
	"---\na: 1\n", "---\na: 1\n---", "---\na: 1\n---\n---\nb\n", "\t\n---\n\n---\n\n",
	"---x\na\n---\n", "---\na\n----\n---\n", "\ufeff---\na: 1\n---\n", "---\n\u00a0---\u00a0\nrest",
	"\u0085---\na\n---\n", "---\na\n---   \n# T\n",
}

// splitFrontmatter finds exactly what adrg/frontmatter found.
func FuzzSplitFrontmatter(f *testing.F) {
	sampleFiles(f)
	for _, s := range append(splitSeeds, frontmatterSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		y, rest, found := splitFrontmatter(raw)
		wy, wrest, wfound := adrgSplit(raw)
		if found != wfound || !bytes.Equal(y, wy) || !bytes.Equal(rest, wrest) {
			t.Fatalf("%q: split (%v %q %q), adrg/frontmatter (%v %q %q)", raw, found, y, rest, wfound, wy, wrest)
		}
	})
}
