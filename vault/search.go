package vault

import (
	"context"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// Bounds of search's limit.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
)

// SearchArgs are search's arguments.
type SearchArgs struct {
	Query   string
	Project string
	Limit   int
	Mode    string
	Tags    []string
	Type    string
	Path    string // a folder (relative to the project's when project is set)
	After   string // a date or time: notes dated on or after it
	Before  string // notes dated before it
	// Explain adds each list's rank (lexical, semantic) to every hit: for
	// a person tuning search, not for an agent, who pays for them.
	Explain bool
}

// SearchHit is one result: a snippet, never the whole note.
type SearchHit struct {
	ID       string       `json:"id"`
	Path     string       `json:"path"`
	Title    string       `json:"title"`
	Class    string       `json:"class"`
	Project  string       `json:"project,omitempty"`
	Score    float64      `json:"score"` // the fused score, 3 significant digits
	Snippet  string       `json:"snippet"`
	Lexical  *search.Rank `json:"lexical,omitempty"`  // with Explain only
	Semantic *search.Rank `json:"semantic,omitempty"` // with Explain only
	// Via is the hit next to this one in a sequence (a conversation's
	// previous or next turn) that passed it part of its score.
	Via string `json:"via,omitempty"`
}

// SearchResult is search's answer.
type SearchResult struct {
	Query string `json:"query"`
	// Mode is what ran; Requested what was asked (they differ when vectors
	// are unavailable, and Notice says why).
	Mode           string `json:"mode"`
	Requested      string `json:"requestedMode"`
	Notice         string `json:"notice,omitempty"`
	VectorsPending int    `json:"vectorsPending,omitempty"`
	// IndexPending counts the notes the caller may read that are still
	// being indexed in the background (notes over 64 KiB, one at a time;
	// during the first build of the index, every note not reached yet):
	// until they are, neither list finds them.
	IndexPending int         `json:"indexPending,omitempty"`
	Results      []SearchHit `json:"results"`
}

// searchPlan is a validated search.
type searchPlan struct {
	q       search.Query
	project *Project
}

func (v *Vault) planSearch(c access.Caller, a SearchArgs, queryArg string) (*searchPlan, error) {
	if err := validText(queryArg, a.Query); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return nil, argErr(queryArg, "is empty: say what to look for")
	}
	if len(a.Query) > 4000 {
		return nil, argErr(queryArg, "is longer than 4,000 bytes")
	}
	if a.Limit == 0 {
		a.Limit = DefaultSearchLimit
	}
	if a.Limit < 1 || a.Limit > MaxSearchLimit {
		return nil, argErr("limit", "must be between 1 and %d", MaxSearchLimit)
	}
	mode, err := search.ParseMode(a.Mode)
	if err != nil {
		return nil, argErr("mode", "%v", err)
	}
	for _, t := range a.Tags {
		if err := validText("tags", t); err != nil {
			return nil, err
		}
		if strings.TrimSpace(t) == "" {
			return nil, argErr("tags", "has an empty tag")
		}
	}
	if err := validText("type", a.Type); err != nil {
		return nil, err
	}
	if a.Type != "" && strings.TrimSpace(a.Type) == "" {
		return nil, argErr("type", "is blank")
	}
	f := search.Filter{Tags: a.Tags, Type: strings.TrimSpace(a.Type)}
	for _, d := range []struct {
		arg string
		s   string
		t   *time.Time
	}{{"after", a.After, &f.After}, {"before", a.Before, &f.Before}} {
		if d.s == "" {
			continue
		}
		t, ok := ParseDate(d.s)
		if !ok {
			return nil, argErr(d.arg, "%q is not a date: use 2026-11-29 or 2026-11-29T14:00:00Z", d.s)
		}
		*d.t = t
	}
	if !f.After.IsZero() && !f.Before.IsZero() && !f.After.Before(f.Before) {
		return nil, argErr("before", "must be later than after")
	}
	if err := v.syncHead(); err != nil {
		return nil, err
	}
	dir, err := cleanRel("path", a.Path)
	if err != nil {
		return nil, err
	}
	plan := &searchPlan{}
	if a.Project != "" {
		if plan.project, _, err = v.project(c, "project", a.Project); err != nil {
			return nil, err
		}
		if pd := plan.project.Dir; pd != "" && dir != pd && !strings.HasPrefix(dir, pd+"/") {
			if dir, err = cleanRel("path", strings.Trim(pd+"/"+dir, "/")); err != nil {
				return nil, err
			}
		}
	}
	if dir != "" {
		f.PathPrefix = dir + "/"
	}
	if f.Scopes, err = v.readableScopes(c, plan.project, plan.project == nil); err != nil {
		return nil, err
	}
	plan.q = search.Query{Text: a.Query, Mode: mode, Limit: a.Limit, Filter: f}
	return plan, nil
}

