package note

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/wikilinks"
	"gopkg.in/yaml.v3"
)

// Everything cairn writes into a note's frontmatter is one of Obsidian's
// property types, so that its Properties view shows and edits it: text,
// a list of text, a number, a checkbox, a date (2026-09-24) or a date and
// time (2026-12-01T01:59:59). Obsidian types a property by its name, for
// the whole vault, so a name always holds one type (docs/properties.md,
// "Properties").

// DateTimeLayout is how cairn writes a moment: Obsidian's "Date & time"
// property, in UTC and without a zone (Obsidian stores no zone). UTC,
// not the machine's local time, because a vault is shared by clones in
// several time zones and its dates must sort and filter alike on each;
// ParseDate reads a date-time without a zone as UTC, so the values
// written before (2026-12-01T01:59:59Z) and these read the same.
const DateTimeLayout = "2006-01-02T15:04:05"

// DateTimeNode is t as a date-time property value.
func DateTimeNode(t time.Time) *yaml.Node { return StrNode(t.UTC().Format(DateTimeLayout)) }

// PropertyDate is how a date or time given as s (read as t by ParseDate)
// is written as a property: a day as a date (2026-11-29), a moment as a
// date-time in UTC (2026-11-29T08:00:00 for 2026-11-29T10:00:00+02:00).
// A month alone (2026-11) is no Obsidian date and stays as given.
func PropertyDate(s string, t time.Time) string {
	s = strings.TrimSpace(s)
	switch {
	case len(s) == len("2006-01-02"):
		return t.Format("2006-01-02")
	case strings.ContainsAny(s, "T :"):
		return t.UTC().Format(DateTimeLayout)
	}
	return s
}

// notLinkProperties never hold typed links, whatever their values look
// like: Obsidian's own list properties.
var notLinkProperties = map[string]bool{"aliases": true, "tags": true, "cssclasses": true}

// LegacyLinksKey is the list typed links were written in before they
// became properties (`links: [{type: depends_on, to: "[[X]]"}]`): still
// read, and moved into properties by cairn's next write of the note.
const LegacyLinksKey = "links"

// ConflictsKey is the frontmatter list through which a note kept in place
// by a sync conflict links to the copies holding the other versions
// (`conflicts: ["[[./Note (conflict 2026-12-01 101500)]]"]`, without "./"
// at the root: a list of links that Obsidian's Properties show), so
// whoever opens the note finds them.
// Deleting a copy resolves its conflict; the entry then points nowhere,
// and cairn doctor --fix removes it.
const ConflictsKey = "conflicts"

// linkTypeRE is what a link type must look like: a lower-case word, a
// property name Obsidian and YAML take as is.
var linkTypeRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ValidLinkType says whether typ looks like a link type (linkTypeRE).
func ValidLinkType(typ string) bool { return linkTypeRE.MatchString(typ) }

// ReservedProperty says whether a property name has another meaning for
// cairn, search or Obsidian, so that a typed link cannot take it.
func ReservedProperty(name string) bool { return reservedLinkTypes[name] }

// reservedLinkTypes are property names that cairn, search or Obsidian give
// another meaning: a typed link cannot take them.
var reservedLinkTypes = map[string]bool{
	"id": true, "type": true, "title": true, "tags": true, "aliases": true, "cssclasses": true,
	"created": true, "updated": true, "date": true, "status": true, "pinned": true, "project": true,
	"category": true, LegacyLinksKey: true, ConflictsKey: true, "conflict_of": true, "conflict_from": true,
	"fact_type": true, "context": true, "explanation": true, "event_date": true, "document_id": true,
	"occurred_at": true, "captured_at": true, "thought_kind": true, "space": true,
}

// LinkValue reads a property value that is one wikilink ("[[T#frag|label]]",
// the whole value): its target and fragment. Obsidian links a property
// value written so; text around a link, or two links, make plain text.
func LinkValue(s string) (target, fragment string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[[") || !strings.HasSuffix(s, "]]") {
		return "", "", false
	}
	inner := s[2 : len(s)-2]
	if strings.Contains(inner, "[[") || strings.Contains(inner, "]]") || strings.ContainsAny(inner, "\n\r") {
		return "", "", false
	}
	target, fragment = wikilinks.ParseRef(s)
	return target, fragment, target != ""
}

// IsLinkText says whether a property value is one wikilink, as TypedLinks
// reads it.
func IsLinkText(s string) bool {
	_, _, ok := LinkValue(s)
	return ok
}

// isLinkNode: a scalar whose whole value is a wikilink.
func isLinkNode(v *yaml.Node) bool {
	if v == nil || v.Kind != yaml.ScalarNode {
		return false
	}
	_, _, ok := LinkValue(v.Value)
	return ok
}

// LinkItem is a list item holding a link, quoted as Obsidian writes it.
func LinkItem(target string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: "[[" + target + "]]"}
}

