package search

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"github.com/blevesearch/bleve/v2"
)

// After a crash, Bleve and the manifest each hold a prefix of the updates
// made: Bleve what it had put on disk (batches return before they are,
// unsafe_batch), the manifest what was there at its last save (every 30 s
// and at a clean close). Either may be ahead. Rather than rebuild (seconds
// per 10,000 notes), an open compares them document by document: each
// batch gives its documents an update token, stored in Bleve (the keyword
// field fOp) and in the manifest (docMeta.At). A document whose two
// tokens are equal was indexed by the same update on both sides, so the
// manifest describes exactly what Bleve holds. Every other one (tokens
// differ, or one side lacks it) is out of step, and so is every document
// the manifest lists in Refresh (its context waited for a neighbour's
// change when the manifest was saved). Those are marked with version "",
// which the caller's full sync sees as changed: it indexes again those
// whose note exists, and removes the others, Bleve's copy included. An
// out-of-step document keeps the rest of its manifest entry, its
// sequence neighbours included, so the sync indexes again the neighbours
// whose context holds its text, as after any change. Nothing here
// depends on how far apart the two sides were.

// opTerm is how an update token is written in Bleve's fOp field.
func opTerm(tok uint64) string { return strconv.FormatUint(tok, 36) }

// reconcile takes the manifest m as the record of the Bleve index b,
// marking the documents out of step (see above). It fails, and the index
// is rebuilt, only when Bleve's documents cannot be listed.
func (ix *Index) reconcile(b bleve.Index, m *manifest) error {
	held, maxTok, err := heldDocs(b)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	out := map[string]bool{}
	for p, dm := range m.Docs {
		if tok, ok := held[p]; !ok || dm.At == 0 || tok != dm.At {
			out[p] = true
		}
		maxTok = max(maxTok, dm.At)
	}
	for p := range held {
		if m.Docs[p] == nil {
			out[p] = true
		}
	}
	stale := maps.Clone(out)
	for _, p := range m.Refresh {
		if m.Docs[p] != nil {
			stale[p] = true
		}
	}
	for p := range stale {
		dm := m.Docs[p]
		if dm == nil {
			dm = &docMeta{}
			m.Docs[p] = dm
		}
		dm.Version, dm.At = "", 0
	}
	raw, _ := b.GetInternal([]byte(seqKey))
	bseq, _ := strconv.ParseUint(string(raw), 10, 64)
	ix.bleve, ix.meta, ix.seq, ix.metaSeen = b, m.Docs, max(bseq, m.Seq), m.Seq
	ix.ops.Store(maxTok) // later tokens are new to both sides
	for _, dm := range m.Docs {
		dm.scope = ix.scopeID(dm.Scope)
		ix.countWho(dm, 1)
		ix.countLens(dm, 1)
	}
	ix.reconciled = len(stale)
	if len(stale) > 0 {
		ix.seq++ // the manifest is saved again
	}
	if len(out) > 0 {
		ix.logf("search index: %d documents out of step with the manifest after an interrupted run (index at change %d, manifest at %d), and %d whose context waited: indexed again",
			len(out), bseq, m.Seq, len(stale)-len(out))
	}
	return nil
}

// heldDocs lists the documents Bleve holds, each with its update token,
// and the largest token it names. It reads the fOp field's dictionary and
// postings: no stored field, no document is loaded.
func heldDocs(b bleve.Index) (map[string]uint64, uint64, error) {
	adv, err := b.Advanced()
	if err != nil {
		return nil, 0, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	count, err := r.DocCount()
	if err != nil {
		return nil, 0, err
	}
	dict, err := r.FieldDict(fOp)
	if err != nil {
		return nil, 0, err
	}
	defer dict.Close()
	held := make(map[string]uint64, count)
	var maxTok uint64
	for {
		de, err := dict.Next()
		if err != nil {
			return nil, 0, err
		}
		if de == nil {
			break
		}
		tok, err := strconv.ParseUint(de.Term, 36, 64)
		if err != nil {
			return nil, 0, fmt.Errorf("update token %q: %w", de.Term, err)
		}
		maxTok = max(maxTok, tok)
		tfr, err := r.TermFieldReader(context.Background(), []byte(de.Term), fOp, false, false, false)
		if err != nil {
			return nil, 0, err
		}
		for {
			d, err := tfr.Next(nil)
			if err != nil {
				tfr.Close()
				return nil, 0, err
			}
			if d == nil {
				break
			}
			id, err := r.ExternalID(d.ID)
			if err != nil {
				tfr.Close()
				return nil, 0, err
			}
			held[id] = tok
		}
		tfr.Close()
	}
	if uint64(len(held)) != count {
		return nil, 0, fmt.Errorf("%d of its %d documents carry no update token", count-uint64(len(held)), count)
	}
	return held, maxTok, nil
}