// Search finds notes c may read: shared notes of its projects and its own
// private memory ("search before write" finds duplicates). Access is part
// of the query, so nothing from elsewhere is scored, counted or shown.
func (v *Vault) Search(ctx context.Context, c access.Caller, a SearchArgs) (*SearchResult, error) {
	defer v.index.SearchRuns()()
	plan, err := v.planSearch(c, a, "query")
	if err != nil {
		return nil, err
	}
	ix, res, err := v.runSearch(ctx, plan.q)
	if err != nil {
		return nil, err
	}
	out := &SearchResult{Query: a.Query, Mode: string(res.Mode), Requested: string(plan.q.Mode), Notice: res.Notice, VectorsPending: res.VectorsPending, IndexPending: v.index.Pending(plan.q.Filter.Scopes), Results: []SearchHit{}}
	if notice := v.index.Notice(); res.Mode != plan.q.Mode && notice != "" {
		out.Notice = notice + "; ran lexically" // a broken embedder setting
	}
	for _, h := range res.Hits {
		sh, ok := v.hitView(c, ix, h, a.Query, a.Explain)
		if ok {
			out.Results = append(out.Results, sh)
		}
	}
	return out, nil
}

// hitView fills in a hit from the catalog and the file. A hit whose note
// is gone, or that c may not read after all, is dropped (it cannot have
// been counted anywhere).
func (v *Vault) hitView(c access.Caller, ix *search.Index, h search.Hit, query string, explain bool) (SearchHit, bool) {
	if v.roleAt(c, h.Path) < access.RoleRead {
		return SearchHit{}, false
	}
	e := v.entry(h.Path, false)
	if e == nil {
		return SearchHit{}, false
	}
	_, project, _ := v.scopeOf(h.Path)
	sh := SearchHit{ID: e.ID, Path: h.Path, Title: e.Title, Class: classOf(h.Path), Project: project, Score: RoundScore(h.Score), Via: h.Via}
	if explain {
		sh.Semantic = h.Semantic
	}
	if explain && h.Lexical != nil {
		// The rank only: a BM25 score depends on term statistics over the
		// whole vault, notes the caller may not read included.
		sh.Lexical = &search.Rank{Rank: h.Lexical.Rank}
	}
	// Read as the index read it (searchDoc): relative to the vault's
	// folder, into a buffer used again, the body as ParseRead finds it.
	// By path, with an os.File and the YAML parser, the ten hits' reads
	// were a sixth of a search's CPU at 10,000 notes (servebench's warm
	// searches, profiled).
	_ = v.withNoteBytes(h.Path, func(data []byte, _ fileStamp) {
		// string copies the body: the snippet keeps no part of data.
		sh.Snippet = ix.Snippet(string(note.ParseRead(h.Path, data).Body), query, h.Chunk)
	})
	return sh, true
}

// SemanticSearch reports whether semantic search is available: an
// embedder is configured and works.
func (v *Vault) SemanticSearch() bool {
	if ix := v.index.Current(); ix != nil {
		return ix.Semantic()
	}
	// Not open yet (it may be building): the settings say.
	ch, err := ChooseEmbedder(v.root)
	if err != nil {
		return false
	}
	e, err := ch.Open()
	return err == nil && e != nil
}

// NoteCount is the number of notes in the vault.
func (v *Vault) NoteCount() int {
	return v.catalog.count()
}

// runSearch runs q on the index kept up to date with the notes
// (indexing.Keeper.Search: during a first build and for long notes not
// indexed yet, it reads them instead). The index it returns may be closed
// by a Rebuild as soon as it returns: the caller only analyses text with
// it (Snippet, FirstMatch, MatchesIn), which needs no open index.
func (v *Vault) runSearch(ctx context.Context, q search.Query) (*search.Index, *search.Result, error) {
	return v.index.Search(ctx, q)
}

// SearchLanguages says which languages search understands.
type SearchLanguages struct {
	// Lexical: the languages word matching analyses (stems, stop words,
	// question words; accents are ignored in every language).
	Lexical []string `json:"lexical"`
	// Vectors is the semantic side: "builtin", "off", or the provider and
	// model of an embedding server ("ollama:bge-m3").
	Vectors string `json:"vectors"`
	// VectorLanguages are the languages the builtin vectors know (their
	// words are English); empty for a model, whose languages are its own.
	VectorLanguages []string `json:"vectorLanguages,omitempty"`
}

// Languages says which languages search understands, for whoami: the
// lexical analysers' and the vectors' (docs/search.md, "Languages").
func (v *Vault) Languages() SearchLanguages {
	out := SearchLanguages{Lexical: []string{"en", "fr"}, Vectors: "off"}
	ch, err := ChooseEmbedder(v.root)
	if err != nil || !v.SemanticSearch() {
		return out
	}
	switch p := ch.Config.Provider; p {
	case "", "builtin":
		out.Vectors, out.VectorLanguages = "builtin", []string{"en"}
	default:
		out.Vectors = p + ":" + ch.Config.Model
	}
	return out
}
