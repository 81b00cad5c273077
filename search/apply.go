package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
)

// ErrClosed is returned by updates that arrive after Close.
var ErrClosed = errors.New("search index: closed")

// batchSize bounds one Bleve batch: 500 to 2,000 documents index fastest
// (docs/search-index.md, "Bleve facts this rests on").
const batchSize = 1000

// Apply indexes docs and removes deletes, in batches. The documents of a
// batch carry its update token in Bleve, which the manifest records too:
// an open after a crash compares them. Vectors are queued, never waited
// for. Batches run one at a time, but no lock a search takes is held
// while Bleve analyses them.
func (ix *Index) Apply(docs []*Doc, deletes []string) error {
	for len(docs) > 0 || len(deletes) > 0 {
		nd := min(len(docs), batchSize)
		nr := min(len(deletes), batchSize-nd)
		if err := ix.applyBatch(docs[:nd], deletes[:nr]); err != nil {
			return err
		}
		docs, deletes = docs[nd:], deletes[nr:]
	}
	return nil
}

func (ix *Index) applyBatch(docs []*Doc, deletes []string) error {
	if len(docs) == 0 && len(deletes) == 0 {
		return nil
	}
	p, err := ix.prepare(docs, false)
	if err != nil {
		return err
	}
	return ix.applyPrepared(p, deletes)
}

// Prepared is a batch of documents mapped, and their paired text fields
// analysed, before it is applied: a build prepares its next step on one
// core while Bleve builds the segment of the one before on the other
// (docs/benchmarks.md, "The next step analysed while Bleve builds").
// Its documents carry the update token taken when it was prepared.
type Prepared struct {
	docs   []*Doc
	tok    uint64
	b      *bleve.Batch
	mapped []*document.Document
}

// Prepare maps docs (batchSize at most) and analyses their paired text
// fields on the calling goroutine, for ApplyPrepared; it takes no lock
// and changes nothing in the index, so a batch prepared and never applied
// leaves no trace (but an update token never used).
func (ix *Index) Prepare(docs []*Doc) (*Prepared, error) {
	if len(docs) > batchSize {
		return nil, fmt.Errorf("search index: prepare %d documents: at most %d at once", len(docs), batchSize)
	}
	return ix.prepare(docs, true)
}

// prepare maps docs under a new update token, and analyses their paired
// text fields now when analyse (else Bleve's Batch does, on every core).
func (ix *Index) prepare(docs []*Doc, analyse bool) (*Prepared, error) {
	docs = boundedAll(docs)
	p := &Prepared{docs: docs, tok: ix.ops.Add(1), b: ix.bleve.NewBatch(), mapped: make([]*document.Document, len(docs))}
	for i, d := range docs {
		var err error
		if p.mapped[i], err = ix.index(p.b, d, p.tok); err != nil {
			return nil, err
		}
		if analyse {
			analysePaired(p.mapped[i])
		}
	}
	return p, nil
}

// ApplyPrepared indexes a prepared batch, as Apply would its documents.
func (ix *Index) ApplyPrepared(p *Prepared) error {
	if len(p.docs) == 0 {
		return nil
	}
	return ix.applyPrepared(p, nil)
}

// applyPrepared indexes p and removes deletes in one Bleve batch.
func (ix *Index) applyPrepared(p *Prepared, deletes []string) error {
	if !ix.enter() {
		return ErrClosed
	}
	defer ix.gate.RUnlock()
	for _, path := range deletes {
		p.b.Delete(path)
	}
	ix.batchMu.Lock()
	defer ix.batchMu.Unlock()
	seq := ix.seq + 1
	p.b.SetInternal([]byte(seqKey), []byte(strconv.FormatUint(seq, 10)))
	if err := ix.bleve.Batch(p.b); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	ix.record(seq, p.tok, p.docs, lengthsOfAll(p.mapped), deletes)
	return nil
}

// index adds d to b as update tok: mapped as Batch.Index maps it, its
// text fields analysed in pairs (pairedfields.go). It returns the
// document, whose lengths are read once Bleve has analysed it.
func (ix *Index) index(b *bleve.Batch, d *Doc, tok uint64) (*document.Document, error) {
	doc, err := mapDoc(ix.bleve.Mapping(), d.Path, bleveDocAt(d, tok))
	if err == nil {
		err = b.IndexAdvanced(doc)
	}
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", d.Path, err)
	}
	return doc, nil
}

// bleveDocAt is what Bleve indexes for d, with the token of the update
// that indexes it (fOp): the manifest records the same token, and an open
// after a crash compares the two (reconcile.go).
func bleveDocAt(d *Doc, tok uint64) map[string]any {
	m := bleveDoc(d)
	m[fOp] = opTerm(tok)
	return m
}

