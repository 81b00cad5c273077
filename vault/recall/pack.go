package recall

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/note"
)

// pack fills the budget in order of score: each item gets a block
// (`## Title [n]`, then the excerpt) and its source in Items; an excerpt
// is cut to what is left, and an item that would not fit even cut short is
// left out. What is counted is the reply as JSON (escapes and all), so the
// budget bounds what the agent is sent.
func pack(v *vault.Vault, ix *search.Index, topic string, order []*candidate, out *Result) {
	sepTokens := jsonTokens(recallSep)
	// The whole reply stays within limit; the reply without items (its
	// fixed fields, with room for usedTokens' and left's digits, and a
	// notice) is counted from the start.
	limit := out.BudgetTokens + Overhead
	used := replyTokens(out) + search.Tokens(`,"left":1000`) + 1
	var headers, excerpts []string
	for i, cd := range order {
		id, title, ok := v.NoteTitle(cd.path)
		data, err := v.ReadNoteFile(cd.path)
		if !ok || err != nil {
			continue
		}
		body := string(note.Parse(cd.path, data).Body)
		item := Item{ID: id, Path: cd.path, Title: title, Class: vault.ClassOf(cd.path), Why: cd.why, Via: cd.via, Score: vault.RoundScore(cd.score)}
		header := fmt.Sprintf("## %s [%d]\n", title, len(out.Items)+1)
		fixed := jsonTokens(header) + itemTokens(item)
		if len(headers) > 0 {
			fixed += sepTokens
		}
		left := limit - used - fixed
		if left < 20 {
			out.Left += len(order) - i
			break
		}
		// The first items may take more room than later ones.
		share := max((limit-used)/2, 120)
		if cd.why == "linked" || cd.why == "memory" {
			share = max((limit-used)/4, 80)
		}
		excerpt := truncateJSON(withoutTitle(excerptFor(ix, body, topic, cd.chunk), title), min(left, share)-3)
		excerpt = mendCut(excerpt)
		if excerpt == "" {
			out.Left++
			continue
		}
		n := fixed + jsonTokens(excerpt)
		if used+n > limit {
			out.Left++
			continue
		}
		used += n
		headers = append(headers, header)
		excerpts = append(excerpts, excerpt)
		out.Items = append(out.Items, item)
	}
	fit(out, limit, headers, excerpts)
}

// fit measures the whole reply and, since token counts of parts do not
// always add up to the whole (merges across a boundary), cuts the last
// excerpt shorter, or drops it, until the reply is within limit.
func fit(out *Result, limit int, headers, excerpts []string) {
	join := func() {
		blocks := make([]string, len(headers))
		for i := range headers {
			blocks[i] = headers[i] + excerpts[i]
		}
		out.Context = strings.Join(blocks, recallSep)
	}
	join()
	for {
		out.UsedTokens = 0
		for range 4 { // the count includes its own digits
			n := replyTokens(out)
			if n == out.UsedTokens {
				break
			}
			out.UsedTokens = n
		}
		if out.UsedTokens <= limit || len(headers) == 0 {
			return
		}
		last := len(headers) - 1
		if n := jsonTokens(excerpts[last]) - (out.UsedTokens - limit) - 2; n >= 20 {
			if shorter := mendCut(truncateJSON(excerpts[last], n-3)); shorter != "" && shorter != excerpts[last] {
				excerpts[last] = shorter
				join()
				continue
			}
		}
		headers, excerpts = headers[:last], excerpts[:last]
		out.Items = out.Items[:last]
		out.Left++
		join()
	}
}

// recallSep separates the context's blocks.
const recallSep = "\n\n"

// replyTokens is the size of the reply as the tool sends it: json.Marshal,
// as mcptools encodes every result.
func replyTokens(out *Result) int {
	b, err := json.Marshal(out)
	if err != nil {
		return math.MaxInt
	}
	return search.Tokens(string(b))
}

// jsonTokens is about what s costs inside a JSON string (its escapes
// included, its quotes not).
func jsonTokens(s string) int {
	b, _ := json.Marshal(s)
	return search.Tokens(string(b[1 : len(b)-1]))
}

// itemTokens is what an item costs in the items list (with its comma).
func itemTokens(it Item) int {
	b, _ := json.Marshal(it)
	return search.Tokens(string(b)) + 1
}

// truncateJSON is the longest prefix of s, cut at a word as
// search.Truncate cuts, that costs at most max tokens inside a JSON
// string: escaped newlines and quotes make it a little dearer than the
// text alone.
func truncateJSON(s string, max int) string {
	target := max
	for target > 0 {
		t := search.Truncate(s, target)
		n := jsonTokens(t)
		if n <= max {
			return t
		}
		target -= n - max
	}
	return ""
}

// mendCut keeps an excerpt cut short from ending in half a link, half a
// code span or inside a code block: a `[[…`, `[…` or `[…](…` left open
// on its last line is dropped with what follows it, so is an unpaired
// backtick, and a fenced block left open is closed.
func mendCut(excerpt string) string {
	if !strings.HasSuffix(excerpt, "…") {
		return excerpt
	}
	lineStart := strings.LastIndexByte(excerpt, '\n') + 1
	last := excerpt[lineStart:]
	cut := len(last)
	if i := strings.LastIndex(last, "[["); i >= 0 && !strings.Contains(last[i:], "]]") {
		cut = min(cut, i)
	}
	if i := strings.LastIndexByte(last, '['); i >= 0 && !strings.Contains(last[i:], "]") {
		cut = min(cut, i)
	}
	if j := strings.LastIndex(last, "]("); j >= 0 && !strings.Contains(last[j:], ")") {
		if i := strings.LastIndexByte(last[:j], '['); i >= 0 {
			cut = min(cut, i)
		}
	}
	if strings.Count(last[:cut], "`")%2 == 1 && !strings.HasPrefix(strings.TrimLeft(last, " "), "```") {
		cut = strings.LastIndexByte(last[:cut], '`')
	}
	if cut < len(last) {
		if cut > 0 && last[cut-1] == '!' {
			cut-- // an embed
		}
		excerpt = strings.TrimRight(excerpt[:lineStart+cut], " \n") + "…"
	}
	fences := 0
	for _, l := range strings.Split(excerpt, "\n") {
		if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fences++
		}
	}
	if fences%2 == 1 {
		excerpt += "\n```"
	}
	if excerpt == "…" {
		return ""
	}
	return excerpt
}

// withoutTitle drops the note's own `# Title` line from the start of an
// excerpt: the block's heading already says it.
func withoutTitle(excerpt, title string) string {
	first, rest, _ := strings.Cut(excerpt, "\n")
	if strings.TrimSpace(strings.TrimPrefix(first, "#")) == title && strings.HasPrefix(first, "# ") {
		return strings.TrimSpace(rest)
	}
	return excerpt
}

// excerptFor is the part of a body worth showing for topic: from the
// section semantic search preferred, else from the lexical snippet's
// place, else the start; whole paragraphs, trimmed later to the budget.
func excerptFor(ix *search.Index, body, topic string, chunk *search.Chunk) string {
	if chunk != nil && chunk.Start < chunk.End && chunk.End <= len(body) {
		return strings.TrimSpace(body[chunk.Start:])
	}
	// The body is scanned for a match once (as far as a snippet looks),
	// not once per chunk.
	if at := ix.FirstMatch(body, topic); at >= 0 {
		for _, c := range search.Chunks(body) {
			if at < c.End {
				return strings.TrimSpace(body[c.Start:])
			}
		}
	}
	return strings.TrimSpace(body)
}
