package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// snippetBytes is about how long a snippet is.
const snippetBytes = 260

type span struct{ start, end int }

// Snippet is the part of body that best matches query: the window holding
// the most distinct query terms (as the English and French analysers see
// them, so `écoles` marks `école`), with each match in **bold** Markdown
// and nothing HTML-escaped. With no match, the start of the chunk the
// semantic search preferred (or of the body).
func (ix *Index) Snippet(body, query string, hint *Chunk) string {
	spans, terms := ix.matches(body, query)
	if len(spans) == 0 {
		start, end := 0, len(body)
		if hint != nil && hint.End <= len(body) && hint.Start < hint.End {
			start, end = hint.Start, hint.End
		}
		return excerpt(body, start, min(end, start+snippetBytes), nil)
	}
	bestStart, bestScore := spans[0].start, -1
	for _, a := range spans {
		from := max(0, a.start-40)
		seen := map[int]bool{}
		for _, s := range spans {
			if s.start >= from && s.end <= from+snippetBytes {
				seen[terms[s]] = true
			}
		}
		if len(seen) > bestScore {
			bestStart, bestScore = from, len(seen)
		}
	}
	return excerpt(body, bestStart, min(len(body), bestStart+snippetBytes), spans)
}

// matches finds the byte spans of body whose analysed term is one of the
// query's, in either language; terms numbers each span's query term.
func (ix *Index) matches(body, query string) ([]span, map[span]int) {
	terms := map[span]int{}
	var spans []span
	ids := map[string]int{}
	for _, l := range langs {
		a := ix.analyzer(l)
		if a == nil {
			continue
		}
		want := map[string]bool{}
		for _, t := range a.Analyze([]byte(query)) {
			want[string(t.Term)] = true
		}
		if len(want) == 0 {
			continue
		}
		for _, t := range a.Analyze([]byte(body)) {
			term := string(t.Term)
			if !want[term] {
				continue
			}
			s := span{t.Start, t.End}
			if _, dup := terms[s]; dup {
				continue
			}
			id, ok := ids[l+":"+term]
			if !ok {
				id = len(ids)
				ids[l+":"+term] = id
			}
			terms[s] = id
			spans = append(spans, s)
		}
	}
	sortSpans(spans)
	return spans, terms
}

// MatchesIn reports whether text holds any of query's terms.
func (ix *Index) MatchesIn(text, query string) bool {
	spans, _ := ix.matches(text, query)
	return len(spans) > 0
}

func (ix *Index) analyzer(name string) analysis.Analyzer {
	return ix.bleve.Mapping().AnalyzerNamed(name)
}

func sortSpans(s []span) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].start < s[j-1].start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// excerpt renders body[start:end], widened to whole words, on one line,
// with the spans in bold and an ellipsis where it cuts.
func excerpt(body string, start, end int, spans []span) string {
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	for start > 0 && !isSpaceByte(body[start-1]) && start > 0 {
		start--
	}
	for end < len(body) && !utf8.RuneStart(body[end]) {
		end++
	}
	if end < len(body) {
		if i := strings.LastIndexAny(body[start:end], " \n\t"); i > 0 {
			end = start + i
		}
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for _, s := range spans {
		if s.start < pos || s.end > end {
			continue
		}
		b.WriteString(body[pos:s.start])
		b.WriteString("**")
		b.WriteString(body[s.start:s.end])
		b.WriteString("**")
		pos = s.end
	}
	b.WriteString(body[pos:end])
	if end < len(body) {
		b.WriteString("…")
	}
	return strings.Join(strings.FieldsFunc(b.String(), unicode.IsSpace), " ")
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
