package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// Every reply is bounded. A note may hold 100,000 wikilinks in 600 KB, and
// get_note with detailed: true listed them all, twice (the text content
// repeated the structured content): a 28 MB line, on which the official
// TypeScript client closed the connection. So a reply's JSON goes out
// whole, as structured content and as text, while both together fit in
// the registry's MaxReply (1 MiB unless cairn serve --max-reply says
// otherwise); a bigger one is cut to fit: the structured content to three
// quarters of the bound, the text to the rest (so the text never repeats
// a big reply whole). Cutting shortens the largest list (or text) first,
// keeps its first items, and says so beside it ("<field>Truncated":
// {"shown", "total"}) and in a top-level "notice". Tools whose lists grow
// without bound page them themselves (list_notes' cursor, get_note's
// contentOffset); this is what makes every reply bounded whatever a
// vault holds.

// DefaultMaxReply is the bound on a reply unless the server sets another.
const DefaultMaxReply = 1 << 20

// MinMaxReply is the smallest bound a server may set: a reply of a note's
// metadata with a notice must fit.
const MinMaxReply = 16 << 10

// boundedResult is the MCP result of a tool's reply out, within max bytes
// of JSON (text and structured content together).
func boundedResult(out any, max int) *mcp.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return mcp.NewToolResultError("encode result: " + err.Error())
	}
	if 2*len(b) <= max {
		return mcp.NewToolResultStructured(json.RawMessage(b), string(b))
	}
	structured := b
	if len(b) > max*3/4 {
		structured = cutJSON(b, max*3/4, "")
	}
	text := cutJSON(b, max-len(structured), "This text is shortened; the reply's structured content holds more of it.")
	return mcp.NewToolResultStructured(json.RawMessage(structured), string(text))
}

// cutJSON is the JSON document b cut to at most budget bytes (see above),
// with extra added to its notice.
func cutJSON(b []byte, budget int, extra string) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return []byte(`{"notice":"the reply could not be cut to fit"}`)
	}
	var cuts []string
	for pass := 0; pass < 64; pass++ {
		notice(root, budget, cuts, extra)
		out, _ := json.Marshal(root)
		if len(out) <= budget {
			return out
		}
		s := biggest(root, "")
		if s == nil {
			break
		}
		// Room for what the cut adds: its Truncated field and its line in
		// the notice.
		target := s.size - (len(out) - budget) - 160 - len(s.path)
		cuts = append(cuts, s.cut(max(target, 2)))
	}
	return []byte(fmt.Sprintf(`{"notice":%q}`, fmt.Sprintf("The reply was over the server's bound of %d bytes and could not be cut to fit; ask for less.", budget)))
}

// notice sets the top-level notice of a cut reply (an object).
func notice(root any, budget int, cuts []string, extra string) {
	obj, ok := root.(map[string]any)
	if !ok || (len(cuts) == 0 && extra == "") {
		return
	}
	msg := extra
	if len(cuts) > 0 {
		msg = strings.TrimSpace(fmt.Sprintf("The reply was cut to fit the server's bound of %d bytes: %s. Ask for less (a limit, a narrower path or project) or page on (a cursor, contentOffset) for the rest. %s",
			budget, strings.Join(cuts, "; "), extra))
	}
	obj["notice"] = msg
}

// spot is a list or a text in a reply that can be cut.
type spot struct {
	path   string
	size   int // encoded
	val    any // []any or string
	set    func(any)
	parent map[string]any // the object holding it (nil in a list)
	key    string
}

