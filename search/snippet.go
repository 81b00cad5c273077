package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/registry"
	"golang.org/x/text/unicode/norm"
)

// snippetBytes is about how long a snippet is.
const snippetBytes = 260

// Bounds on the work of finding matches in a body: the scan stops after
// maxSpans matches or maxAnalysed analysed words (those that start like a
// query word). A note of up to 64 KiB never reaches them; a 1 MiB note of
// one query word repeated cost seconds per hit (and the window search
// grew with the square of the matches).
const (
	maxSpans    = 1000
	maxAnalysed = 20000
)

type span struct{ start, end int }

// Snippet is the part of body that best matches query: the window holding
// the most distinct query terms (as the English and French analysers see
// them, so `écoles` marks `école`), with each match in **bold** Markdown
// and nothing HTML-escaped. With no match, the start of the chunk the
// semantic search preferred (or of the body).
func (ix *Index) Snippet(body, query string, hint *Chunk) string {
	if c := ContentWords(query); c != "" {
		query = c // "the" and "de" are not what a reader looks for
	}
	spans, terms := ix.matches(body, query, maxSpans)
	if len(spans) == 0 {
		start, end := 0, len(body)
		if hint != nil && hint.End <= len(body) && hint.Start < hint.End {
			start, end = hint.Start, hint.End
		}
		return excerpt(body, start, min(end, start+snippetBytes), nil)
	}
	// Each window starts 40 bytes before a match; only the matches from
	// its start to its end are looked at (spans are in order).
	bestStart, bestScore := spans[0].start, -1
	seen := map[int]int{} // term → the window that last counted it
	first := 0
	for w, a := range spans {
		from := max(0, a.start-40)
		for spans[first].start < from {
			first++
		}
		n := 0
		for _, s := range spans[first:] {
			if s.start > from+snippetBytes {
				break
			}
			if t := terms[s]; s.end <= from+snippetBytes && seen[t] != w+1 {
				seen[t] = w + 1
				n++
			}
		}
		if n > bestScore {
			bestStart, bestScore = from, n
		}
	}
	return excerpt(body, bestStart, min(len(body), bestStart+snippetBytes), spans)
}

// FirstMatch is the offset in body of the first word matching a query
// term (as Snippet matches them), or -1; it looks no further than
// Snippet does.
func (ix *Index) FirstMatch(body, query string) int {
	spans, _ := ix.matches(body, query, 1)
	if len(spans) == 0 {
		return -1
	}
	return spans[0].start
}

// matches finds the byte spans of body whose analysed term is one of the
// query's, in either language, in order; terms numbers each span's query
// term. Analysing a whole body twice per hit was most of a search's time,
// so the body is cut into words by hand and only the words that start
// like a query word (two letters, case and accents folded) are analysed.
// It stops after limit spans, or maxAnalysed analysed words.
func (ix *Index) matches(body, query string, limit int) ([]span, map[span]int) {
	terms := map[span]int{}
	var spans []span
	type lang struct {
		a    analysis.Analyzer
		want map[string]int
	}
	var ls []lang
	var it norm.Iter
	prefixes := map[string]bool{}
	id := 0
	for _, l := range langs {
		a := ix.analyzer(l)
		if a == nil {
			continue
		}
		want := map[string]int{}
		for _, t := range a.Analyze([]byte(query)) {
			if _, ok := want[string(t.Term)]; !ok {
				want[string(t.Term)] = id
				id++
			}
			prefixes[prefix2(string(t.Term), &it)] = true
		}
		if len(want) > 0 {
			ls = append(ls, lang{a, want})
		}
	}
	for _, w := range strings.FieldsFunc(query, notWordRune) {
		prefixes[prefix2(w, &it)] = true
	}
	if len(ls) == 0 {
		return nil, terms
	}
	// A word's matches, as offsets within it, by the word: a body says
	// most of its words many times, and a word's analysis is the same
	// each time (BenchmarkSnippet: a fifth less time, half the
	// allocations).
	type wordMatch struct{ tid, start, end int }
	memo := map[string][]wordMatch{}
	analysed := 0
	for start := 0; start < len(body) && len(spans) < limit && analysed < maxAnalysed; {
		r, size := utf8.DecodeRuneInString(body[start:])
		if !isWordRune(r) {
			start += size
			continue
		}
		end := start + size
		for end < len(body) {
			r, size := utf8.DecodeRuneInString(body[end:])
			if !isWordRune(r) && r != '\'' && r != '’' {
				break
			}
			end += size
		}
		word := strings.TrimRight(body[start:end], "'’")
		_, elided, ok := strings.Cut(strings.ReplaceAll(word, "’", "'"), "'")
		if prefixes[prefix2(word, &it)] || ok && prefixes[prefix2(elided, &it)] {
			analysed++
			found, known := memo[word]
			if !known {
				for _, l := range ls {
					for _, t := range l.a.Analyze([]byte(word)) {
						if tid, ok := l.want[string(t.Term)]; ok {
							found = append(found, wordMatch{tid, t.Start, t.End})
						}
					}
				}
				memo[word] = found
			}
			for _, m := range found {
				s := span{start + m.start, start + m.end}
				if _, dup := terms[s]; !dup {
					terms[s] = m.tid
					spans = append(spans, s)
				}
			}
		}
		start = end
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.start - b.start })
	return spans, terms
}

