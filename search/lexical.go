package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Field names. Text fields exist twice, analysed as English (Snowball
// stemming) and as French (elision, light stemming), both folding accents
// (analysis.go), and are queried as a disjunction: one field name with
// two analyzers would pick the query analyzer at random (docs/search-index.md,
// "Bleve facts this rests on").
const (
	fTitle   = "title"
	fAliases = "aliases"
	fBody    = "body"
	fMeta    = "meta"
	fContext = "context"
	fWho     = "who"       // keyword, lower case
	fPath    = "path"      // keyword: prefix filters
	fPathTxt = "path_text" // words of the path
	fTags    = "tags"      // keyword, lower case
	fType    = "type"      // keyword, lower case
	fClass   = "class"
	fProject = "project"
	fOwner   = "owner"
	fScope   = "scope"
	fDate    = "date"
	fOp      = "op" // keyword: the update that indexed the document (reconcile.go)
)

// textFields are indexed once per language.
var textFields = []string{fTitle, fAliases, fBody, fMeta, fContext}

// langs are the analysers every text field is indexed with.
var langs = []string{"en", "fr"}

// Field weights in the lexical query: a title or alias match says more
// than one word deep in a body.
var fieldBoost = map[string]float64{fTitle: 3, fAliases: 2.5, fBody: 1, fMeta: 0.6, fContext: 1, fPathTxt: 0.8, fTags: 2, fType: 1}

func indexMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	if err := addAnalyzers(im); err != nil {
		return nil, err
	}
	im.ScoringModel = "bm25"
	im.DefaultAnalyzer = "standard"
	dm := bleve.NewDocumentMapping()
	dm.Dynamic = false
	text := func(analyzer string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	for _, base := range textFields {
		for _, l := range langs {
			dm.AddFieldMappingsAt(base+"_"+l, text(langAnalyzer[l]))
		}
	}
	dm.AddFieldMappingsAt(fPathTxt, text(analyzerPath))
	for _, k := range []string{fPath, fTags, fType, fClass, fProject, fOwner, fScope, fWho, fOp} {
		dm.AddFieldMappingsAt(k, text("keyword"))
	}
	df := bleve.NewDateTimeFieldMapping()
	df.Store = false
	df.IncludeInAll = false
	dm.AddFieldMappingsAt(fDate, df)
	im.DefaultMapping = dm
	return im, nil
}

// bodyPastTitle is body less its first line when that line is the
// note's title as a level-one heading: the title is indexed once, in the
// title field at the title's weight, where its numbers are left out
// (withoutNumbers), not a second time among the body's words, where a
// heading's "12" of "Meeting 12" would match every question about 12
// and a word of the title would count twice.
func bodyPastTitle(body, title string) string {
	if title == "" {
		return body
	}
	rest := strings.TrimLeft(body, " \t\r\n")
	line, after, _ := strings.Cut(rest, "\n")
	h := strings.TrimSpace(strings.TrimRight(line, "\r"))
	if h == "" || h[0] != '#' || len(h) > 1 && h[1] != ' ' && h[1] != '\t' {
		return body
	}
	h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h[1:]), "#"))
	if h != strings.TrimSpace(title) {
		return body
	}
	return after
}

// bleveDoc is what Bleve indexes for a Doc.
func bleveDoc(d *Doc) map[string]any {
	m := map[string]any{
		fPath:    d.Path,
		fPathTxt: strings.NewReplacer("/", " ", "-", " ", "_", " ", ".md", "").Replace(d.Path),
		fScope:   d.Scope,
	}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set(fType, normTag(d.Type))
	set(fClass, d.Class)
	set(fProject, d.Project)
	set(fOwner, d.Owner)
	if len(d.Tags) > 0 {
		tags := make([]string, len(d.Tags))
		for i, t := range d.Tags {
			tags[i] = normTag(t)
		}
		m[fTags] = tags
	}
	if len(d.Who) > 0 {
		who := make([]string, len(d.Who))
		for i, w := range d.Who {
			who[i] = strings.ToLower(strings.TrimSpace(w))
		}
		m[fWho] = who
	}
	for _, l := range langs {
		set(fTitle+"_"+l, d.Title)
		set(fBody+"_"+l, bodyPastTitle(d.Body, d.Title))
		set(fContext+"_"+l, d.Context)
		if len(d.Aliases) > 0 {
			m[fAliases+"_"+l] = d.Aliases
		}
		if len(d.Meta) > 0 {
			m[fMeta+"_"+l] = d.Meta
		}
	}
	if !d.Date.IsZero() {
		m[fDate] = d.Date.UTC()
	}
	return m
}

