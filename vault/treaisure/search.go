package treaisure

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// Evidence levels.
const (
	LevelDirect   = "direct"
	LevelRelated  = "related"
	LevelSemantic = "semantic"
)

// Evidence is one item of a dossier.
type Evidence struct {
	ID       string   `json:"id"`
	Path     string   `json:"path"`
	Excerpt  string   `json:"excerpt"`
	Date     string   `json:"date"` // occurred_at, else captured_at
	Topics   []string `json:"topics"`
	Entities []string `json:"entities"`
	Score    float64  `json:"score"`
	Level    string   `json:"level"`
	// Explicit is true only for direct evidence: the user's own words
	// matching the question. Related and semantic items are context.
	Explicit bool   `json:"explicit"`
	Why      string `json:"why"`
}

// Dossier is treaisure_search_memory's answer.
type Dossier struct {
	Question string     `json:"question"`
	Space    string     `json:"space"`
	Items    []Evidence `json:"items"`
	Note     string     `json:"note"`
	Mode     string     `json:"mode"`
}

const dossierNote = "Only items with level \"direct\" (explicit: true) hold the user's own captured words matching the question. \"related\" items were reached from a direct item through a link, a shared entity or a shared topic, and \"semantic\" items only resemble the question in meaning: never present either as something the user said about this."

// Default and most evidence items of treaisure_search_memory (the seed's
// "limit integer, 1-12, default 8").
const (
	DefaultItems = 8
	MaxItems     = 12
)

// Search searches one space of c's captured thoughts, never both.
func (t *Thoughts) Search(ctx context.Context, c access.Caller, question, space string, limit int) (*Dossier, error) {
	limit, err := checkMemoryQuestion(question, space, limit)
	if err != nil {
		return nil, err
	}
	out := &Dossier{Question: question, Space: space, Items: []Evidence{}, Note: dossierNote}
	if c.Principal == "" {
		return out, nil
	}
	dir := thoughtsDir(c.Principal, space) + "/"
	ix, res, err := t.v.SearchQuery(ctx, search.Query{Text: question, Mode: search.Hybrid, Limit: vault.MaxSearchLimit,
		Filter: search.Filter{Scopes: []string{"u:" + c.Principal}, PathPrefix: dir}})
	if err != nil {
		return nil, err
	}
	out.Mode = string(res.Mode)
	direct, other := t.directEvidence(ix, res.Hits, dir, question)
	keys, linked := t.aroundDirect(direct)
	related, semantic := relatedEvidence(other, keys, linked)
	related = append(related, t.linkedEvidence(ix, dir, question, linked, direct, related)...)
	for _, group := range [][]Evidence{direct, related, semantic} {
		for _, ev := range group {
			if len(out.Items) < limit {
				out.Items = append(out.Items, ev)
			}
		}
	}
	return out, nil
}

// checkMemoryQuestion checks Search's arguments and returns the
// limit to use.
func checkMemoryQuestion(question, space string, limit int) (int, error) {
	if err := vault.ValidText("question", question); err != nil {
		return 0, err
	}
	switch {
	case strings.TrimSpace(question) == "":
		return 0, argErr("question", "is empty")
	case len(question) > 4000:
		return 0, argErr("question", "is longer than 4,000 bytes")
	case !slices.Contains(Spaces, space):
		return 0, argErr("space", "unknown space %q (personal or professional; one at a time)", space)
	}
	if limit == 0 {
		limit = DefaultItems
	}
	if limit < 1 || limit > MaxItems {
		return 0, argErr("limit", "must be between 1 and %d", MaxItems)
	}
	return limit, nil
}

// readThought reads a thought's note (nil when it cannot be read).
func (t *Thoughts) readThought(p string) *note.Note {
	data, err := t.v.ReadNoteFile(p)
	if err != nil {
		return nil
	}
	return note.Parse(p, data)
}

