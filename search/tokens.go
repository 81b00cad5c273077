package search

import (
	"strings"
	"sync"

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
func Truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if Tokens(s) <= max {
		return s
	}
	// Binary search on word boundaries.
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