func normTag(t string) string { return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#")) }

// Filter narrows a query beyond its words. Scopes is required: the scopes
// the caller may read (none means nothing matches).
type Filter struct {
	Scopes     []string
	PathPrefix string
	Tags       []string // every tag must be present
	Type       string
	After      time.Time // inclusive
	Before     time.Time // exclusive
}

// filterQuery is the filter as a Bleve query: it takes part in matching,
// not in scoring (a BooleanQuery filter), so it never changes an order.
func (f Filter) query() query.Query {
	scopes := make([]query.Query, 0, len(f.Scopes))
	for _, s := range f.Scopes {
		t := bleve.NewTermQuery(s)
		t.SetField(fScope)
		scopes = append(scopes, t)
	}
	if len(scopes) == 0 {
		return bleve.NewMatchNoneQuery()
	}
	parts := []query.Query{bleve.NewDisjunctionQuery(scopes...)}
	if f.PathPrefix != "" {
		p := bleve.NewPrefixQuery(f.PathPrefix)
		p.SetField(fPath)
		parts = append(parts, p)
	}
	for _, t := range f.Tags {
		q := bleve.NewTermQuery(normTag(t))
		q.SetField(fTags)
		parts = append(parts, q)
	}
	if f.Type != "" {
		q := bleve.NewTermQuery(normTag(f.Type))
		q.SetField(fType)
		parts = append(parts, q)
	}
	if !f.After.IsZero() || !f.Before.IsZero() {
		var start, end time.Time
		if !f.After.IsZero() {
			start = f.After
		}
		if !f.Before.IsZero() {
			end = f.Before
		}
		incl, excl := true, false
		q := bleve.NewDateRangeInclusiveQuery(start, end, &incl, &excl)
		q.SetField(fDate)
		parts = append(parts, q)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return bleve.NewConjunctionQuery(parts...)
}

// commonShare: a query term found in more than this share of the bodies
// is left out of the query (once the index holds minCommonDocs documents):
// BM25 gives it almost no weight, yet reading its postings was most of a
// query's time on large vaults ("the" in the French fields, where no stop
// word list removes it). Lucene's common-terms query does the same.
const (
	commonShare   = 0.5
	minCommonDocs = 1000
)

// textQuery matches the words of text in every text field, in both
// languages, weighted by field: what a Bleve match query per field would
// be, less the common terms and the question's scaffolding
// (splitScaffolding). It returns the query that scores and, when text
// has scaffolding, the one a note must also match: the content. The
// scaffolding words score in the unweighted fields (body, context) only,
// beside the content words, so that they can neither find a note by
// themselves nor lift a title that holds one ("How …", "… note") above
// the notes about the subject.
func (ix *Index) textQuery(ctx context.Context, text string) (scored, required query.Query, err error) {
	text, scaffolding := splitScaffolding(text)
	analysed := ix.analyse(text)
	common, err := ix.commonTerms(ctx, analysed, true)
	if err != nil {
		return nil, nil, err
	}
	var extra [][]string
	if scaffolding != "" {
		extra = ix.analyse(scaffolding)
		skip, err := ix.commonTerms(ctx, extra, false)
		if err != nil {
			return nil, nil, err
		}
		for i, l := range langs {
			extra[i] = slices.DeleteFunc(extra[i], func(t string) bool { return skip[l+":"+t] })
		}
	}
	qs := termQueries(analysed, nil, common, textFields)
	if words := strings.Join(withoutNumbers(strings.Fields(text)), " "); words != "" {
		pq := bleve.NewMatchQuery(words)
		pq.SetField(fPathTxt)
		pq.SetBoost(fieldBoost[fPathTxt])
		qs = append(qs, pq)
	}
	for _, k := range []string{fTags, fType} {
		// Keyword fields match a whole tag or type written in the query.
		for _, w := range strings.Fields(strings.ToLower(text)) {
			q := bleve.NewTermQuery(strings.Trim(w, "#,.;:!?\"'()"))
			q.SetField(k)
			q.SetBoost(fieldBoost[k])
			qs = append(qs, q)
		}
	}
	content := bleve.NewDisjunctionQuery(qs...)
	if extra == nil {
		return content, nil, nil
	}
	// The same disjunctions, the scaffolding added to body and context
	// (a copy: content holds qs).
	scoredQs := slices.Clone(qs)
	copy(scoredQs, termQueries(analysed, extra, common, textFields))
	return bleve.NewDisjunctionQuery(scoredQs...), content, nil
}

// withoutNumbers is words less those made only of digits (and the
// punctuation around them): a number in a title or a path is nearly
// always a note's number in a series ("Meeting 12", "Chapter 3", a
// dialogue turn "D13:4", "Invoice 0042", a daily note's "2026-12-01"),
// and a number in a query a date or a count ("on October 13", "4 years
// ago"). Matched in titles at their weight, the 6 % of LoCoMo's questions
// that hold one ranked first every turn numbered by it. A number still
// scores where a note's words are (body, context, meta).
func withoutNumbers(words []string) []string {
	out := words[:0:0]
	for _, w := range words {
		if strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) == "" ||
			strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			out = append(out, w)
		}
	}
	return out
}