// biggest is the largest list of two or more items, or text, in v: a list
// of one item is looked into instead.
func biggest(v any, path string) *spot {
	var best *spot
	var visit func(v any, path string, set func(any), parent map[string]any, key string)
	visit = func(v any, path string, set func(any), parent map[string]any, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if strings.HasSuffix(k, "Truncated") || k == "notice" {
					continue
				}
				k, x := k, x
				visit(c, joinPath(path, k), func(n any) { x[k] = n }, x, k)
			}
		case []any:
			if len(x) >= 2 && set != nil {
				if sz := encodedSize(x); best == nil || sz > best.size {
					best = &spot{path: path, size: sz, val: x, set: set, parent: parent, key: key}
				}
			}
			for i, c := range x {
				i := i
				visit(c, fmt.Sprintf("%s[%d]", path, i), func(n any) { x[i] = n }, nil, "")
			}
		case string:
			if sz := encodedSize(x); set != nil && sz > 64 && (best == nil || sz > best.size) {
				best = &spot{path: path, size: sz, val: x, set: set, parent: parent, key: key}
			}
		}
	}
	visit(v, path, nil, nil, "")
	return best
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// cut shortens the spot to at most target encoded bytes and says what it
// left out.
func (s *spot) cut(target int) string {
	switch x := s.val.(type) {
	case []any:
		keep, size := 0, 2
		for keep < len(x) {
			n := encodedSize(x[keep]) + 1
			if size+n > target {
				break
			}
			size += n
			keep++
		}
		s.set(x[:keep])
		if s.parent != nil {
			s.parent[s.key+"Truncated"] = map[string]any{"shown": keep, "total": len(x)}
		}
		return fmt.Sprintf("%s shows %d of %d", s.path, keep, len(x))
	case string:
		keep := prefixWithin(x, target)
		s.set(x[:keep])
		if s.parent != nil {
			s.parent[s.key+"Truncated"] = map[string]any{"shownBytes": keep, "totalBytes": len(x)}
		}
		return fmt.Sprintf("%s shows %d of %d bytes", s.path, keep, len(x))
	}
	return ""
}

// prefixWithin is the length of the longest prefix of s, cut between two
// characters, whose JSON encoding fits in target bytes.
func prefixWithin(s string, target int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		for mid > 0 && mid < len(s) && !utf8.RuneStart(s[mid]) {
			mid--
		}
		if mid <= lo {
			break
		}
		if encodedSize(s[:mid]) <= target {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// encodedSize is the length of v as json.Marshal writes it.
func encodedSize(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 2
		for k, c := range x {
			n += encodedSize(k) + 1 + encodedSize(c) + 1
		}
		if len(x) > 0 {
			n--
		}
		return n
	case []any:
		n := 2
		for _, c := range x {
			n += encodedSize(c) + 1
		}
		if len(x) > 0 {
			n--
		}
		return n
	case json.Number:
		return len(x)
	}
	b, _ := json.Marshal(v)
	return len(b)
}

// boundText bounds a result a tool family makes itself (hindsight's
// text): each text over max is cut between two characters, and says so.
func boundText(res *mcp.CallToolResult, max int) *mcp.CallToolResult {
	for i, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok && len(tc.Text) > max {
			note := fmt.Sprintf("\n[cut: the reply was %d bytes, over the server's bound of %d; ask for less]", len(tc.Text), max)
			keep := max - len(note)
			for keep > 0 && !utf8.RuneStart(tc.Text[keep]) {
				keep--
			}
			tc.Text = tc.Text[:keep] + note
			res.Content[i] = tc
		}
	}
	return res
}

// fitPage is a page of a list paged with a cursor, of at most limit
// entries and small enough to go out whole (half of e.MaxReply: text and
// structured content), asked for again with fewer entries while it is
// not: cut by boundedResult instead, a page would hide the entries between
// the cut and its cursor. limit 0 is the tool's default.
func fitPage[T any](e *Env, limit int, page func(limit int) (T, error)) (T, error) {
	for {
		p, err := page(limit)
		if err != nil || e.MaxReply <= 0 {
			return p, err
		}
		b, err := json.Marshal(p)
		if err != nil || len(b) <= e.MaxReply/2 {
			return p, err
		}
		n := countEntries(b)
		if n <= 1 {
			return p, nil // one entry, cut by boundedResult if it must be
		}
		limit = max(1, min(n-1, n*(e.MaxReply/2)/len(b)))
	}
}

// countEntries is the length of the one list a page's JSON holds (its
// entries): the page's own count of what it holds.
func countEntries(b []byte) int {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return 0
	}
	for _, v := range m {
		var list []json.RawMessage
		if json.Unmarshal(v, &list) == nil && len(list) > 0 {
			return len(list)
		}
	}
	return 0
}
