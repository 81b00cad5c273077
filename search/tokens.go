package search

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Tokens counts text the way current OpenAI models do (o200k_base, a real
// BPE with its ranks compiled in: no download), so a budget given in
// tokens is kept, not guessed from characters. Other models' tokenizers
// differ by a few percent; budgets are best kept with some slack.
var (
	tokOnce  sync.Once
	tokCodec *codec.Codec
)

// TokenizerName names the tokenizer Tokens uses.
const TokenizerName = "o200k_base"

func tok() *codec.Codec {
	tokOnce.Do(func() { tokCodec = codec.NewO200kBase() })
	return tokCodec
}

// Tokens is the number of tokens in s.
func Tokens(s string) int {
	if s == "" {
		return 0
	}
	n, err := tok().Count(s)
	if err != nil {
		// The codec fails only on invalid input; count generously.
		return len(s)
	}
	return n
}

// Truncate returns the longest prefix of s, cut at a word boundary and
// ending in "…", that fits in max tokens ("" when even that does not fit).
// Its cost follows max, not the length of s: only a prefix holding a
// little more than max tokens is ever counted (recall cut a 1 MiB note to
// a 2,000-token budget by counting the whole note some twenty times:
// seconds per note).
func Truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if len(s) <= max {
		return s // a token is at least one byte
	}
	s, whole := prefixOver(s, max)
	if whole {
		return s
	}
	// s holds more than max tokens. Binary search on word boundaries.
	words := strings.SplitAfter(s, " ")
	lo, hi := 0, len(words) // lo fits, hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if Tokens(strings.Join(words[:mid], "")+"…") <= max {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		// One long word (or a script without spaces): cut by runes.
		rs := []rune(s)
		lo, hi = 0, len(rs)
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if Tokens(string(rs[:mid])+"…") <= max {
				lo = mid
			} else {
				hi = mid
			}
		}
		if lo == 0 {
			return ""
		}
		return string(rs[:lo]) + "…"
	}
	return strings.TrimRight(strings.Join(words[:lo], ""), " ") + "…"
}

// prefixOver returns the shortest prefix of s, among lengths growing by
// doubling from about 4 bytes a token, that holds more than max tokens;
// or s itself and true when all of s fits. Any cut that fits max tokens
// lies inside that prefix.
func prefixOver(s string, max int) (string, bool) {
	for n := 4*max + 64; n < len(s); n *= 2 {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if Tokens(s[:cut]) > max {
			return s[:cut], false
		}
	}
	return s, Tokens(s) <= max
}
