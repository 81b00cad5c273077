package note

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// sampleFiles adds the sample vault's notes to a corpus.
func sampleFiles(f *testing.F) {
	f.Helper()
	_ = filepath.WalkDir("../../sample-vault", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
}

var frontmatterSeeds = []string{
	"---\nid: 01KB2ZJ5N3V7M1YB4E8W0QXR6T\ntype: decision\ntags: [launch, pricing]\naliases: [Launch plan v1]\nlinks:\n  - {type: depends_on, to: \"[[Pricing]]\"}\ncreated: \"2026-11-29T19:03:00Z\"\n---\n# Launch plan\nSee [[Pricing]].\n",
	"---\r\nid: x\r\ntags: [a, b]\r\n---\r\n# CRLF\r\nbody\r\n",
	"---\n---\n# Empty frontmatter\n",
	"---\nkey: [unclosed\n---\n# Broken\n",
	"---\n- a list\n---\nnot a mapping\n",
	"No frontmatter at all, [[a link]].\n",
	"---\n# a comment\nb: |\n  line one\n  line two\nc: \"quoted\"\nd: 'single'\ne: >\n  folded\n---\nbody\n",
	"---\na: &x 1\nb: *x\nnested: {k: [1, 2, {z: null}]}\n---\n",
	"---\ndup: 1\ndup: 2\n---\n",
	"\ufeff---\nid: bom\n---\n# BOM\n",
	"---\nid: x\n---",
	"---\nweird key: \"\\u202e\\t\\x00\"\n? complex\n: key\n---\n",
	"---\ntext: \"line\\r\\nbreak\"\n---\n",
}

// Parsing never panics; an untouched note renders byte for byte; and a
// write (parse → set a key → render → parse) keeps every key a person
// wrote with its value, keeps the body byte for byte, and a second write
// changes nothing more.
func FuzzFrontmatter(f *testing.F) {
	sampleFiles(f)
	for _, s := range frontmatterSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n := Parse("x.md", raw)
		if !bytes.Equal(n.Render(), raw) {
			t.Fatalf("an untouched note renders differently:\n%q\n%q", raw, n.Render())
		}
		if n.FrontmatterError() != nil {
			if n.SetKey("k", StrNode("v")) == nil {
				t.Fatalf("a write into a broken frontmatter was accepted: %q", raw)
			}
			return
		}
		keys := nodeKeys(n)
		before, decodeErr := n.FrontmatterValues()
		body := bytes.Clone(n.Body)
		if err := n.SetKey("cairn_fuzz", StrNode("v")); err != nil {
			t.Fatalf("set a key in %q: %v", raw, err)
		}
		out := n.Render()
		m := Parse("x.md", out)
		if err := m.FrontmatterError(); err != nil {
			t.Fatalf("a write made the frontmatter unreadable: %v\n%q\n%q", err, raw, out)
		}
		if !bytes.Equal(m.Body, body) {
			t.Fatalf("a write changed the body:\n%q\n%q", body, m.Body)
		}
		// Every key a person wrote is still there, written the same way.
		after := nodeKeys(m)
		for k, v := range keys {
			if k != "cairn_fuzz" && after[k] != v {
				t.Fatalf("key %q was %q, is %q after a write:\n%q\n%q", k, v, after[k], raw, out)
			}
		}
		// And reads the same, when it could be read at all.
		if decodeErr == nil {
			values, err := m.FrontmatterValues()
			if err != nil || values["cairn_fuzz"] != "v" {
				t.Fatalf("after a write: %v %#v\n%q", err, values["cairn_fuzz"], out)
			}
			for k, v := range before {
				if k != "cairn_fuzz" && !sameValue(values[k], v) {
					t.Fatalf("key %q was %#v, reads %#v after a write:\n%q\n%q", k, v, values[k], raw, out)
				}
			}
		}
		// A second identical write changes nothing a reader sees. (Not
		// byte for byte: yaml.v3 may move a blank line next to a comment
		// once more, as testdata/fuzz/FuzzFrontmatter/comment-blank-line-moves
		// shows; no key, value or comment goes.)
		if err := m.SetKey("cairn_fuzz", StrNode("v")); err != nil {
			t.Fatalf("a second write: %v", err)
		}
		again := Parse("x.md", m.Render())
		if !reflect.DeepEqual(nodeKeys(again), nodeKeys(m)) || !bytes.Equal(again.Body, body) || again.FrontmatterError() != nil {
			t.Fatalf("a second identical write is not stable:\n%q\n%q", out, m.Render())
		}
	})
}

// nodeKeys is each top-level key of a note's frontmatter with its value
// (every occurrence, for a key given twice): decoded when it decodes
// (`{x}` and `{x: null}` are one value), else as YAML, with empty flow
// nulls spelt as a write spells them.
func nodeKeys(n *Note) map[string]string {
	out := map[string]string{}
	if n.fmNode == nil {
		return out
	}
	for i := 0; i+1 < len(n.fmNode.Content); i += 2 {
		out[n.fmNode.Content[i].Value] += valueString(n.fmNode.Content[i+1]) + "\x00"
	}
	return out
}

func valueString(node *yaml.Node) string {
	var v any
	if err := node.Decode(&v); err == nil {
		return fmt.Sprintf("%#v", v)
	}
	keepFlowNulls(node, false)
	b, err := yaml.Marshal(node)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(b)
}

// sameValue compares decoded YAML values; NaN equals NaN here.
func sameValue(a, b any) bool {
	return reflect.DeepEqual(a, b) || fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}
