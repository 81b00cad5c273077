package search

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// lookup finds a token's row. The table holds GloVe's lower-case, mostly
// unaccented, inflected words, but only the most frequent ones, so a miss
// tries the token without accents ("école" → "ecole"), then with a common
// English suffix taken off ("decisions" → "decision"): a near word's vector
// is better than none. Only misses pay for this.
func (t *wordTable) lookup(tok []byte, s *tokenState) (int32, bool) {
	if row, ok := t.index[string(tok)]; ok {
		return row, true
	}
	w := tok
	if !isASCII(string(tok)) {
		s.fold = foldAccents(s.fold[:0], tok, &s.nfd)
		if row, ok := t.index[string(s.fold)]; ok {
			return row, true
		}
		w = s.fold
	}
	return t.lookupStem(w, s)
}

// suffixes are tried in order: each drops `cut` and may add `add`. The
// doubled-consonant forms ("running" → "run", "stopped" → "stop") are
// handled in lookupStem.
var suffixes = []struct{ cut, add string }{
	{"ies", "y"},  // studies → study
	{"es", ""},    // boxes → box
	{"s", ""},     // decisions → decision
	{"ied", "y"},  // studied → study
	{"ed", ""},    // jumped → jump
	{"ed", "e"},   // archived → archive
	{"ing", ""},   // walking → walk
	{"ing", "e"},  // making → make
	{"ly", ""},    // quickly → quick
	{"ness", ""},  // darkness → dark
	{"ment", ""},  // deployment → deploy
	{"ation", ""}, // adaptation → adapt
}

func (t *wordTable) lookupStem(w []byte, s *tokenState) (int32, bool) {
	n := len(w)
	if n < 4 || !isLetters(w) {
		return 0, false
	}
	for _, sf := range suffixes {
		stem := n - len(sf.cut)
		if stem < 3 || string(w[stem:]) != sf.cut || (sf.cut == "s" && w[stem-1] == 's') {
			continue
		}
		s.cand = append(append(s.cand[:0], w[:stem]...), sf.add...)
		if row, ok := t.index[string(s.cand)]; ok {
			return row, true
		}
		// running → run, stopped → stop
		if sf.add == "" && (sf.cut == "ing" || sf.cut == "ed") && stem >= 4 && w[stem-1] == w[stem-2] {
			if row, ok := t.index[string(s.cand[:stem-1])]; ok {
				return row, true
			}
		}
	}
	return 0, false
}

// foldAccents appends w without diacritics to dst: canonical
// decomposition, then combining marks dropped; letters that do not
// decompose (ß, æ, ø, ł, ...) are spelled the way English text spells
// them. The iterator is the caller's so a miss allocates nothing.
func foldAccents(dst, w []byte, it *norm.Iter) []byte {
	it.Init(norm.NFD, w)
	for !it.Done() {
		dst = appendUnmarked(dst, it.Next())
	}
	return dst
}

// appendUnmarked appends a decomposed (NFD) segment to dst without its
// combining marks, the letters foldSpecial names spelt out.
func appendUnmarked(dst, seg []byte) []byte {
	for i := 0; i < len(seg); {
		r, size := utf8.DecodeRune(seg[i:])
		switch s, special := foldSpecial[r]; {
		case r < utf8.RuneSelf:
			dst = append(dst, byte(r))
		case special:
			dst = append(dst, s...)
		case !unicode.Is(unicode.Mn, r):
			dst = append(dst, seg[i:i+size]...)
		}
		i += size
	}
	return dst
}

var foldSpecial = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d",
	'ð': "d", 'þ': "th", 'ı': "i",
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLetters(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