// ApplyLarge indexes one document in a Bleve batch of its own, holding no
// lock that Apply or a search takes while Bleve analyses it, so a long
// note (the analysis grows with its text, up to MaxBodyBytes) delays no
// other update and no search. The caller must not update the same path
// at the same time (the vault sends each path one way at a time).
//
// The manifest records the document once Bleve holds it. A crash between
// the two leaves Bleve holding an update token the manifest does not
// name, which the next open finds (reconcile.go): the document is indexed
// again.
func (ix *Index) ApplyLarge(d *Doc) error {
	if !ix.enter() {
		return ErrClosed
	}
	defer ix.gate.RUnlock()
	p, err := ix.prepare([]*Doc{d}, false)
	if err != nil {
		return err
	}
	if largeHook != nil {
		largeHook(d.Path)
	}
	if err := ix.bleve.Batch(p.b); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	lens := lengthsOfAll(p.mapped)
	ix.batchMu.Lock()
	defer ix.batchMu.Unlock()
	ix.record(ix.seq+1, p.tok, p.docs, lens, nil)
	return nil
}

// largeHook, set by tests only, runs where ApplyLarge's analysis starts:
// a test holds it there to show that nothing else waits for it.
var largeHook func(path string)

// enter admits an update unless the index is closing; the caller releases
// ix.gate (read) when done. Close takes it for writing, so it waits for
// the updates in flight, each bounded by the per-document bounds.
func (ix *Index) enter() bool {
	ix.gate.RLock()
	if ix.closed.Load() {
		ix.gate.RUnlock()
		return false
	}
	return true
}

// record makes a batch that Bleve holds visible in the manifest (tok is
// the update token its documents carry in Bleve, lens their analysed
// lengths), and queues its vectors. The caller holds ix.batchMu.
func (ix *Index) record(seq, tok uint64, docs []*Doc, lens []fieldLens, deletes []string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.seq = seq
	ix.markNeighbours(docs, deletes)
	for i, d := range docs {
		m := &docMeta{Version: d.Version, At: tok, Scope: d.Scope, Project: d.Project, Type: normTag(d.Type), Seq: d.Sequence, Sum: contentSum(d), Lens: lens[i], scope: ix.scopeID(d.Scope)}
		for _, t := range d.Tags {
			m.Tags = append(m.Tags, normTag(t))
		}
		if !d.Date.IsZero() {
			m.Date = d.Date.Unix()
		}
		for _, w := range d.Who {
			if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
				m.Who = append(m.Who, w)
			}
		}
		m.share()
		ix.countWho(ix.meta[d.Path], -1)
		ix.countWho(m, 1)
		ix.countLens(ix.meta[d.Path], -1)
		ix.countLens(m, 1)
		ix.meta[d.Path] = m
		if ix.vec != nil {
			ix.vec.setMeta(d.Path, m)
		}
	}
	for _, p := range deletes {
		ix.countWho(ix.meta[p], -1)
		ix.countLens(ix.meta[p], -1)
		delete(ix.meta, p)
	}
	if ix.vec != nil {
		for _, p := range deletes {
			ix.vec.remove(p)
			ix.queue.drop(p)
		}
		for _, d := range docs {
			if v, ok := ix.vec.version(d.Path); !ok || v != d.Version {
				ix.queue.add(d.Path, d)
			}
		}
	}
}

// markNeighbours keeps the manifest's list of documents whose context
// (their sequence neighbours' text, Doc.Context) may be older than a
// neighbour: a document that changes version or scope, or leaves, marks
// its neighbours, before and after, as the vault re-indexes them right after
// (in another batch, or in the lane); indexing a document clears its
// mark. A crash between the two leaves the mark in a saved manifest, and
// the next open has those neighbours indexed again (reconcile.go). The
// caller holds ix.mu.
func (ix *Index) markNeighbours(docs []*Doc, deletes []string) {
	here := make(map[string]bool, len(docs)+len(deletes))
	for _, d := range docs {
		here[d.Path] = true
	}
	for _, p := range deletes {
		here[p] = true
	}
	mark := func(qs []string) {
		for _, q := range qs {
			if !here[q] && ix.meta[q] != nil {
				ix.refresh[q] = true
			}
		}
	}
	for _, d := range docs {
		old := ix.meta[d.Path]
		if old == nil || old.Version != d.Version || old.Scope != d.Scope {
			if old != nil {
				mark(old.Seq)
			}
			mark(d.Sequence)
		}
	}
	for _, p := range deletes {
		if old := ix.meta[p]; old != nil {
			mark(old.Seq)
		}
	}
	for p := range here {
		delete(ix.refresh, p)
	}
}

// scopeID numbers a scope (the caller holds ix.mu for writing, or is
// opening the index).
func (ix *Index) scopeID(s string) int {
	id, ok := ix.scopeIDs[s]
	if !ok {
		id = len(ix.scopeIDs)
		ix.scopeIDs[s] = id
	}
	return id
}

func (ix *Index) countWho(m *docMeta, delta int) {
	if m == nil {
		return
	}
	for _, w := range m.Who {
		if ix.who[w] == nil {
			ix.who[w] = map[int]int{}
		}
		if ix.who[w][m.scope] += delta; ix.who[w][m.scope] <= 0 {
			delete(ix.who[w], m.scope)
			if len(ix.who[w]) == 0 {
				delete(ix.who, w)
			}
		}
	}
}
