package note

import (
	"strings"

	"github.com/cairn-dev/cairn/wikilinks"
	"gopkg.in/yaml.v3"
)

// Summary is what the vault's catalog keeps of a note: what Parse finds,
// less the frontmatter and the body.
type Summary struct {
	ID      string
	IDSaved bool
	Title   string
	Type    string
	Tags    []string
	Aliases []string
	// Category is the frontmatter `category` (memory notes); Pinned its
	// `pinned: true` or `yes`.
	Category string
	Pinned   bool
	Links    []wikilinks.Link // Links()
}

// SummaryOf is what n holds of a Summary.
func SummaryOf(n *Note) Summary {
	s := Summary{ID: n.ID, IDSaved: n.IDSaved, Title: n.Title, Type: n.Type, Tags: n.Tags, Aliases: n.Aliases, Category: n.Scalar("category"), Links: n.Links()}
	if k := n.KeyNode("pinned"); k != nil && k.Kind == yaml.ScalarNode && (k.Value == "true" || k.Value == "yes") {
		s.Pinned = true
	}
	return s
}

// ParseRead is Parse for a note that is read and never written back
// (indexed, scanned by a search): when the frontmatter is of the plain
// shape nearly every note's is (simpleYAML), its nodes are made without
// the YAML parser, holding the kinds, values and content its readers use
// (Scalar, KeyNode, FrontmatterNode, TypedLinks, StringList), not the
// tags, styles and positions an edit of the note needs. Reading each
// note's frontmatter with yaml.v3 for its index entry was 2.3 s of CPU
// and 0.9 GB of garbage in a fresh 100,000-note clone's build, after the
// catalog had read the same frontmatter without it.
func ParseRead(path string, raw []byte) *Note {
	fm, rest, found := splitFrontmatter(raw)
	if !found {
		return Parse(path, raw)
	}
	node, ok := simpleYAML(fm)
	if !ok {
		return Parse(path, raw)
	}
	n := &Note{Path: path, fmNode: node, fmRaw: raw[:len(raw)-len(rest)], Body: rest}
	n.finish()
	return n
}

// Summarize is SummaryOf(Parse(path, raw)), made without the YAML parser
// when the frontmatter is of the plain shape nearly every note's is
// (simpleYAML): reading it with yaml.v3 was a third of the CPU a fresh
// clone's open spent at 100,000 notes. Any other frontmatter is read by
// Parse.
func Summarize(path string, raw []byte) Summary {
	return SummaryOf(ParseRead(path, raw))
}

// simpleYAML reads a frontmatter of the plain shape as yaml.v3 would, into
// a mapping node whose nodes hold their kind, value and content only; ok
// is false for any other text, which may then mean something else to
// YAML. The shape: printable ASCII lines, each a key (letters, digits, _
// and -, unique) followed by ": " and a value: a plain scalar of one line,
// a quoted one with no escape or quote inside, or a flow list of those;
// or by ":" alone, then nothing (null) or the lines of a block list ("- "
// and such a scalar, all at one indentation). Blank lines between them.
func simpleYAML(text []byte) (*yaml.Node, bool) {
	for _, b := range text {
		if (b < 0x20 || b > 0x7e) && b != '\n' {
			return nil, false
		}
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	seen := map[string]bool{}
	lines := strings.Split(string(text), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimLeft(line, " ") == "" {
			continue
		}
		key, after, ok := strings.Cut(line, ":")
		if !ok || !simpleKey(key) || seen[key] {
			return nil, false
		}
		seen[key] = true
		var value *yaml.Node
		if strings.TrimLeft(after, " ") == "" {
			// Null, or a block list on the lines that follow.
			value = &yaml.Node{Kind: yaml.ScalarNode}
			indent := -1
			for i+1 < len(lines) {
				next := lines[i+1]
				trim := strings.TrimLeft(next, " ")
				if trim == "" {
					i++
					continue
				}
				in := len(next) - len(trim)
				if !strings.HasPrefix(trim, "- ") {
					if in > 0 {
						return nil, false // a nested mapping, a continuation
					}
					break
				}
				if indent >= 0 && in != indent {
					return nil, false
				}
				indent = in
				item, ok := simpleScalar(trim[2:], false)
				if !ok {
					return nil, false
				}
				if value.Kind != yaml.SequenceNode {
					value = &yaml.Node{Kind: yaml.SequenceNode}
				}
				value.Content = append(value.Content, item)
				i++
			}
		} else {
			if after[0] != ' ' {
				return nil, false
			}
			v := strings.TrimLeft(after, " ")
			if v[0] == '[' {
				value, ok = simpleFlowList(v)
			} else {
				value, ok = simpleScalar(v, false)
			}
			if !ok {
				return nil, false
			}
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, value)
	}
	return m, true
}

// simpleKey: letters, digits, _ and -, not starting with -, of a length
// YAML takes as a key on one line.
func simpleKey(k string) bool {
	if k == "" || len(k) > 256 || k[0] == '-' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// simpleScalar reads s, a value to the end of its line (spaces before it
// already skipped), or an item of a flow list (inFlow: s is the item, its
// spaces trimmed): "text" or 'text' with no quote or backslash inside and
// only spaces after, or a plain scalar that cannot be anything else.
func simpleScalar(s string, inFlow bool) (*yaml.Node, bool) {
	if s == "" {
		return nil, false
	}
	if q := s[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return nil, false
		}
		inner := s[1 : 1+end]
		if strings.TrimRight(s[2+end:], " ") != "" || strings.ContainsRune(inner, '\\') {
			return nil, false
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Value: inner}, true
	}
	// A plain scalar: it starts with none of YAML's indicators, holds no
	// comment (#), no ": " nor a ":" at its end; in a flow list, only
	// letters, digits, spaces and _ . / + -.
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(s[0])) || strings.ContainsRune(s, '#') {
		return nil, false
	}
	v := strings.TrimRight(s, " ")
	if strings.Contains(v, ": ") || strings.HasSuffix(v, ":") {
		return nil, false
	}
	if inFlow {
		for i := 0; i < len(v); i++ {
			c := v[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" _./+-", c) >= 0) {
				return nil, false
			}
		}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Value: v}, true
}

// simpleFlowList reads "[a, b, c]" (nothing after but spaces) whose items
// are simpleScalar's, none empty.
func simpleFlowList(s string) (*yaml.Node, bool) {
	s = strings.TrimRight(s, " ")
	if len(s) < 2 || s[len(s)-1] != ']' {
		return nil, false
	}
	inner := s[1 : len(s)-1]
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	if strings.TrimLeft(inner, " ") == "" {
		return seq, true
	}
	for _, part := range strings.Split(inner, ",") {
		item, ok := simpleScalar(strings.Trim(part, " "), true)
		if !ok {
			return nil, false
		}
		seq.Content = append(seq.Content, item)
	}
	return seq, true
}
