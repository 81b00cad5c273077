package note

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/wikilinks"
	"github.com/oklog/ulid/v2"
	"gopkg.in/yaml.v3"
)

// Note is one Markdown file: its frontmatter (kept as a YAML node so a
// rewrite keeps the user's key order, comments and quoting) and its body,
// kept byte for byte.
type Note struct {
	Path    string // vault-relative, slash-separated, ends in .md
	ID      string
	IDSaved bool // false when the id is derived from the path, not yet in the file
	Title   string
	Type    string
	Tags    []string
	Aliases []string

	fmRaw  []byte     // the frontmatter region as in the file, fences included
	fmNode *yaml.Node // the mapping node, nil when the file has none
	fmErr  error      // the frontmatter could not be parsed
	Body   []byte     // everything after the frontmatter region
}

// Parse reads a note's file content. A frontmatter that is not valid
// YAML does not make the note unreadable: the error is kept (FrontmatterError)
// and writes that need the frontmatter are refused.
func Parse(path string, raw []byte) *Note {
	n := &Note{Path: path}
	var doc yaml.Node
	fm, rest, found := splitFrontmatter(raw)
	var err error
	if found {
		err = yaml.Unmarshal(fm, &doc)
	}
	switch {
	case err != nil:
		n.fmErr = err
		n.Body = raw
	default:
		n.fmRaw = raw[:len(raw)-len(rest)]
		n.Body = raw[len(raw)-len(rest):]
		if len(n.fmRaw) > 0 {
			switch {
			case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
				n.fmNode = doc.Content[0]
			case doc.Kind == 0: // empty frontmatter
				n.fmNode = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			default:
				n.fmErr = fmt.Errorf("frontmatter is not a YAML mapping")
			}
		}
	}
	n.finish()
	return n
}

// finish reads the id, type, tags and aliases from the frontmatter node
// and the title from the body, once they are set.
func (n *Note) finish() {
	n.readKeys()
	n.Title = TitleOf(n.Body)
	if n.Title == "" {
		n.Title = strings.TrimSuffix(fileName(n.Path), ".md")
	}
	if n.ID == "" {
		n.ID = DerivedID(n.Path)
	} else {
		n.IDSaved = true
	}
}

// FrontmatterError is the reason the frontmatter could not be read, if any.
func (n *Note) FrontmatterError() error { return n.fmErr }

func (n *Note) readKeys() {
	if n.fmNode == nil {
		return
	}
	for i := 0; i+1 < len(n.fmNode.Content); i += 2 {
		k, v := n.fmNode.Content[i].Value, n.fmNode.Content[i+1]
		switch k {
		case "id":
			// An id the vault gave this file in place of a copied one
			// (adoptID: not saved yet) stands until EnsureID writes it.
			if v.Kind == yaml.ScalarNode && (n.ID == "" || n.IDSaved) {
				n.ID = strings.TrimSpace(v.Value)
			}
		case "type":
			if v.Kind == yaml.ScalarNode {
				n.Type = v.Value
			}
		case "tags":
			n.Tags = StringList(v)
		case "aliases":
			n.Aliases = StringList(v)
		}
	}
}