// directEvidence sorts the hits in dir: direct when the user's own words
// match the question's content words, else other (resembling it in
// meaning, or sharing only common words).
func (t *Thoughts) directEvidence(ix *search.Index, hits []search.Hit, dir, question string) (direct, other []Evidence) {
	content := search.ContentWords(question)
	for _, h := range hits {
		if !strings.HasPrefix(h.Path, dir) {
			continue // never the other space, whatever the index says
		}
		n := t.readThought(h.Path)
		if n == nil {
			continue
		}
		ev := t.evidence(ix, h.Path, n, question, h)
		if h.Lexical != nil && content != "" && ix.MatchesIn(string(n.Body), content) {
			ev.Level, ev.Explicit, ev.Why = LevelDirect, true, "the user's own words match the question"
			direct = append(direct, ev)
		} else if h.Semantic != nil || h.Lexical != nil {
			// A match on stop words alone is no evidence of what the user said.
			ev.Level, ev.Why = LevelSemantic, "similar in meaning only"
			if h.Semantic == nil {
				ev.Why = "shares only common words with the question"
			}
			other = append(other, ev)
		}
	}
	return direct, other
}

// aroundDirect is what the first direct items reach: their entities and
// topics (lower-cased → as written) and the notes linked to or from them
// (path → the direct item's id).
func (t *Thoughts) aroundDirect(direct []Evidence) (keys, linked map[string]string) {
	keys, linked = map[string]string{}, map[string]string{}
	for _, d := range direct[:min(len(direct), 5)] {
		for _, k := range append(append([]string{}, d.Entities...), d.Topics...) {
			if _, ok := keys[strings.ToLower(k)]; !ok {
				keys[strings.ToLower(k)] = k
			}
		}
		for _, p := range t.v.LinkedPaths(d.Path) {
			linked[p] = d.ID
		}
	}
	return keys, linked
}

// relatedEvidence sorts the other hits: related when linked to a direct
// item or sharing an entity or topic with one, else semantic.
func relatedEvidence(other []Evidence, keys, linked map[string]string) (related, semantic []Evidence) {
	for _, o := range other {
		why := ""
		if _, ok := linked[o.Path]; ok {
			why = "linked to a direct item"
		}
		for _, k := range append(append([]string{}, o.Entities...), o.Topics...) {
			if orig, ok := keys[strings.ToLower(k)]; ok && why == "" {
				why = fmt.Sprintf("shares %q with a direct item", orig)
			}
		}
		if why != "" {
			o.Level, o.Why = LevelRelated, why
			related = append(related, o)
		} else {
			semantic = append(semantic, o)
		}
	}
	return related, semantic
}

// linkedEvidence is the thoughts in dir linked to a direct item that no
// list holds yet: related too.
func (t *Thoughts) linkedEvidence(ix *search.Index, dir, question string, linked map[string]string, direct, related []Evidence) []Evidence {
	seen := map[string]bool{}
	for _, group := range [][]Evidence{direct, related} {
		for _, ev := range group {
			seen[ev.Path] = true
		}
	}
	var out []Evidence
	for _, p := range slices.Sorted(maps.Keys(linked)) {
		if seen[p] || !strings.HasPrefix(p, dir) {
			continue
		}
		if n := t.readThought(p); n != nil {
			ev := t.evidence(ix, p, n, question, search.Hit{Path: p})
			ev.Level, ev.Why = LevelRelated, "linked to a direct item"
			out = append(out, ev)
		}
	}
	return out
}

func (t *Thoughts) evidence(ix *search.Index, p string, n *note.Note, question string, h search.Hit) Evidence {
	ev := Evidence{ID: n.ID, Path: p, Score: h.Score, Topics: thoughtTopics(n), Entities: thoughtEntities(n)}
	if id, ok := t.v.NoteID(p); ok {
		ev.ID = id
	}
	ev.Excerpt = ix.Snippet(string(n.Body), question, h.Chunk)
	if ev.Date = n.Scalar("occurred_at"); ev.Date == "" {
		ev.Date = n.Scalar("captured_at")
	}
	if ev.Topics == nil {
		ev.Topics = []string{}
	}
	if ev.Entities == nil {
		ev.Entities = []string{}
	}
	return ev
}

// argErr is an error about one argument, as the vault gives them.
func argErr(arg, format string, a ...any) error {
	return &vault.ArgError{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}
