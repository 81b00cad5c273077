package note

import (
	"bytes"
	"testing"

	"github.com/adrg/frontmatter"
)

// librarySplit is the library used as its README shows: what
// splitFrontmatter must find, with less reading.
func librarySplit(raw []byte) (yaml, rest []byte, found bool) {
	format := frontmatter.NewFormat("---", "---", func(data []byte, _ any) error {
		yaml, found = bytes.Clone(data), true
		return nil
	})
	var none struct{}
	rest, err := frontmatter.Parse(bytes.NewReader(raw), &none, format)
	if err != nil {
		return nil, raw, false
	}
	return yaml, rest, found
}

// splitFrontmatter finds the frontmatter and the body where the library
// read plainly finds them: fences after blank lines, fences with spaces,
// CRLF, a fence never closed, a body longer than the library's buffer,
// lines longer than it.
func FuzzSplitFrontmatterIsTheLibrarys(f *testing.F) {
	sampleFiles(f)
	for _, s := range frontmatterSeeds {
		f.Add([]byte(s))
	}
	long := bytes.Repeat([]byte("word "), 2000)
	for _, s := range [][]byte{
		[]byte("\n\n  \n---\nid: a\n---\nbody\n"),
		[]byte("  ---  \nid: a\n ---\t\nbody\n"),
		[]byte("---\nid: a\nno closing fence\n"),
		[]byte("---"), []byte("---\n"), []byte(""), []byte("\n"),
		[]byte("text\n---\nid: a\n---\n"),
		append([]byte("---\nid: a\n---\n"), long...),
		append(append([]byte("---\nlong: "), long...), "\n---\nbody\n"...),
		[]byte("---\nid: a\n---\n---\nsecond: fence\n---\n"),
		[]byte("\u00a0\n---\nid: nbsp\n---\n"),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		yaml, rest, found := splitFrontmatter(raw)
		wYaml, wRest, wFound := librarySplit(raw)
		if found != wFound || !bytes.Equal(yaml, wYaml) || !bytes.Equal(rest, wRest) {
			t.Fatalf("split %q:\n got %v %q / %q\nwant %v %q / %q", raw, found, yaml, rest, wFound, wYaml, wRest)
		}
		if len(rest) > 0 && &rest[len(rest)-1] != &raw[len(raw)-1] {
			t.Fatalf("rest is not the end of raw: %q", raw)
		}
	})
}
