package search

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The scan's look at a note's bytes (scan.go): whether a query's word may
// be in it, without analysing it. A word's needles are what every word of
// a text that the analysis gives the same term starts with, once the text
// is lower-cased and its Latin letters folded as the analysers fold them:
//
//   - English: Snowball's stemmer keeps a word's start and rewrites at
//     most its last letter: an "e" it adds (hoping → hope), a "y" it turns
//     to "i" (happy → happi), the "le" of -bility (durability → durabl);
//     besides, four exceptions (dying → die, lying → lie, tying → tie,
//     skies → sky);
//   - French: the light stemmer rewrites up to two of the last letters
//     left (indicateur → indiqu, visualisation → visuel), -ive to -if
//     (vivement → vif), folle and molle to fou and mou, and collapses
//     repeated letters anywhere (appelle → apel): its needles are matched
//     as if the text's repeated letters (a to z) were collapsed too;
//   - a path's words and a tag or type written in the query are not
//     stemmed: they are their own needles.
//
// A needle counts where it starts a word (the byte before it is not a
// letter, digit or underscore of ASCII: the tokenizer starts no word in
// the middle of one, and elisions and possessives only cut a word's start
// or end). scanneedle_test.go checks these rules against the analysers
// on a few thousand words of both languages; a note the rules miss (a
// French word whose stem ends in a repeated letter other than a to z) is
// found once it is indexed.

// scanWord is one of the query's words as the scan looks for it: any of
// its needles starting a word of the text says the note may hold it.
type scanWord struct {
	needles   [][]byte
	collapsed bool // match as if the text's repeated letters were collapsed
}

// maxScanWords bounds the words a scan looks for (a query is at most
// 4,000 bytes): the first ones are kept.
const maxScanWords = 64

// scanWords are the words of text as the scan looks for them: its terms
// in each language, its path words and its words as tags or types.
func (ix *Index) scanWords(text string) []scanWord {
	var out []scanWord
	seen := map[string]bool{}
	add := func(collapsed bool, needles ...string) {
		key := strings.Join(needles, "\x00")
		if collapsed {
			key = "c\x00" + key
		}
		if seen[key] || len(out) >= maxScanWords {
			return
		}
		seen[key] = true
		w := scanWord{collapsed: collapsed}
		for _, n := range needles {
			if n != "" {
				w.needles = append(w.needles, []byte(n))
			}
		}
		if len(w.needles) > 0 {
			out = append(out, w)
		}
	}
	analysed := ix.analyse(text)
	for i, l := range langs {
		for _, t := range analysed[i] {
			if l == "fr" {
				add(true, frNeedles(t)...)
			} else {
				add(false, enNeedles(t)...)
			}
		}
	}
	m := ix.bleve.Mapping()
	if a := m.AnalyzerNamed(analyzerPath); a != nil {
		for _, t := range a.Analyze([]byte(strings.Join(withoutNumbers(strings.Fields(text)), " "))) {
			add(false, string(t.Term))
		}
	}
	var it norm.Iter
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if k := strings.Trim(w, "#,.;:!?\"'()"); k != "" {
			add(false, string(foldLatin(nil, []byte(k), &it)))
		}
	}
	return out
}

// enExceptions are the words Snowball's English stemmer rewrites past
// their last letter.
var enExceptions = map[string]string{"die": "dying", "lie": "lying", "tie": "tying", "sky": "ski"}

// enNeedles are the needles of an English term.
func enNeedles(t string) []string {
	out := []string{t}
	switch n := len(t); {
	case n > 1 && (t[n-1] == 'e' || strings.HasSuffix(t, "bl")):
		out[0] = t[:n-1]
	case n > 1 && t[n-1] == 'i':
		out = append(out, t[:n-1]+"y")
	}
	if x, ok := enExceptions[t]; ok {
		out = append(out, x)
	}
	return out
}

// frExceptions are the French stems whose words do not start with them
// even collapsed (folle → fou).
var frExceptions = map[string]string{"fou": "fol", "mou": "mol"}

// frNeedles are the needles of a French term, to look for in the text
// with repeated letters collapsed.
func frNeedles(t string) []string {
	c := string(collapseRepeats(nil, []byte(t)))
	out := []string{c}
	if strings.HasSuffix(c, "f") {
		out = append(out, c[:len(c)-1]+"v")
	}
	if x, ok := frExceptions[c]; ok {
		out = append(out, x)
	}
	for i, n := range out {
		if len(n) > 3 {
			out[i] = n[:max(len(n)-2, 3)]
		}
	}
	return out
}

