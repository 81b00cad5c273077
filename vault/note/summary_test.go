package note

import (
	"reflect"
	"testing"
)

// The shapes of frontmatter Summarize reads without YAML's parser, and
// some it must leave to it.
var summarySeeds = []string{
	"---\nid: 01KB2ZJ5N3V7M1YB4E8W0QXR6T\ntype: note\ntags: [t12]\n---\n# Note 000012\n\nText with [[a link]] and [another](other.md).\n",
	"---\nid: x\ntags:\n  - a\n  - b c\naliases:\n- One\n- 'Two'\ncategory: decision\npinned: true\n---\n# Title\n",
	"---\nid: \"q\"\nsupersedes: \"[[Old decision]]\"\nrelates: [\"[[A]]\", '[[B#h|label]]']\npinned: yes\n---\nbody\n",
	"---\nid:\ntype:   spaced out   \nempty: []\nblank: ''\n\n---\n# T\n",
	"---\ntags: a, b, c\ncreated: 2026-11-29T14:00:00Z\nn: 12\nnull: ~\n---\n",
	"---\ntags:\n  - a\n - b\n---\n", "---\ntags:\n  nested: 1\n---\n", "---\ntitle: a: b\n---\n",
	"---\ntitle: a #c\n---\n", "---\nid: x\nid: y\n---\n", "---\nk: [a, [b]]\n---\n", "---\nk: [a,]\n---\n",
	"---\nk: \"a\\\"b\"\n---\n", "---\nk: 'it''s'\n---\n", "---\nk: |\n  a\n---\n", "---\nk: -1\n---\n",
	"---\n k: 1\n---\n", "---\nk:v\n---\n", "---\nk: a\n  b\n---\n", "---\nk: [a:b, c]\n---\n",
	"---\nk: &a x\n---\n", "---\nk: \"x\" y\n---\n", "---\nk:\n- \n---\n", "---\nk:\n-\n---\n",
	"---\nk: é\n---\n", "---\nk:\t1\n---\n", "---\r\nid: x\r\n---\r\n", "---\n...\n---\n", "---\n- a\n---\n",
	"---\nlinks:\n  - {type: depends_on, to: \"[[Pricing]]\"}\n---\n", "---\nk: x:\n---\n", "---\nk: [ ]\n---\n",
	"---\nk: [\"a, b\"]\n---\n", "---\nk:\n  - a\n\n  - b\nj: 1\n---\n", "---\nk: 'a' \n---\n",
}

// Summarize says what Parse says, whichever way it reads the
// frontmatter.
func FuzzSummarize(f *testing.F) {
	sampleFiles(f)
	for _, s := range append(summarySeeds, frontmatterSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, want := Summarize("f/x.md", raw), SummaryOf(Parse("f/x.md", raw))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nSummarize %+v\nParse     %+v", raw, got, want)
		}
	})
}

// The plain shapes are read without the YAML parser (else Summarize
// would be right but no faster).
func TestSummarizeReadsPlainShapesItself(t *testing.T) {
	for _, s := range summarySeeds[:5] {
		fm, _, found := splitFrontmatter([]byte(s))
		if !found {
			t.Fatalf("%q: no frontmatter found", s)
		}
		if _, ok := simpleYAML(fm); !ok {
			t.Errorf("%q: left to the YAML parser", s)
		}
	}
}
