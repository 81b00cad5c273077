package search

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// Finding the notes the index does not hold yet.
//
// While a vault's first build runs (a fresh clone: seconds per 10,000
// notes), or a long note waits for the vault's background lane, some
// notes are not in the index, and a search of the index alone would not
// find them. A search then scans them: Scan reads their text (bounded:
// MaxScanNotes, MaxScanBytes), keeps those where one of the query's words
// may be (scanneedle.go: a cheap look at the bytes, which never misses a
// word the analysis would find, short of the exceptions it documents),
// and analyses the most promising of them as the index would analyse
// them (mapDoc: the build's own mapping and analysis). Search then
// scores those with the index's own lexical query and statistics, as
// Bleve scores the notes it holds (scanscore.go), and merges them into
// its lexical list.
// They have no vectors yet: the semantic list does not see them.

// Bounds of one scan; the notes past them are left out, and
// ScanReport.Cut says so. MaxScanNotes covers a 10,000-note vault's
// whole first build, and is what one core reads in about a quarter of a
// second (20 to 30 µs a note) when it has the core: beside a build it
// gets less. Reading all 100,000 notes of a fresh clone made its first
// answer 10.6 s instead of 6 s, and 25,000 of them 8.5 s
// (docs/benchmarks-history.md, "A search during the first build reads the
// notes not indexed"; docs/benchmarks.md, "A fresh clone's first
// search"). The vault gives the notes in the order to read them: the
// ones written during the build, then those the build reaches last.
const (
	MaxScanNotes = 10_000
	MaxScanBytes = 512 << 20
	// scanDocBytes: a longer note is scored on its first scanDocBytes,
	// and a search analyses at most ScanAnalysedBytes of bodies (analysis
	// costs about 0.2 s per MiB and language: long notes waiting in the
	// lane must not make a search as slow as their indexing).
	scanDocBytes      = 256 << 10
	ScanAnalysedBytes = 4 << 20
)

// scanWorkers is how many goroutines a scan reads and analyses on: every
// core, up to 4. What it is made during (a first build, the lane of long
// notes, a Rebuild) waits for the searches before each of its steps,
// within bounds (vault/indexing), so the cores are the search's but for
// the end of a step. On half of them, a fresh clone's first search at
// 10,000 notes took 0.32-0.44 s instead of 0.27-0.34 s (bench/openbench
// -search).
func scanWorkers() int { return min(runtime.NumCPU(), 4) }

// scanScored is how many of the notes that may hold the query's words are
// analysed and scored, for a lexical list n deep: the best by a cheap
// estimate (Scanned.estimate) are, so the list's n best are among them.
// Their analysis is most of a scan's time after the reading.
func scanScored(n int) int { return min(max(2*n, 100), 1000) }

// Unindexed are the notes a query may find that the index does not hold
// (or holds in an older version), and how to read them.
type Unindexed struct {
	// Paths are in the caller's scopes (the scan reads no other), in the
	// order to read them: the first MaxScanNotes at most are.
	Paths []string
	// Read reads a note's file, into buf when it is large enough.
	Read func(path string, buf []byte) ([]byte, error)
	// Doc is the note as the index would see it (Sequence and Context may
	// be left out); nil leaves it out. It keeps no part of data.
	Doc func(path string, data []byte) *Doc
}

// ScanReport says what a search read of the notes not in the index.
type ScanReport struct {
	Notes   int  // the notes not in the index the search could find
	Read    int  // of them, read
	Matched int  // read, and where one of the query's words may be
	Scored  int  // of those, analysed and scored as the index would
	Found   int  // of those, among the answer's hits
	Cut     bool // a bound left notes out: not read, or not analysed
}

// Scanned is a query's scan of the notes not in the index: the notes
// worth scoring, analysed. Search (Query.Scanned) scores and merges them.
type Scanned struct {
	Report ScanReport
	docs   []*scannedDoc
	byPath map[string]*scannedDoc
	// matchedDF is, for an index with no document yet, how many of the
	// notes read may hold each word (the scan's own statistics).
	words     []scanWord
	matchedDF []int
}