func isWordRune(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func notWordRune(r rune) bool { return !isWordRune(r) }

// prefix2 is a word's first two letters, lower case, accents folded (as
// the builtin embedder folds them).
func prefix2(w string, it *norm.Iter) string {
	if len(w) >= 2 && w[0] < utf8.RuneSelf && w[1] < utf8.RuneSelf {
		return strings.ToLower(w[:2]) // most words: nothing to fold
	}
	n, end := 0, 0
	for end < len(w) && n < 3 { // three runes fold to at least two letters
		_, size := utf8.DecodeRuneInString(w[end:])
		end += size
		n++
	}
	var buf [16]byte
	f := foldAccents(buf[:0], []byte(strings.ToLower(w[:end])), it)
	n, end = 0, 0
	for end < len(f) && n < 2 {
		_, size := utf8.DecodeRune(f[end:])
		end += size
		n++
	}
	return string(f[:end])
}

// MatchesIn reports whether text holds any of query's terms (looking no
// further than Snippet does).
func (ix *Index) MatchesIn(text, query string) bool {
	return ix.FirstMatch(text, query) >= 0
}

// excerpt renders body[start:end], widened to whole words and to whole
// links and code spans, on one line, with the spans that may be marked in
// bold and an ellipsis where it cuts (snippetmd.go says what stays whole).
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
	fs := fences(body, start, end)
	rs := mdRegions(body, start, end, fs)
	start, end = widen(start, end, rs)
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	// text writes body[pos:upTo] with its markable spans in bold.
	text := func(upTo int) {
		for _, s := range spans {
			if s.start < pos || s.end > upTo || !markable(s, rs, fs) {
				continue
			}
			b.WriteString(body[pos:s.start])
			b.WriteString("**")
			b.WriteString(body[s.start:s.end])
			b.WriteString("**")
			pos = s.end
		}
		b.WriteString(body[pos:upTo])
		pos = upTo
	}
	for _, f := range fs {
		if f.end <= pos || f.start >= end {
			continue
		}
		text(max(pos, f.start))
		if cs, ce := max(pos, f.innerStart), min(end, f.innerEnd); cs < ce {
			b.WriteString(" " + inlineCode(body[cs:ce]) + " ")
		}
		pos = min(end, f.end)
	}
	text(end)
	if end < len(body) {
		b.WriteString("…")
	}
	return strings.Join(strings.FieldsFunc(b.String(), unicode.IsSpace), " ")
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// stopWords are English's and French's stop words together.
var stopWords = func() map[string]bool {
	out := map[string]bool{}
	for _, ctor := range []func(map[string]any, *registry.Cache) (analysis.TokenMap, error){en.TokenMapConstructor, fr.TokenMapConstructor} {
		m, err := ctor(nil, nil)
		if err != nil {
			panic(err)
		}
		for w := range m {
			out[w] = true
		}
	}
	return out
}()

// ContentWords is text without the stop words of either language: what
// must match for a match to mean something ("the" in a French field
// matches everything English).
func ContentWords(text string) string {
	var keep []string
	for _, w := range strings.FieldsFunc(text, notWordRune) {
		if !stopWords[strings.ToLower(w)] {
			keep = append(keep, w)
		}
	}
	return strings.Join(keep, " ")
}
