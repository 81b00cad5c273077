package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrClosed is returned by updates that arrive after Close.
var ErrClosed = errors.New("search index: closed")

// batchSize bounds one Bleve batch (LIBRARY-NOTES.md: 500-2,000 is best).
const batchSize = 1000

// Apply indexes docs and removes deletes, in batches. Each batch is atomic
// with the change counter the manifest is checked against. Vectors are
// queued, never waited for. Batches run one at a time, but no lock a
// search takes is held while Bleve analyses them.
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
	if !ix.enter() {
		return ErrClosed
	}
	defer ix.gate.RUnlock()
	docs = boundedAll(docs)
	b := ix.bleve.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.Path, bleveDoc(d)); err != nil {
			return fmt.Errorf("index %s: %w", d.Path, err)
		}
	}
	for _, p := range deletes {
		b.Delete(p)
	}
	ix.batchMu.Lock()
	defer ix.batchMu.Unlock()
	seq := ix.seq + 1
	b.SetInternal([]byte(seqKey), []byte(strconv.FormatUint(seq, 10)))
	if err := ix.bleve.Batch(b); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	ix.record(seq, docs, deletes)
	return nil
}

// ApplyLarge indexes one document in a Bleve batch of its own, holding no
// lock that Apply or a search takes while Bleve analyses it, so a long
// note (the analysis grows with its text, up to MaxBodyBytes) delays no
// other update and no search. The caller must not update the same path
// at the same time (the vault sends each path one way at a time).
//
// The change counter is then stored by a batch of its own, so Bleve may
// hold the document before its counter: after a crash between the two,
// the manifest still has the document's previous version (or not the
// document, and Bleve one document more), and the start-up sync indexes
// it again (or rebuilds).
func (ix *Index) ApplyLarge(d *Doc) error {
	if !ix.enter() {
		return ErrClosed
	}
	defer ix.gate.RUnlock()
	d = bounded(d)
	b := ix.bleve.NewBatch()
	if err := b.Index(d.Path, bleveDoc(d)); err != nil {
		return fmt.Errorf("index %s: %w", d.Path, err)
	}
	if largeHook != nil {
		largeHook(d.Path)
	}
	if err := ix.bleve.Batch(b); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	ix.batchMu.Lock()
	defer ix.batchMu.Unlock()
	seq := ix.seq + 1
	sb := ix.bleve.NewBatch()
	sb.SetInternal([]byte(seqKey), []byte(strconv.FormatUint(seq, 10)))
	if err := ix.bleve.Batch(sb); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	ix.record(seq, []*Doc{d}, nil)
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

// record makes a batch that Bleve holds visible in the manifest, and
// queues its vectors. The caller holds ix.batchMu.
func (ix *Index) record(seq uint64, docs []*Doc, deletes []string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.seq = seq
	for _, d := range docs {
		m := &docMeta{Version: d.Version, Scope: d.Scope, Project: d.Project, Type: normTag(d.Type), Seq: d.Sequence, scope: ix.scopeID(d.Scope)}
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
		ix.countWho(ix.meta[d.Path], -1)
		ix.countWho(m, 1)
		ix.meta[d.Path] = m
		if ix.vec != nil {
			ix.vec.setMeta(d.Path, m)
		}
	}
	for _, p := range deletes {
		ix.countWho(ix.meta[p], -1)
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