// analyse gives the terms of text in each language.
func (ix *Index) analyse(text string) [][]string {
	analysed := make([][]string, len(langs))
	for i, l := range langs {
		for _, t := range ix.analyzer(l).Analyze([]byte(text)) {
			analysed[i] = append(analysed[i], string(t.Term))
		}
	}
	return analysed
}

// termQueries is one disjunction per language and field of the terms
// that are not common, weighted by field; the extra terms (scaffolding,
// its common terms already out) join them in the body and context fields. A language whose terms are
// all common has none: extra only adds to the fields of content terms,
// so the queries match with and without it one to one.
func termQueries(analysed, extra [][]string, common map[string]bool, fields []string) []query.Query {
	var qs []query.Query
	for i, l := range langs {
		var terms, more []string
		for _, t := range analysed[i] {
			if !common[l+":"+t] {
				terms = append(terms, t)
			}
		}
		if len(terms) == 0 {
			continue
		}
		if extra != nil {
			more = extra[i]
		}
		for _, base := range fields {
			field, boost := base+"_"+l, fieldBoost[base]
			terms := terms
			if base == fBody || base == fContext {
				terms = append(terms[:len(terms):len(terms)], more...)
			}
			if base == fTitle || base == fAliases {
				if terms = withoutNumbers(terms); len(terms) == 0 {
					continue
				}
			}
			tqs := make([]query.Query, len(terms))
			for i, term := range terms {
				tq := bleve.NewTermQuery(term)
				tq.SetField(field)
				tq.SetBoost(boost)
				tqs[i] = tq
			}
			dq := bleve.NewDisjunctionQuery(tqs...)
			dq.SetMin(1)
			dq.SetBoost(boost)
			qs = append(qs, dq)
		}
	}
	return qs
}

// commonTerms are the query's terms (as "lang:term") in more than
// commonShare of the bodies; with keepAll, none when that would leave no
// term at all.
func (ix *Index) commonTerms(ctx context.Context, analysed [][]string, keepAll bool) (map[string]bool, error) {
	n, err := ix.bleve.DocCount()
	if err != nil || n < minCommonDocs {
		return nil, err
	}
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	common := map[string]bool{}
	seen := map[string]bool{}
	total, nCommon := 0, 0
	for i, l := range langs {
		for _, t := range analysed[i] {
			total++
			key := l + ":" + t
			if !seen[key] {
				seen[key] = true
				tfr, err := r.TermFieldReader(ctx, []byte(t), fBody+"_"+l, false, false, false)
				if err != nil {
					return nil, err
				}
				common[key] = float64(tfr.Count()) > commonShare*float64(n)
				tfr.Close()
			}
			if common[key] {
				nCommon++
			}
		}
	}
	if keepAll && nCommon == total {
		return nil, nil // only common words: search them anyway
	}
	return common, nil
}

// lexHit is one lexical result.
type lexHit struct {
	Path    string
	Score   float64
	scanned *scannedDoc // the note a scan read, not the index (scan.go)
}

// lexical runs the BM25 query: the best n documents within the filter,
// the notes sc analysed included (nil: none).
func (ix *Index) lexical(ctx context.Context, text string, f Filter, n int, sc *Scanned) ([]lexHit, int, error) {
	if strings.TrimSpace(text) == "" {
		return nil, 0, nil
	}
	tq, required, err := ix.textQuery(ctx, text)
	if err != nil {
		return nil, 0, fmt.Errorf("lexical search: %w", err)
	}
	bq := query.NewBooleanQuery([]query.Query{tq}, nil, nil)
	if required != nil {
		bq.AddFilter(bleve.NewConjunctionQuery(f.query(), required))
	} else {
		bq.AddFilter(f.query())
	}
	req := bleve.NewSearchRequestOptions(bq, n, 0, false)
	st := ix.bm25Stats()
	req.PreSearchData = map[string]any{bsearch.BM25PreSearchDataKey: st}
	res, err := ix.bleve.SearchInContext(ctx, req)
	if err != nil {
		return nil, 0, fmt.Errorf("lexical search: %w", err)
	}
	out := make([]lexHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		out = append(out, lexHit{Path: h.ID, Score: h.Score})
	}
	if out, err = ix.mergeScanned(ctx, out, tq, required, n, sc, st); err != nil {
		return nil, 0, err
	}
	return out, int(res.Total), nil
}
