package search

import (
	"fmt"
	"math"
	"strconv"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
)

// The lengths BM25 divides by.
//
// BM25 weighs a term's count in a field against the field's length over
// its average length across the notes. Bleve's own "average" is the sum
// over the index's segments of the field's distinct terms, over the notes
// (bm25ScoreMetrics, IndexSnapshot.FieldCardinality): a count of
// vocabulary, not of words, that moves with how the notes are cut into
// segments. An index kept up to date note by note and a rebuild of the
// same notes scored them differently, and every field's average was some
// fraction of its true one, a different fraction in each field
// (docs/search-ranking.md, "The field lengths BM25 reads are the notes'
// own").
//
// So the index keeps each note's analysed length in every scored field
// (docMeta.Lens, saved in the manifest), sums them, and hands Bleve the
// true average with each search (BM25PreSearchDataKey), as textbook
// BM25 and the bench's plain BM25 have it. Notes scanned before they are
// indexed (scanscore.go) are scored with the same statistics.

// lenFields are the fields whose lengths are kept: those the lexical
// query scores (textQuery). A field the query only filters on (the
// scope, a path prefix, a date) gets 0, so Bleve scores it, if at all,
// by TF-IDF, and its score is not added to a note's. The order is the
// manifest's (docMeta.Lens): changing it changes manifestFormat.
var lenFields = func() []string {
	var out []string
	for _, base := range textFields {
		for _, l := range langs {
			out = append(out, base+"_"+l)
		}
	}
	return append(out, fPathTxt, fTags, fType)
}()

// nLenFields is len(lenFields), checked by TestLenFieldsAreTheScoredOnes.
const nLenFields = 13

// fieldLens are a note's analysed lengths, in lenFields' order.
type fieldLens [nLenFields]int32

// lenSlot is each of lenFields' place in a fieldLens.
var lenSlot = func() map[string]int {
	m := make(map[string]int, len(lenFields))
	for i, f := range lenFields {
		m[f] = i
	}
	return m
}()

// lengthsOf reads the analysed lengths of doc, which Bleve has
// analysed: the lengths of the fields of one name are summed, as Bleve
// sums them into the field's norm.
func lengthsOf(doc *document.Document) fieldLens {
	var out fieldLens
	for _, f := range doc.Fields {
		if i, ok := lenSlot[f.Name()]; ok {
			out[i] = int32(min(int64(out[i])+int64(f.AnalyzedLength()), math.MaxInt32))
		}
	}
	return out
}

// MarshalJSON writes l as a string of its lengths in decimal, apart by
// spaces, its last zeros left out ("2 2 0 0 150 282"). As a JSON array of
// thirteen numbers (encoding/json decodes one element at a time), a
// 100,000-note manifest took 547-573 ms to read against 358-409 ms
// without the lengths; as this string, 349-434 ms
// (BenchmarkReadManifest).
func (l fieldLens) MarshalJSON() ([]byte, error) {
	n := len(l)
	for n > 0 && l[n-1] == 0 {
		n--
	}
	b := make([]byte, 0, 2+4*n)
	b = append(b, '"')
	for i, v := range l[:n] {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return append(b, '"'), nil
}

// UnmarshalJSON reads what MarshalJSON writes, digit by digit (a
// manifest holds one list per note).
func (l *fieldLens) UnmarshalJSON(b []byte) error {
	bad := func() error {
		return fmt.Errorf("field lengths %.40q: not up to %d lengths apart by spaces", b, len(l))
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return bad()
	}
	*l = fieldLens{}
	i, v, digits := 0, int64(0), 0
	for _, c := range b[1:] {
		switch {
		case '0' <= c && c <= '9':
			if v = v*10 + int64(c-'0'); v > math.MaxInt32 || i == len(l) {
				return bad()
			}
			digits++
		case (c == ' ' || c == '"') && digits > 0:
			l[i], i, v, digits = int32(v), i+1, 0, 0
		case c == '"' && i == 0: // no lengths: all 0
		default:
			return bad()
		}
	}
	return nil
}

// lengthsOfAll is lengthsOf of each of docs, read before record takes
// the lock searches wait for.
func lengthsOfAll(docs []*document.Document) []fieldLens {
	out := make([]fieldLens, len(docs))
	for i, d := range docs {
		out[i] = lengthsOf(d)
	}
	return out
}

// lenTotals are the lengths of the notes an index holds, summed.
type lenTotals [nLenFields]int64

// countLens adds m's lengths (sign 1) or takes them back (-1); nil adds
// nothing. The caller holds ix.mu.
func (ix *Index) countLens(m *docMeta, sign int64) {
	if m == nil {
		return
	}
	for i, n := range m.Lens {
		ix.lens[i] += sign * int64(n)
	}
}

// bm25Stats are the statistics a search hands Bleve: the notes the
// manifest holds, and each field's summed length (0 for the fields of the
// mapping that are not scored: Bleve asks for every field a query names).
func (ix *Index) bm25Stats() *bsearch.BM25Stats {
	st := &bsearch.BM25Stats{FieldCardinality: make(map[string]int, len(ix.fields)+nLenFields)}
	for _, f := range ix.fields {
		st.FieldCardinality[f] = 0
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st.DocCount = float64(len(ix.meta))
	for i, f := range lenFields {
		st.FieldCardinality[f] = int(ix.lens[i])
	}
	return st
}

// avgdl is Bleve's average length of field under st (bm25ScoreMetrics):
// rounded up, 0 (TF-IDF) in an empty index.
func avgdl(st *bsearch.BM25Stats, field string) float64 {
	if st.DocCount == 0 {
		return 0
	}
	return math.Ceil(float64(st.FieldCardinality[field]) / st.DocCount)
}

// mappingFields names every field m maps, with the names Bleve gives
// fields of no mapping of their own ("_all", "_id", "*"): a query may name
// any of them.
func mappingFields(m mapping.IndexMapping) []string {
	out := []string{"_all", "_id", "*"}
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok || im.DefaultMapping == nil {
		return out
	}
	var walk func(prefix string, dm *mapping.DocumentMapping)
	walk = func(prefix string, dm *mapping.DocumentMapping) {
		for name, sub := range dm.Properties {
			full := prefix + name
			for _, f := range sub.Fields {
				if f.Name != "" {
					out = append(out, prefix+f.Name)
				} else {
					out = append(out, full)
				}
			}
			walk(full+".", sub)
		}
	}
	walk("", im.DefaultMapping)
	return out
}