// StringList reads a YAML list of scalars, or a comma-separated scalar.
func StringList(v *yaml.Node) []string {
	var out []string
	switch v.Kind {
	case yaml.SequenceNode:
		for _, c := range v.Content {
			if c.Kind == yaml.ScalarNode && strings.TrimSpace(c.Value) != "" {
				out = append(out, strings.TrimSpace(c.Value))
			}
		}
	case yaml.ScalarNode:
		for _, s := range strings.Split(v.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// Frontmatter returns the frontmatter as plain values for JSON.
func (n *Note) Frontmatter() map[string]any {
	out, _ := n.FrontmatterValues()
	return out
}

// FrontmatterValues returns the frontmatter as plain values, and why some
// could not be read: YAML that parses as a tree need not decode as values
// (a key given twice leaves nothing; a value its tag does not fit, e.g.
// `!!int foo`, is left out). Writes keep such a frontmatter as written.
func (n *Note) FrontmatterValues() (map[string]any, error) {
	out := map[string]any{}
	if n.fmNode == nil {
		return out, nil
	}
	if err := datesAsWritten(n.fmNode).Decode(&out); err != nil {
		return out, fmt.Errorf("decode frontmatter: %w", err)
	}
	return out, nil
}

// datesAsWritten is a copy of a YAML tree whose unquoted dates are text:
// yaml.v3 reads `created: 2026-09-24` as a time, which JSON would show as
// 2026-09-24T00:00:00Z; a note's properties are shown as written, as
// Obsidian shows them.
func datesAsWritten(n *yaml.Node) *yaml.Node {
	cp := *n
	if cp.Kind == yaml.ScalarNode && cp.ShortTag() == "!!timestamp" {
		cp.Tag = "!!str"
	}
	if len(n.Content) > 0 {
		cp.Content = make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			cp.Content[i] = datesAsWritten(c)
		}
	}
	return &cp
}

// DerivedID is the id of a note whose file has none yet: stable for its
// path, shaped like a ULID. The first cairn write to the note saves it in
// the frontmatter, after which it survives moves and renames.
func DerivedID(path string) string {
	sum := sha256.Sum256([]byte("cairn-note-path:" + path))
	var id ulid.ULID
	copy(id[:], sum[:16])
	return id.String()
}

// NewID returns a fresh ULID.
func NewID() string { return ulid.Make().String() }

// TitleOf returns the text of the leading level-1 ATX heading of a body:
// the first non-blank line when it is "# Title" ("" otherwise). Headings
// inside fenced code are not headings.
//
// It reads up to the first non-blank line only, and the title it returns
// is a string of its own: a substring of the note's text would keep the
// whole text alive in the catalog and the link graph (issue 16 measured
// 35 MiB of note texts held so at 10,000 notes).
func TitleOf(body []byte) string {
	for rest := body; len(rest) > 0; {
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line := strings.TrimRight(string(raw), "\r")
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if h, ok := TitleLine(line); ok {
			return h
		}
		return ""
	}
	return ""
}

// TitleLine reads a line that is an ATX heading of level 1 ("# Title",
// up to three spaces before, closing #s dropped): its text.
func TitleLine(line string) (string, bool) {
	trim := strings.TrimLeft(line, " ")
	if len(line)-len(trim) > 3 || !strings.HasPrefix(trim, "#") {
		return "", false
	}
	rest := trim[1:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	// closing sequence of #s
	if i := strings.LastIndex(rest, " #"); i >= 0 && strings.Trim(rest[i+1:], "#") == "" {
		rest = strings.TrimSpace(rest[:i])
	} else if strings.Trim(rest, "#") == "" {
		rest = ""
	}
	return rest, rest != ""
}

// Render returns the file content: frontmatter region then body.
func (n *Note) Render() []byte {
	out := make([]byte, 0, len(n.fmRaw)+len(n.Body))
	out = append(out, n.fmRaw...)
	return append(out, n.Body...)
}

// SetKey sets a top-level frontmatter key (adding it at the end when new,
// or first for `id`). Only the lines of that key change (fmedit.go); the
// body is untouched. A note without frontmatter gets one.
func (n *Note) SetKey(key string, value *yaml.Node) error {
	at := -1
	if key == "id" { // ids go first, where people look for them
		at = 0
	}
	return n.setKeyAt(key, value, at)
}

// setKeyAt is SetKey that puts a new key before the key at pair index at
// (at the end when at < 0 or past the end).
func (n *Note) setKeyAt(key string, value *yaml.Node, at int) error {
	if n.fmErr != nil {
		return fmt.Errorf("the note's frontmatter is not valid YAML (%v): fix it in an editor first", n.fmErr)
	}
	l, ok := n.layout()
	if n.fmNode == nil {
		n.fmNode = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if i := n.keyIndex(key); i >= 0 {
		return n.replaceAt(i, value)
	}
	prev := append([]*yaml.Node(nil), n.fmNode.Content...)
	pairs := len(n.fmNode.Content) / 2
	if at < 0 || at > pairs {
		at = pairs
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	n.fmNode.Content = append(append(append([]*yaml.Node(nil), prev[:2*at]...), k, value), prev[2*at:]...)
	return n.apply(l, ok, fmEdit{i: at}, prev)
}

// replaceAt sets the value of the key at pair index i (of a key given
// twice, the one meant).
func (n *Note) replaceAt(i int, value *yaml.Node) error {
	if n.fmErr != nil {
		return fmt.Errorf("the note's frontmatter is not valid YAML (%v): fix it in an editor first", n.fmErr)
	}
	l, ok := n.layout()
	prev := append([]*yaml.Node(nil), n.fmNode.Content...)
	n.fmNode.Content[2*i+1] = value
	return n.apply(l, ok, fmEdit{i: i, replace: true}, prev)
}

// DeleteKey removes a top-level frontmatter key, if there: its lines go,
// every other line stays. The body is untouched.
func (n *Note) DeleteKey(key string) error {
	if n.fmErr != nil {
		return fmt.Errorf("the note's frontmatter is not valid YAML (%v): fix it in an editor first", n.fmErr)
	}
	if n.fmNode == nil {
		return nil
	}
	for i := 0; i+1 < len(n.fmNode.Content); i += 2 {
		if n.fmNode.Content[i].Value == key {
			l, ok := n.layout()
			prev := n.fmNode.Content
			n.fmNode.Content = append(append([]*yaml.Node(nil), prev[:i]...), prev[i+2:]...)
			return n.apply(l, ok, fmEdit{i: i / 2, remove: true}, prev)
		}
	}
	return nil
}

// KeyNode is a top-level frontmatter key's value as its YAML node (nil
// when absent), for a caller that carries it into another note unchanged.
func (n *Note) KeyNode(key string) *yaml.Node { return n.key(key) }

// reencode writes the whole frontmatter region again from its node: the
// fallback when a change cannot be spliced into the lines (fmedit.go).
func (n *Note) reencode() error {
	keepFlowNulls(n.fmNode, false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n.fmNode); err != nil {
		return fmt.Errorf("encode frontmatter: %w", err)
	}
	enc.Close()
	node, err := parseMapping(buf.String())
	if err != nil {
		return fmt.Errorf("the frontmatter would not read back (%v): fix it in an editor first", err)
	}
	n.fmNode = node // positions as now written, for the next splice
	fm := append(append([]byte("---\n"), buf.Bytes()...), []byte("---\n")...)
	if bytes.Contains(n.fmRaw, []byte("\r\n")) {
		fm = bytes.ReplaceAll(fm, []byte("\n"), []byte("\r\n")) // keep the file's line endings
	}
	n.fmRaw = fm
	n.readKeys()
	return nil
}

// keepFlowNulls spells out the empty nulls of flow mappings (the value of
// x in {x, y: 1}): yaml.v3 re-encodes such a null as a quoted empty
// string, which is another value. Found by FuzzFrontmatter.
func keepFlowNulls(n *yaml.Node, inFlow bool) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode && inFlow && n.Tag == "!!null" && n.Value == "" {
		n.Value = "null"
	}
	flow := inFlow || n.Style&yaml.FlowStyle != 0
	for _, c := range n.Content {
		keepFlowNulls(c, flow)
	}
}

// StrNode is a YAML string scalar.
func StrNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// ListNode is a flow-style YAML list of strings ([a, b]), as people write tags.
func ListNode(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, s := range items {
		n.Content = append(n.Content, StrNode(s))
	}
	return n
}

// EnsureID writes the note's id into its frontmatter if the file lacks one.
func (n *Note) EnsureID() error {
	if n.IDSaved {
		return nil
	}
	if err := n.SetKey("id", StrNode(n.ID)); err != nil {
		return err
	}
	n.IDSaved = true
	return nil
}

// GraphNote is the note as the link graph knows it.
func (n *Note) GraphNote() wikilinks.Note {
	return wikilinks.Note{ID: n.ID, Path: n.Path, Title: n.Title, Aliases: n.Aliases, Links: n.Links()}
}

// FrontmatterNode is the frontmatter's mapping node (keys and values in
// turn), nil when the note has none. A change to it is not written until
// the note is re-encoded: use SetKey, SetList and DeleteKey to write.
func (n *Note) FrontmatterNode() *yaml.Node { return n.fmNode }

// Links are the note's links: those written in the body, then its typed
// links (link properties and the legacy `links:` list: props.go).
func (n *Note) Links() []wikilinks.Link {
	return append(wikilinks.Parse(n.Body), n.TypedLinks()...)
}

// Scalar is a frontmatter key's value, trimmed, when it is a scalar ("" when
// absent or a list or a map).
func (n *Note) Scalar(k string) string {
	if v := n.key(k); v != nil && v.Kind == yaml.ScalarNode {
		return strings.TrimSpace(v.Value)
	}
	return ""
}

// key returns a top-level frontmatter value node, or nil.
func (n *Note) key(k string) *yaml.Node {
	if n.fmNode == nil {
		return nil
	}
	for i := 0; i+1 < len(n.fmNode.Content); i += 2 {
		if n.fmNode.Content[i].Value == k {
			return n.fmNode.Content[i+1]
		}
	}
	return nil
}

// fileName is the last element of a slash-separated path.
func fileName(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}