// TypedLinks are the note's typed links: every property whose value is a
// wikilink, or a list holding wikilinks, is a link of the property's name
// as type (`supersedes: ["[[Old decision]]"]`), as Obsidian reads links
// in properties; aliases, tags and cssclasses never are. Entries of the
// legacy `links:` list ({type, to}) are read as before.
func (n *Note) TypedLinks() []wikilinks.Link {
	if n.fmNode == nil {
		return nil
	}
	var out []wikilinks.Link
	add := func(typ, value string) {
		if target, frag, ok := LinkValue(value); ok {
			out = append(out, wikilinks.Link{Target: target, Fragment: frag, Type: typ, Typed: true, Offset: -1})
		}
	}
	for i := 0; i+1 < len(n.fmNode.Content); i += 2 {
		k, v := n.fmNode.Content[i].Value, n.fmNode.Content[i+1]
		if notLinkProperties[k] {
			continue
		}
		switch v.Kind {
		case yaml.ScalarNode:
			add(k, v.Value)
		case yaml.SequenceNode:
			for _, item := range v.Content {
				switch {
				case item.Kind == yaml.ScalarNode:
					add(k, item.Value)
				case k == LegacyLinksKey && item.Kind == yaml.MappingNode:
					if l, ok := legacyLink(item); ok {
						out = append(out, l)
					}
				}
			}
		}
	}
	return out
}

// legacyLink reads one entry of the legacy `links:` list.
func legacyLink(item *yaml.Node) (wikilinks.Link, bool) {
	typ, to := legacyFields(item)
	target, frag := wikilinks.ParseRef(to)
	if typ == "" || target == "" {
		return wikilinks.Link{}, false
	}
	return wikilinks.Link{Target: target, Fragment: frag, Type: typ, Typed: true, Offset: -1}, true
}

func legacyFields(item *yaml.Node) (typ, to string) {
	for i := 0; i+1 < len(item.Content); i += 2 {
		switch item.Content[i].Value {
		case "type":
			typ = item.Content[i+1].Value
		case "to":
			to = item.Content[i+1].Value
		}
	}
	return typ, to
}

// RewriteTypedLinkValues calls fn with every scalar node that holds a typed
// link's text (a link property's value or items, a legacy entry's `to`),
// in the order TypedLinks reads them; fn changes the node and says so.
// Each property changed is written again at once, on its own lines (a
// change waiting in another property would make the splice of this one
// read back wrong, and the block be written whole).
func (n *Note) RewriteTypedLinkValues(fn func(*yaml.Node) bool) error {
	for i := 0; n.fmNode != nil && i+1 < len(n.fmNode.Content); i += 2 {
		k, v := n.fmNode.Content[i].Value, n.fmNode.Content[i+1]
		if notLinkProperties[k] {
			continue
		}
		hit := false
		visit := func(s *yaml.Node) {
			if s.Kind == yaml.ScalarNode && fn(s) {
				hit = true
			}
		}
		switch v.Kind {
		case yaml.ScalarNode:
			if isLinkNode(v) {
				visit(v)
			}
		case yaml.SequenceNode:
			for _, item := range v.Content {
				switch {
				case isLinkNode(item):
					visit(item)
				case k == LegacyLinksKey && item.Kind == yaml.MappingNode:
					for j := 0; j+1 < len(item.Content); j += 2 {
						if item.Content[j].Value == "to" {
							visit(item.Content[j+1])
						}
					}
				}
			}
		}
		if hit {
			if err := n.replaceAt(i/2, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// SetList sets a list property to items, keeping how the list was
// written: its style (inline [a, b] or one `- item` a line) and the items
// that stay, quoting and comments included. A new list takes the style of
// the note's other lists (inline when it has none); links are quoted.
func (n *Note) SetList(key string, items []string) error {
	old := n.key(key)
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: n.listStyle()}
	var reuse []*yaml.Node
	if old != nil && old.Kind == yaml.SequenceNode {
		seq.Style, seq.HeadComment, seq.LineComment = old.Style, old.HeadComment, old.LineComment
		reuse = append([]*yaml.Node(nil), old.Content...)
	}
	for _, s := range items {
		var node *yaml.Node
		for j, r := range reuse {
			if r != nil && r.Kind == yaml.ScalarNode && r.Value == s {
				node, reuse[j] = r, nil
				break
			}
		}
		if node == nil {
			node = StrNode(s)
			if _, _, ok := LinkValue(s); ok {
				node.Style = yaml.DoubleQuotedStyle
			}
		}
		seq.Content = append(seq.Content, node)
	}
	return n.SetKey(key, seq)
}

// listStyle is the style of the note's first list property: a new list
// is written like the ones already there.
func (n *Note) listStyle() yaml.Style {
	if n.fmNode != nil {
		for i := 1; i < len(n.fmNode.Content); i += 2 {
			if v := n.fmNode.Content[i]; v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
				return v.Style & yaml.FlowStyle
			}
		}
	}
	return yaml.FlowStyle
}

// LinkPropertyProblem says why the note's property typ cannot take a
// link ("" when it can): it holds text that is not a link, a map, or a
// list of more than text. Absent or empty, a link, or a list of text is fine.
func LinkPropertyProblem(n *Note, typ string) string {
	v := n.key(typ)
	switch {
	case v == nil || isLinkNode(v) || isNull(v):
		return ""
	case v.Kind == yaml.ScalarNode:
		return fmt.Sprintf("the note's property %q holds text that is not a link; choose another type", typ)
	case v.Kind == yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return fmt.Sprintf("the note's property %q is a list of more than text; choose another type", typ)
			}
		}
		return ""
	}
	return fmt.Sprintf("the note's property %q is not a list; choose another type", typ)
}

// isNull: an empty property (`related:`), as Obsidian leaves one.
func isNull(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" }

// AddTypedLink adds a link to target to the note's property typ, a list
// (made at the end when absent; a single link already there becomes its
// first item). The caller checked LinkPropertyProblem.
func AddTypedLink(n *Note, typ, target string) error {
	if err := n.addLinkValue(typ, "[["+target+"]]", -1); err != nil {
		return err
	}
	return n.EnsureID()
}