// collapseRepeats appends src to dst with each run of one letter (a to
// z) written once.
func collapseRepeats(dst, src []byte) []byte {
	for i, c := range src {
		if i > 0 && c == src[i-1] && 'a' <= c && c <= 'z' {
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// scanView reads a note's text for the matcher: its path first (a
// title may be the file's name), then its file; Latin letters folded as
// the analysers fold them. Text in ASCII alone is matched as it is (the
// matcher ignores its case); other text is folded (and lower-cased) into
// a buffer first.
type scanView struct {
	folded []byte
	counts []uint8
	it     norm.Iter
}

// count says how many times (at most 255) each of m's words' needles
// start a word of the note at path, its file holding data; nil when
// none does. The counts are the view's until its next count.
func (v *scanView) count(m *scanMatcher, path string, data []byte) []uint8 {
	if cap(v.counts) < m.words {
		v.counts = make([]uint8, m.words)
	}
	out := v.counts[:m.words]
	clear(out)
	found := m.countIn(out, v.text([]byte(path)))
	found = m.countIn(out, v.text(data)) || found
	if !found {
		return nil
	}
	return out
}

// text is src ready for the matcher.
func (v *scanView) text(src []byte) []byte {
	if asciiOnly(src) {
		return src
	}
	v.folded = v.appendFolded(v.folded[:0], src)
	return v.folded
}

// asciiOnly says whether b is ASCII, eight bytes at a time.
func asciiOnly(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendFolded appends src lower-cased and folded (foldLatin) to dst:
// ASCII a run at a time, the rest a stretch at a time, with the ASCII
// letter before it (a combining accent composes with it).
func (v *scanView) appendFolded(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		j := i
		for j < len(src) && src[j] < utf8.RuneSelf {
			j++
		}
		if j > i {
			n := len(dst)
			dst = append(dst, src[i:j]...)
			for k, c := range dst[n:] {
				dst[n+k] = lowerASCII[c]
			}
			i = j
			continue
		}
		start := i
		if start > 0 && src[start-1] < utf8.RuneSelf {
			start--
			dst = dst[:len(dst)-1]
		}
		for i < len(src) && src[i] >= utf8.RuneSelf {
			i++
		}
		dst = foldLatin(dst, bytes.ToLower(src[start:i]), &v.it)
	}
	return dst
}

// scanMatcher finds the words' needles in a text in one pass: at each
// place where a word of the text starts, the needles beginning with its
// byte (case aside) are compared with what follows.
type scanMatcher struct {
	words   int
	byFirst [256][]scanNeedle
	// firsts are the bytes at which countEach compares needles: those
	// whose lower case (lowerASCII) starts a needle.
	firsts []byte
}

// maxFirsts bounds the firsts countIn looks for each with its own pass
// over the text (bytes.IndexByte, many bytes at a time); a query of more
// is matched byte after byte (countEach).
const maxFirsts = 8

type scanNeedle struct {
	word      int
	needle    []byte
	collapsed bool
}

func newScanMatcher(words []scanWord) *scanMatcher {
	m := &scanMatcher{words: len(words)}
	for i, w := range words {
		for _, n := range w.needles {
			m.byFirst[n[0]] = append(m.byFirst[n[0]], scanNeedle{word: i, needle: n, collapsed: w.collapsed})
		}
	}
	for c := range 256 {
		if len(m.byFirst[lowerASCII[c]]) > 0 {
			m.firsts = append(m.firsts, byte(c))
		}
	}
	return m
}

// countIn adds to out (one count per word) how many times each word's
// needles start a word of text, at most 255, and says whether any did.
// It looks for each of the needles' first bytes in turn with
// bytes.IndexByte, which passes over bytes that start no needle many at
// a time: the searches made during a fresh 100,000-note clone's build
// spent 6.3 s of CPU looking at the 10,000 texts each reads one byte
// after another (countEach, still used for a query of many first
// bytes). The places looked at, and so the counts, are countEach's.
func (m *scanMatcher) countIn(out []uint8, text []byte) bool {
	if len(m.firsts) > maxFirsts {
		return m.countEach(out, text)
	}
	found := false
	for _, b := range m.firsts {
		for p := 0; p < len(text); p++ {
			i := bytes.IndexByte(text[p:], b)
			if i < 0 {
				break
			}
			p += i
			if p == 0 || !asciiWord[text[p-1]] {
				found = m.countAt(out, text, p) || found
			}
		}
	}
	return found
}

// countEach is countIn looking at every byte of text.
func (m *scanMatcher) countEach(out []uint8, text []byte) bool {
	found := false
	inWord := false
	for p, c := range text {
		if !inWord {
			found = m.countAt(out, text, p) || found
		}
		inWord = asciiWord[c]
	}
	return found
}

// countAt counts the needles that start at text[p], the start of a
// word, and says whether one did.
func (m *scanMatcher) countAt(out []uint8, text []byte, p int) bool {
	found := false
	for _, n := range m.byFirst[lowerASCII[text[p]]] {
		if n.collapsed && !collapsedAt(text[p:], n.needle) || !n.collapsed && !prefixAt(text[p:], n.needle) {
			continue
		}
		found = true
		if out[n.word] < 255 {
			out[n.word]++
		}
	}
	return found
}

// prefixAt says whether text starts with needle, case aside (ASCII).
func prefixAt(text, needle []byte) bool {
	if len(text) < len(needle) {
		return false
	}
	for i, c := range needle {
		if lowerASCII[text[i]] != c {
			return false
		}
	}
	return true
}

// collapsedAt says whether text starts with needle, case aside (ASCII),
// once its runs of one letter (a to z) are written once.
func collapsedAt(text, needle []byte) bool {
	i := 0
	for _, c := range needle {
		if i >= len(text) || lowerASCII[text[i]] != c {
			return false
		}
		i++
		for 'a' <= c && c <= 'z' && i < len(text) && lowerASCII[text[i]] == c {
			i++
		}
	}
	return true
}

// lowerASCII lower-cases an ASCII byte (and leaves every other alone);
// asciiWord says whether a byte is an ASCII letter, digit or underscore:
// the tokenizer starts no word right after one.
var lowerASCII, asciiWord = func() (l [256]byte, w [256]bool) {
	for c := range 256 {
		l[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			l[c] = byte(c + 'a' - 'A')
		}
		w[c] = 'a' <= l[c] && l[c] <= 'z' || '0' <= c && c <= '9' || c == '_'
	}
	return l, w
}()
