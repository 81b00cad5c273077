package note

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Typed links used to be written as a list of maps,
//
//	links:
//	  - {type: depends_on, to: "[[Pricing]]"}
//
// which Obsidian's Properties view can neither show nor edit. They are now
// list properties named after their type (`depends_on: ["[[Pricing]]"]`).
// A note still holding the old list reads exactly as before (props.go,
// TypedLinks), and cairn's next write of the note moves each entry into
// its property, in the same commit. An entry that cannot move without
// losing something stays in `links:` as it is.

// MigrateLinks is migrateLinks for a note about to be written: a note
// whose list cannot be migrated whole stays exactly as it was.
func (n *Note) MigrateLinks() bool {
	if n.fmNode == nil || n.fmErr != nil || hasAnchorsOrMerges(n.fmNode) {
		return false
	}
	raw := n.fmRaw
	changed, err := migrateLinks(n)
	if err != nil {
		m := Parse(n.Path, append(append([]byte(nil), raw...), n.Body...))
		n.fmRaw, n.fmNode = m.fmRaw, m.fmNode
		n.readKeys()
		return false
	}
	return changed
}

// migrateLinks moves the entries of the note's legacy `links:` list into
// link properties, placed where the list was; the list goes when nothing
// is left in it. It reports whether the note changed.
func migrateLinks(n *Note) (bool, error) {
	seq := n.key(LegacyLinksKey)
	if seq == nil || seq.Kind != yaml.SequenceNode || !hasLegacyEntry(seq) {
		return false, nil
	}
	at := n.keyIndex(LegacyLinksKey)
	var keep []*yaml.Node
	moved := false
	for _, item := range seq.Content {
		typ, value, ok := migratable(n, item)
		if !ok {
			keep = append(keep, item)
			continue
		}
		if err := n.addLinkValue(typ, value, at); err != nil {
			return moved, err
		}
		moved = true
		at = n.keyIndex(LegacyLinksKey) // a new property went in before the list
	}
	if !moved {
		return false, nil
	}
	if len(keep) == 0 {
		return true, n.DeleteKey(LegacyLinksKey)
	}
	rest := *n.key(LegacyLinksKey)
	rest.Content = keep
	return true, n.SetKey(LegacyLinksKey, &rest)
}

// hasLegacyEntry: the list holds a {type, to} map (a `links:` property
// holding links as text is an ordinary link property, type "links").
func hasLegacyEntry(seq *yaml.Node) bool {
	for _, item := range seq.Content {
		if item.Kind == yaml.MappingNode {
			return true
		}
	}
	return false
}

// migratable says whether a legacy entry can become a link in property
// typ, written value, and reads the same there: a map of exactly a type
// that names a property for links and a `to` naming a note, the
// property absent or holding links (or text) only.
func migratable(n *Note, item *yaml.Node) (typ, value string, ok bool) {
	if item.Kind != yaml.MappingNode || len(item.Content) != 4 || item.Content[1].Kind != yaml.ScalarNode || item.Content[3].Kind != yaml.ScalarNode {
		return "", "", false
	}
	typ, to := legacyFields(item)
	if typ == "" || !linkTypeRE.MatchString(typ) || reservedLinkTypes[typ] || LinkPropertyProblem(n, typ) != "" {
		return "", "", false
	}
	l, ok := legacyLink(item)
	if !ok {
		return "", "", false
	}
	value = strings.TrimSpace(to)
	if !strings.HasPrefix(value, "[[") {
		value = "[[" + value + "]]"
	}
	target, frag, ok := LinkValue(value)
	if !ok || target != l.Target || frag != l.Fragment {
		return "", "", false
	}
	return typ, value, true
}

// addLinkValue adds value (a link's text) to the list property typ,
// unless it is there already; a new property goes before the key at
// pair index at.
func (n *Note) addLinkValue(typ, value string, at int) error {
	item := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: value}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: n.listStyle()}
	switch v := n.key(typ); {
	case v != nil && v.Kind == yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Value == value {
				return nil
			}
		}
		cp := *v
		cp.Content = append(append([]*yaml.Node(nil), v.Content...), item)
		return n.SetKey(typ, &cp)
	case v != nil && isLinkNode(v):
		if v.Value == value {
			return nil
		}
		seq.Content = []*yaml.Node{v, item}
		return n.SetKey(typ, seq)
	}
	seq.Content = []*yaml.Node{item}
	return n.setKeyAt(typ, seq, at)
}

// keyIndex is the pair index of a top-level key, -1 when absent.
func (n *Note) keyIndex(k string) int {
	if n.fmNode == nil {
		return -1
	}
	for i := 0; i+1 < len(n.fmNode.Content); i += 2 {
		if n.fmNode.Content[i].Value == k {
			return i / 2
		}
	}
	return -1
}

// HasLegacyLinks: the note still holds typed links in the legacy list.
func (n *Note) HasLegacyLinks() bool {
	seq := n.key(LegacyLinksKey)
	return seq != nil && seq.Kind == yaml.SequenceNode && hasLegacyEntry(seq)
}
