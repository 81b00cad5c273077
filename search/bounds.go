package search

import "unicode/utf8"

// Bounds on what one document may cost, whatever its content: indexing
// time grows with the text analysed (about 0.2 s per MiB per language on
// a 2-core machine, and never more now that words are cut before
// stemming), so the text is capped per field, and the lists that would
// grow the manifest, the neighbour fan-out or the vector count are capped
// too. What lies beyond a cap is not searchable; docs/search-index.md
// ("Bounds: one note never stalls the rest") lists them.
const (
	// MaxBodyBytes of a body are indexed and embedded: a note written
	// through cairn is never longer (vault.MaxNoteBytes); one made by hand
	// may be, up to what the vault reads at all.
	MaxBodyBytes    = 1 << 20
	maxTitleBytes   = 1 << 10
	maxAliases      = 64
	maxAliasBytes   = 1 << 10
	maxMetaBytes    = 16 << 10
	maxContextBytes = 32 << 10
	// maxKeywords tags (and names of people) are indexed; a tag, type or
	// name longer than maxKeywordBytes is not (cut, it would match a
	// filter naming its prefix).
	maxKeywords     = 64
	maxKeywordBytes = 256
	// MaxSequence neighbours are kept per document: each passes score at
	// search time and is re-indexed when the document changes.
	MaxSequence = 32
)

// bounded is d within the bounds above: d itself when it already is, else
// a copy (the caller's document is never changed). A cut text keeps its
// start, so byte offsets into the body stay valid in the full note.
func bounded(d *Doc) *Doc {
	if withinBounds(d) {
		return d
	}
	c := *d
	c.Body = cutBytes(d.Body, MaxBodyBytes)
	c.Title = cutBytes(d.Title, maxTitleBytes)
	c.Context = cutBytes(d.Context, maxContextBytes)
	c.Aliases = nil
	for _, a := range d.Aliases[:min(len(d.Aliases), maxAliases)] {
		c.Aliases = append(c.Aliases, cutBytes(a, maxAliasBytes))
	}
	c.Meta = nil
	size := 0
	for _, m := range d.Meta {
		if size += len(m); size > maxMetaBytes {
			break
		}
		c.Meta = append(c.Meta, m)
	}
	c.Tags = keywords(d.Tags)
	c.Who = keywords(d.Who)
	if len(c.Type) > maxKeywordBytes {
		c.Type = ""
	}
	c.Sequence = d.Sequence[:min(len(d.Sequence), MaxSequence)]
	return &c
}

func withinBounds(d *Doc) bool {
	if len(d.Body) > MaxBodyBytes || len(d.Title) > maxTitleBytes || len(d.Context) > maxContextBytes ||
		len(d.Aliases) > maxAliases || len(d.Tags) > maxKeywords || len(d.Who) > maxKeywords ||
		len(d.Type) > maxKeywordBytes || len(d.Sequence) > MaxSequence {
		return false
	}
	for _, a := range d.Aliases {
		if len(a) > maxAliasBytes {
			return false
		}
	}
	size := 0
	for _, m := range d.Meta {
		size += len(m)
	}
	if size > maxMetaBytes {
		return false
	}
	for _, list := range [][]string{d.Tags, d.Who} {
		for _, k := range list {
			if len(k) > maxKeywordBytes {
				return false
			}
		}
	}
	return true
}

// keywords keeps the first maxKeywords values that are short enough.
func keywords(list []string) []string {
	var out []string
	for _, k := range list {
		if len(out) == maxKeywords {
			break
		}
		if len(k) <= maxKeywordBytes {
			out = append(out, k)
		}
	}
	return out
}

// cutBytes is the longest prefix of s of at most n bytes that does not
// split a character.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// boundedAll is docs within bounds, in a new slice when any had to be cut.
func boundedAll(docs []*Doc) []*Doc {
	for i, d := range docs {
		if b := bounded(d); b != d {
			out := append([]*Doc(nil), docs...)
			out[i] = b
			for j := i + 1; j < len(out); j++ {
				out[j] = bounded(out[j])
			}
			return out
		}
	}
	return docs
}
