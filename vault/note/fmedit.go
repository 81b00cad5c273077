package note

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// A write to a note's frontmatter changes only the lines of the property
// it touches. People edit these files in Obsidian and read their diffs in
// git: re-encoding the whole block would restyle every other property
// (yaml.v3 re-indents `- item` lists, respaces `key:   value` and comments),
// so a one-key change would show as a rewrite of the block. Instead the
// entry of the changed key is encoded alone and spliced in place of its
// old lines; every other line stays byte for byte. When the layout is not
// one this can do safely (anchors, a flow mapping, complex keys, two keys
// on a line), or the spliced text would not read back as the intended
// values, the whole block is re-encoded as before: never a lost value.

// fmLayout is the frontmatter region cut into lines.
type fmLayout struct {
	pre   []byte   // up to and including the opening fence line
	lines []string // the YAML lines between the fences, line endings kept
	post  []byte   // the closing fence line and what follows it in the region
	nl    string   // the region's line ending
	spans [][2]int // per key of the mapping, in order: its lines [start, end)
}

// layout cuts the note's frontmatter into lines and finds each key's
// lines. ok is false when only a whole re-encode is safe.
func (n *Note) layout() (fmLayout, bool) {
	l := fmLayout{nl: "\n"}
	if bytes.Contains(n.fmRaw, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	if len(n.fmRaw) == 0 {
		l.pre, l.post = []byte("---\n"), []byte("---\n")
		return l, n.fmNode == nil || len(n.fmNode.Content) == 0
	}
	all := strings.SplitAfter(string(n.fmRaw), "\n")
	open, end := -1, -1
	for i, s := range all {
		t := strings.TrimSpace(s)
		switch {
		case open < 0 && t == "":
		case open < 0 && t == "---":
			open = i
		case open < 0:
			return l, false
		case t == "---":
			end = i
		}
		if end >= 0 {
			break
		}
	}
	if open < 0 || end < 0 || n.fmNode == nil || n.fmNode.Style&yaml.FlowStyle != 0 || hasAnchorsOrMerges(n.fmNode) {
		return l, false
	}
	l.pre = []byte(strings.Join(all[:open+1], ""))
	l.lines = append([]string(nil), all[open+1:end]...)
	l.post = []byte(strings.Join(all[end:], ""))
	prev := 0
	keys := n.fmNode.Content
	for i := 0; i+1 < len(keys); i += 2 {
		k := keys[i]
		line := k.Line - 1
		if k.Kind != yaml.ScalarNode || k.Column != 1 || line < prev || line >= len(l.lines) ||
			strings.HasPrefix(l.lines[line], "?") || (i > 0 && line == l.spans[len(l.spans)-1][0]) {
			return l, false
		}
		l.spans = append(l.spans, [2]int{line, 0})
		prev = line + 1
	}
	for i := range l.spans {
		limit := len(l.lines)
		if i+1 < len(l.spans) {
			limit = l.spans[i+1][0]
		}
		e := limit
		for e > l.spans[i][0]+1 && betweenEntries(l.lines[e-1]) {
			e--
		}
		l.spans[i][1] = e
	}
	return l, true
}

// hasAnchorsOrMerges: anchors and aliases tie one entry's text to another's, and a
// merge key (`<<`) pulls values in; an entry of such a block cannot be
// re-encoded alone.
func hasAnchorsOrMerges(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || (n.Kind == yaml.ScalarNode && n.Tag == "!!merge") {
		return true
	}
	for _, c := range n.Content {
		if hasAnchorsOrMerges(c) {
			return true
		}
	}
	return false
}

// betweenEntries: a blank line, or a comment at the start of a line,
// after an entry's last line: it stays where it is when the entry changes
// (yaml.v3 files such a comment with the neighbouring keys).
func betweenEntries(s string) bool {
	t := strings.TrimRight(s, "\r\n")
	return strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#")
}

// above is where an entry inserted before key i goes: above the comment
// lines written right over that key (they are the key's).
func (l *fmLayout) above(i int) int {
	at := l.spans[i][0]
	floor := 0
	if i > 0 {
		floor = l.spans[i-1][1]
	}
	for at > floor && strings.HasPrefix(l.lines[at-1], "#") {
		at--
	}
	return at
}

// entryLines encodes one key and its value as the lines of a frontmatter
// entry, without the comments that sit outside its lines (the key's head
// comment above it, the foot comments after it): those lines are kept.
func entryLines(key, value *yaml.Node, nl string) ([]string, error) {
	k, v := *key, *value
	k.HeadComment, k.FootComment, v.FootComment = "", "", ""
	if k.Kind == 0 {
		k = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key.Value}
	}
	keepFlowNulls(&v, false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{&k, &v}}); err != nil {
		return nil, fmt.Errorf("encode frontmatter key %s: %w", key.Value, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode frontmatter key %s: %w", key.Value, err)
	}
	out := strings.SplitAfter(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, s := range out {
		out[i] = strings.TrimSuffix(s, "\n") + nl
	}
	return out, nil
}

// fmEdit is one change to the mapping: the key at pair index i replaced
// (replace), removed (remove), or a new pair inserted at index i.
type fmEdit struct {
	i               int
	replace, remove bool
}

// apply makes the change, already made to n's mapping node, to its text:
// spliced when the layout allows and the result reads back as intended,
// else by re-encoding the whole block. prev is the mapping's content
// before the change, restored when neither way gives sound YAML.
func (n *Note) apply(l fmLayout, ok bool, e fmEdit, prev []*yaml.Node) error {
	if ok {
		var entry []string
		if !e.remove {
			var err error
			v := n.fmNode.Content[2*e.i+1]
			if entry, err = entryLines(n.fmNode.Content[2*e.i], v, l.nl); err != nil {
				ok = false
			} else if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && l.flushItems(e) {
				entry = dedent(entry)
			}
		}
		// yaml.v3 writes a blank line after a comment that ends a list;
		// without it first, as the person wrote it.
		for _, lines := range [][]string{tidy(entry), entry} {
			if !ok {
				break
			}
			text := l.splice(e, lines)
			if node, err := parseMapping(text); err == nil && sameNode(node, n.fmNode) {
				n.fmRaw = []byte(string(l.pre) + text + string(l.post))
				n.fmNode = node
				n.readKeys()
				return nil
			}
		}
	}
	if err := n.reencode(); err != nil {
		n.fmNode.Content = prev
		return err
	}
	return nil
}

// flushItems says whether a block list written by e should have its
// items flush with its key (`- item` under `key:`, as many people write
// them) rather than indented: as the entry's own items were, else as the
// note's other lists are.
func (l *fmLayout) flushItems(e fmEdit) bool {
	first := func(from, to int) (string, bool) {
		for _, s := range l.lines[from:to] {
			if t := strings.TrimLeft(s, " "); strings.HasPrefix(t, "- ") || strings.TrimSpace(t) == "-" {
				return s, true
			}
		}
		return "", false
	}
	if e.replace {
		if s, found := first(l.spans[e.i][0]+1, l.spans[e.i][1]); found {
			return strings.HasPrefix(s, "-")
		}
	}
	for _, sp := range l.spans {
		if s, found := first(sp[0]+1, sp[1]); found {
			return strings.HasPrefix(s, "-")
		}
	}
	return false
}

// dedent takes two spaces off every line of an entry but its first.
func dedent(lines []string) []string {
	out := append([]string(nil), lines...)
	for i := 1; i < len(out); i++ {
		if !strings.HasPrefix(out[i], "  ") {
			return lines
		}
		out[i] = out[i][2:]
	}
	return out
}

// tidy drops the blank lines that follow a comment line.
func tidy(lines []string) []string {
	out := make([]string, 0, len(lines))
	for i, s := range lines {
		if i > 0 && strings.TrimSpace(s) == "" && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
			continue
		}
		out = append(out, s)
	}
	return out
}

// splice returns the YAML text with the entry the change touches replaced
// by lines (removed, or inserted).
func (l *fmLayout) splice(e fmEdit, lines []string) string {
	var at, to int
	switch {
	case e.remove || e.replace:
		at, to = l.spans[e.i][0], l.spans[e.i][1]
	case e.i < len(l.spans):
		at = l.above(e.i)
		to = at
	case len(l.spans) > 0:
		at = l.spans[len(l.spans)-1][1]
		to = at
	default:
		at, to = len(l.lines), len(l.lines)
	}
	out := make([]string, 0, len(l.lines)+len(lines))
	out = append(append(append(out, l.lines[:at]...), lines...), l.lines[to:]...)
	return strings.Join(out, "")
}

// parseMapping reads YAML text that must be a mapping (or nothing).
func parseMapping(text string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, err
	}
	switch {
	case doc.Kind == 0:
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
		return doc.Content[0], nil
	}
	return nil, fmt.Errorf("frontmatter is not a YAML mapping")
}

// sameNode compares two YAML trees as values: kinds, resolved tags and
// scalar text (not styles, comments or positions).
func sameNode(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yaml.ScalarNode && (a.Value != b.Value || a.ShortTag() != b.ShortTag()) {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}
