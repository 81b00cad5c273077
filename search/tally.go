package search

import (
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
)

// tally counts strings, keeping them in the order they first came: a
// text's words, or its terms in one language. Walking keys is a walk of
// what was counted, where walking a map walks every slot it ever grew
// (a pooled map sized for a long body, walked for a title of three
// words).
type tally struct {
	at   map[string]int // index in keys
	keys []string
	n    []int
	typ  []analysis.TokenType // a word's type, for the words of a text
}

// add counts k n more times, as a word of type typ.
func (t *tally) add(k string, n int, typ analysis.TokenType) {
	i, ok := t.at[k]
	if !ok {
		i = len(t.keys)
		t.at[k] = i
		t.keys = append(t.keys, k)
		t.n = append(t.n, 0)
		t.typ = append(t.typ, typ)
	}
	t.n[i] += n
}

// tallies are used again: a map made for each field and language was a
// tenth of a build's garbage. One a long text grew past maxPooled keys is
// let go (a map never shrinks).
var tallies = sync.Pool{New: func() any { return &tally{at: make(map[string]int, 64)} }}

const maxPooled = 4096

func getTally() *tally { return tallies.Get().(*tally) }

func putTally(t *tally) {
	if len(t.keys) > maxPooled {
		return
	}
	clear(t.at)
	clear(t.keys) // the strings may be a text's bytes: hold none of them
	t.keys, t.n, t.typ = t.keys[:0], t.n[:0], t.typ[:0]
	tallies.Put(t)
}