// scannedDoc is a note analysed as the index would analyse it: for each
// field, each term's frequency and the field's length in tokens.
type scannedDoc struct {
	doc    *Doc
	fields map[string]fieldTerms
}

// fieldTerms is a field's terms: each value's frequencies (a list's
// values are fields of one name, which Bleve counts together), and their
// length in tokens in all.
type fieldTerms struct {
	freqs  []index.TokenFrequencies
	length int
}

// count is how many times the field holds term.
func (ft fieldTerms) count(term string) int {
	n := 0
	for _, f := range ft.freqs {
		if tf := f[term]; tf != nil {
			n += tf.Frequency()
		}
	}
	return n
}

// doc is the scanned note at path (nil when the scan scored none there).
func (s *Scanned) doc(path string) *scannedDoc {
	if s == nil {
		return nil
	}
	return s.byPath[path]
}

// sighting is a note read whose text may hold some of the query's words:
// how many times each word's needles start a word of it (at most 255).
type sighting struct {
	path   string
	counts []uint8
	score  float64
}

// Scan reads the notes of u and analyses those most likely to match q
// (its text and filter; q.Limit sets how many). A ctx that ends stops it
// with ctx's error.
func (ix *Index) Scan(ctx context.Context, q Query, u *Unindexed) (*Scanned, error) {
	s := &Scanned{Report: ScanReport{Notes: len(u.Paths)}, byPath: map[string]*scannedDoc{}}
	ix.mu.RLock()
	_, text := ix.names(q.Text, ix.vfilter(q.Filter).scopeOK)
	ix.mu.RUnlock()
	content, _ := splitScaffolding(text)
	s.words = ix.scanWords(content)
	if len(s.words) == 0 || len(u.Paths) == 0 {
		return s, nil
	}
	seen, err := s.sight(ctx, u)
	if err != nil {
		return nil, err
	}
	s.Report.Matched = len(seen)
	s.matchedDF = make([]int, len(s.words))
	for _, g := range seen {
		for i, c := range g.counts {
			if c > 0 {
				s.matchedDF[i]++
			}
		}
	}
	for i := range seen {
		seen[i].score = s.estimate(seen[i].counts)
	}
	slices.SortFunc(seen, func(a, b sighting) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	seen = seen[:min(len(seen), scanScored(depth(q.Limit)))]
	if err := s.analyse(ctx, ix, q.Filter, u, seen); err != nil {
		return nil, err
	}
	return s, nil
}

// estimate is a cheap stand-in for a note's BM25 score, from the counts
// of the words' needles: each word weighs by its rarity among the notes
// read, its count saturating as BM25's does.
func (s *Scanned) estimate(counts []uint8) float64 {
	n := float64(s.Report.Read)
	var score float64
	for i, c := range counts {
		if c == 0 {
			continue
		}
		df := float64(s.matchedDF[i])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		score += idf * float64(c) / (float64(c) + 1.2)
	}
	return score
}

// sight reads u's notes on a few goroutines, within the bounds, and
// returns those where a word of the query may be.
func (s *Scanned) sight(ctx context.Context, u *Unindexed) ([]sighting, error) {
	paths := u.Paths[:min(len(u.Paths), MaxScanNotes)]
	var next, read atomic.Int64
	var bytesRead atomic.Int64
	var cut atomic.Bool
	m := newScanMatcher(s.words)
	workers := min(scanWorkers(), len(paths))
	found := make([][]sighting, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf, arena []byte
			var view scanView
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) || i%64 == 0 && ctx.Err() != nil {
					return
				}
				data, err := u.Read(paths[i], buf)
				if err != nil {
					continue // gone since, or unreadable: as the index leaves it out
				}
				if bytesRead.Add(int64(len(data))) > MaxScanBytes {
					cut.Store(true)
					return
				}
				read.Add(1)
				if cap(data) > cap(buf) {
					buf = data[:0]
				}
				if counts := view.count(m, paths[i], data); counts != nil {
					// Kept in one arena per worker: a scan of 100,000
					// notes made as many allocations, during a build
					// whose collector runs often (leanGC).
					if len(arena)+len(counts) > cap(arena) {
						arena = make([]uint8, 0, max(64<<10, len(counts)))
					}
					arena = append(arena, counts...)
					found[w] = append(found[w], sighting{path: paths[i], counts: arena[len(arena)-len(counts):]})
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scan the notes not indexed yet: %w", err)
	}
	s.Report.Read = int(read.Load())
	s.Report.Cut = cut.Load() || len(paths) < len(u.Paths)
	var out []sighting
	for _, f := range found {
		out = append(out, f...)
	}
	return out, nil
}

// analyse reads the notes sighted again, keeps those within the filter,
// and analyses each field as the index would.
func (s *Scanned) analyse(ctx context.Context, ix *Index, f Filter, u *Unindexed, seen []sighting) error {
	docs := make([]*scannedDoc, len(seen))
	var next, analysed atomic.Int64
	var cut atomic.Bool
	var wg sync.WaitGroup
	for range min(scanWorkers(), len(seen)) {
		wg.Go(func() {
			var buf []byte // a Doc holds no part of it
			for {
				i := int(next.Add(1) - 1)
				if i >= len(seen) || ctx.Err() != nil {
					return
				}
				data, err := u.Read(seen[i].path, buf)
				if err != nil {
					continue
				}
				buf = data[:0]
				d := u.Doc(seen[i].path, data)
				if d == nil || !f.admits(d) {
					continue
				}
				if analysed.Add(int64(min(len(d.Body), scanDocBytes))) > ScanAnalysedBytes {
					cut.Store(true) // the most promising notes were analysed first
					return
				}
				docs[i] = ix.analyseDoc(d)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("scan the notes not indexed yet: %w", err)
	}
	s.Report.Cut = s.Report.Cut || cut.Load()
	for _, d := range docs {
		if d != nil {
			s.docs = append(s.docs, d)
			s.byPath[d.doc.Path] = d
		}
	}
	s.Report.Scored = len(s.docs)
	return nil
}

// analyseDoc analyses each field of d as a build does (a list's values
// each a field of the same name, which Bleve counts together).
func (ix *Index) analyseDoc(d *Doc) *scannedDoc {
	if len(d.Body) > scanDocBytes {
		cut := scanDocBytes
		for cut > 0 && d.Body[cut]&0xC0 == 0x80 {
			cut--
		}
		short := *d
		short.Body = d.Body[:cut]
		d = &short
	}
	out := &scannedDoc{doc: d, fields: map[string]fieldTerms{}}
	// Mapped and analysed by the build's own code (mapDoc, the fields
	// paired by language), so a scanned note is the very document the
	// index would hold.
	doc, err := mapDoc(ix.bleve.Mapping(), d.Path, bleveDoc(d))
	if err != nil {
		return out // as the index, which would not take it either
	}
	for _, f := range doc.Fields {
		switch f.(type) {
		case *wordField, *document.TextField:
		default:
			continue // the date: no text
		}
		f.Analyze()
		ft := out.fields[f.Name()]
		ft.freqs = append(ft.freqs, f.AnalyzedTokenFrequencies())
		ft.length += f.AnalyzedLength()
		out.fields[f.Name()] = ft
	}
	return out
}

// admits says whether d passes the filter, as the index's filter query
// would have it (Filter.query).
func (f Filter) admits(d *Doc) bool {
	if !slices.Contains(f.Scopes, d.Scope) {
		return false
	}
	if f.PathPrefix != "" && !strings.HasPrefix(d.Path, f.PathPrefix) {
		return false
	}
	for _, t := range f.Tags {
		if !slices.ContainsFunc(d.Tags, func(dt string) bool { return normTag(dt) == normTag(t) }) {
			return false
		}
	}
	if f.Type != "" && normTag(d.Type) != normTag(f.Type) {
		return false
	}
	if !f.After.IsZero() || !f.Before.IsZero() {
		if d.Date.IsZero() || !f.After.IsZero() && d.Date.Before(f.After) || !f.Before.IsZero() && !d.Date.Before(f.Before) {
			return false
		}
	}
	return true
}
