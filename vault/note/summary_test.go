package note

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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

// Summarize, and ParseRead to every reader of a note, say what Parse
// says, whichever way they read the frontmatter.
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
		if got, want := readView(ParseRead("f/x.md", raw)), readView(Parse("f/x.md", raw)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nParseRead %+v\nParse     %+v", raw, got, want)
		}
	})
}

// readView is what the readers of a note see of it: its fields, links,
// whether its frontmatter was read, and each key's value as kinds,
// values and content (with StringList of each list).
func readView(n *Note) map[string]any {
	v := map[string]any{
		"id": n.ID, "idSaved": n.IDSaved, "title": n.Title, "type": n.Type, "tags": n.Tags,
		"aliases": n.Aliases, "body": string(n.Body), "links": n.Links(), "typed": n.TypedLinks(),
		"fmErr": n.FrontmatterError() != nil, "fm": n.FrontmatterNode() != nil,
	}
	if fm := n.FrontmatterNode(); fm != nil {
		for i := 0; i+1 < len(fm.Content); i += 2 {
			k := fm.Content[i].Value
			v["key "+k] = nodeView(n.KeyNode(k))
			v["scalar "+k] = n.Scalar(k)
		}
	}
	return v
}

// nodeView is a node's kind, value and content, and its StringList when
// it is a list.
func nodeView(node *yaml.Node) []any {
	out := []any{node.Kind, node.Value}
	if node.Kind == yaml.SequenceNode {
		out = append(out, StringList(node))
	}
	for _, c := range node.Content {
		out = append(out, nodeView(c))
	}
	return out
}

// ParseRead reads the plain shapes without the YAML parser (else it
// would be right but no faster): its mapping has no tag, where yaml.v3
// gives "!!map".
func TestParseReadReadsPlainShapesItself(t *testing.T) {
	for _, s := range summarySeeds[:5] {
		fm := ParseRead("f/x.md", []byte(s)).FrontmatterNode()
		if fm == nil {
			t.Fatalf("%q: no frontmatter read", s)
		}
		if fm.Tag != "" {
			t.Errorf("%q: read by the YAML parser (its mapping's tag is %q)", s, fm.Tag)
		}
	}
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

// BenchmarkParseRead reads a note of the shape a generated vault's notes
// have (an id, a type, a tag list, ~300 words) as the index does, against
// Parse: `go test ./vault/note -run '^$' -bench 'Parse(Read)?$' -benchmem`.
func BenchmarkParseRead(b *testing.B) { benchmarkParse(b, ParseRead) }

func BenchmarkParse(b *testing.B) { benchmarkParse(b, Parse) }

func benchmarkParse(b *testing.B, parse func(string, []byte) *Note) {
	raw := []byte("---\nid: 01KB2ZJ5N3V7M1YB4E8W0QXR6T\ntype: note\ntags: [t12]\n---\n# Note 000012\n\n" +
		strings.Repeat("Caroline went to the garden on Sunday and talked about the [[Pricing]] of flowers. ", 20))
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if n := parse("space/f012/Note 000012.md", raw); n.ID == "" {
			b.Fatal("no id read")
		}
	}
}
