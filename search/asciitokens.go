package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
)

// Text in ASCII alone is split into words here rather than by Bleve's
// unicode tokenizer, which runs the Unicode word-boundary rules (UAX #29,
// Unicode 8.0, as github.com/blevesearch/segment compiles them) through a
// state machine for every byte: 9 s of a fresh 100,000-note clone's
// build. Restricted to ASCII those rules are few, and asciiWords applies
// them giving the very tokens Bleve gives: the same words, places,
// positions and types (asciitokens_test.go compares them on random text
// made of the characters the rules name, and on the sample vault). Any
// other text goes to Bleve's tokenizer.
//
// In ASCII, for segment's grammar:
//   - a word is a run of letters, digits and underscores (ALetter,
//     Numeric, ExtendNumLet: WB5, WB8-WB10, WB13a-b), in which a colon,
//     full stop or apostrophe joins two letters (MidLetter, MidNumLet,
//     Single_Quote: WB6-WB7) and a comma, semicolon, full stop or
//     apostrophe joins two digits (MidNum, MidNumLet, Single_Quote:
//     WB11-WB12);
//   - a word with a digit and no letter is a number (segment's
//     WordNumeric, which wins a tie with Word), any other a word (an
//     underscore alone included);
//   - every other byte is a segment of its own that is not a token.

// asciiClass is each ASCII byte's part in a word.
var asciiClass = func() (t [128]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = classLetter, classLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	t['_'] = classJoiner
	t[':'] = midLetter
	t['.'], t['\''] = midLetter|midDigit, midLetter|midDigit
	t[','], t[';'] = midDigit, midDigit
	return t
}()

const (
	classLetter = 1 << iota
	classDigit
	classJoiner // the underscore: part of any word
	midLetter   // joins two letters
	midDigit    // joins two digits
	inWord      = classLetter | classDigit | classJoiner
)

// asciiFirst tokenizes text in ASCII alone with asciiWords, any other
// text with unicode (Bleve's unicode tokenizer).
type asciiFirst struct{ unicode analysis.Tokenizer }

func (t asciiFirst) Tokenize(input []byte) analysis.TokenStream {
	if !asciiOnly(input) {
		return t.unicode.Tokenize(input)
	}
	return asciiWords(input)
}

// asciiWords is the token stream of input, in ASCII alone.
func asciiWords(input []byte) analysis.TokenStream {
	n := 0
	for start, end := nextWord(input, 0); start < end; start, end = nextWord(input, end) {
		n++
	}
	if n == 0 {
		return analysis.TokenStream{}
	}
	toks := make([]analysis.Token, n)
	out := make(analysis.TokenStream, n)
	i := 0
	for start, end := nextWord(input, 0); start < end; start, end = nextWord(input, end) {
		typ := analysis.AlphaNumeric
		if numberOnly(input[start:end]) {
			typ = analysis.Numeric
		}
		toks[i] = analysis.Token{Term: input[start:end], Start: start, End: end, Position: i + 1, Type: typ}
		out[i] = &toks[i]
		i++
	}
	return out
}

// nextWord is the place of the first word of input at or after from;
// start == end when there is none.
func nextWord(input []byte, from int) (start, end int) {
	i := from
	for i < len(input) && asciiClass[input[i]]&inWord == 0 {
		i++
	}
	start = i
	for i < len(input) {
		k := asciiClass[input[i]]
		if k&inWord != 0 {
			i++
			continue
		}
		if k&(midLetter|midDigit) == 0 || i == start || i+1 == len(input) {
			break
		}
		prev, next := asciiClass[input[i-1]], asciiClass[input[i+1]]
		if prev == classLetter && next == classLetter && k&midLetter != 0 ||
			prev == classDigit && next == classDigit && k&midDigit != 0 {
			i += 2
			continue
		}
		break
	}
	return start, i
}

// numberOnly says whether a word holds a digit and no letter.
func numberOnly(w []byte) bool {
	digit := false
	for _, c := range w {
		switch asciiClass[c] {
		case classLetter:
			return false
		case classDigit:
			digit = true
		}
	}
	return digit
}
