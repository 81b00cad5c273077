package hindsight

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// Fact is one fact as hindsight_search returns it.
type Fact struct {
	ID         string  `json:"id"`
	Text       string  `json:"text"`
	Type       string  `json:"type"`
	Context    string  `json:"context"`
	EventDate  *string `json:"event_date"`
	DocumentID *string `json:"document_id"`
}

// Default and bounds of hindsight_search's budget.
const (
	DefaultTokens  = 4096
	MinTokens      = 8 // {"results":[]} alone takes 4
	MaxTokens      = 100_000
	bankCandidates = 200
)

// Search searches one bank (hybrid search), packing facts into at most
// maxTokens tokens of results, counted with the real tokenizer on each
// fact's JSON as returned.
func (b *Banks) Search(ctx context.Context, c access.Caller, bank, query string, maxTokens int) ([]Fact, error) {
	for _, f := range []struct{ arg, val string }{{"bank_id", bank}, {"query", query}} {
		if err := vault.ValidText(f.arg, f.val); err != nil {
			return nil, err
		}
	}
	folder, ok := b.bankFolder(bank)
	if !b.mayReachBank(c, bank) || !ok || !b.bankExists(folder) {
		return nil, &BankError{bank}
	}
	if strings.TrimSpace(query) == "" {
		return nil, argErr("query", "is empty")
	}
	if maxTokens == 0 {
		maxTokens = DefaultTokens
	}
	if maxTokens < MinTokens || maxTokens > MaxTokens {
		return nil, argErr("max_tokens", "must be between %d and %d", MinTokens, MaxTokens)
	}
	_, res, err := b.v.SearchQuery(ctx, search.Query{Text: query, Mode: search.Hybrid, Limit: bankCandidates, Filter: search.Filter{Scopes: []string{"b:" + folder}}})
	if err != nil {
		return nil, err
	}
	out := []Fact{}
	used := search.Tokens(`{"results":[]}`)
	for _, h := range res.Hits {
		if maxTokens-used < minFactTokens() {
			break // no fact is that short: reading the others is wasted
		}
		f, ok := b.factOf(h.Path)
		if !ok {
			continue
		}
		js, _ := json.Marshal(f)
		n := search.Tokens(string(js)) + 1 // and its comma
		if used+n > maxTokens {
			continue // a shorter fact further down may still fit
		}
		used += n
		out = append(out, f)
	}
	return out, nil
}

// minFactTokens is a lower bound of any fact's tokens in the answer: its
// keys and quotes alone (less a margin for merges at the boundaries).
var minFactTokens = sync.OnceValue(func() int {
	return search.Tokens(`{"id":"","text":"","type":"","context":"","event_date":null,"document_id":null}`) - 4
})

// factOf reads a fact note back.
func (b *Banks) factOf(p string) (Fact, bool) {
	data, err := b.v.ReadNoteFile(p)
	if err != nil {
		return Fact{}, false
	}
	n := note.Parse(p, data)
	f := Fact{ID: n.ID, Text: strings.TrimSpace(string(n.Body)), Type: "world"}
	if id, ok := b.v.NoteID(p); ok {
		f.ID = id
	}
	str := n.Scalar
	f.Context = str("context")
	if t := str("fact_type"); t == "world" || t == "experience" || t == "opinion" {
		f.Type = t
	}
	if d := str("event_date"); d != "" {
		f.EventDate = &d
	}
	if d := str("document_id"); d != "" {
		f.DocumentID = &d
	}
	return f, true
}
