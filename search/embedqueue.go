package search

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode"
)

// embedQueue makes vectors in the background: writes never wait for an
// embedder (which may be a slow or absent HTTP server). Documents are
// embedded in batches of chunks; a failing embedder is retried with a
// growing pause, and its documents stay queued.
type embedQueue struct {
	ix      *Index
	mu      sync.Mutex
	pending map[string]*queued
	wake    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
}

// queued is one document waiting; each add makes a new one, so finish can
// tell the entry it took from a newer one.
type queued struct {
	doc *Doc // its text, or nil to load it
}

// keepText bounds how many queued documents keep their text in memory,
// and keepTextBytes how long that text may be; the others are read again
// through Options.Load when their turn comes (2,000 queued 1 MiB notes
// must not hold 2 GB).
const (
	keepText      = 2000
	keepTextBytes = 64 << 10
)

// embedBatch is how many chunks go to the embedder at once.
const embedBatch = 64

func newEmbedQueue(ix *Index) *embedQueue {
	ctx, cancel := context.WithCancel(context.Background())
	q := &embedQueue{ix: ix, pending: map[string]*queued{}, wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go q.run()
	return q
}

func (q *embedQueue) add(p string, d *Doc) {
	q.mu.Lock()
	if d != nil && (len(q.pending) >= keepText || len(d.Body) > keepTextBytes) {
		d = nil
	}
	q.pending[p] = &queued{doc: d}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *embedQueue) drop(p string) {
	q.mu.Lock()
	delete(q.pending, p)
	q.mu.Unlock()
}

func (q *embedQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

func (q *embedQueue) paths() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]string, 0, len(q.pending))
	for p := range q.pending {
		out = append(out, p)
	}
	return out
}

func (q *embedQueue) stop() {
	q.cancel()
	<-q.done
}

// take gives up to embedBatch queued documents, in no particular order
// (sorting a 100,000-document queue for every batch cost more than the
// embedding). They stay queued until finish.
func (q *embedQueue) take() map[string]*queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return nil
	}
	out := make(map[string]*queued, min(len(q.pending), embedBatch))
	for p, e := range q.pending {
		if len(out) == embedBatch {
			break
		}
		out[p] = e
	}
	return out
}

// finish removes the documents taken, unless a newer version was queued
// meanwhile (that one stays for the next round).
func (q *embedQueue) finish(taken map[string]*queued) {
	q.mu.Lock()
	for p, d := range taken {
		if cur, ok := q.pending[p]; ok && cur == d {
			delete(q.pending, p)
		}
	}
	q.mu.Unlock()
}

// releaseAfter is how many documents embedded since the queue was last
// empty make it give the heap they freed back to the system once it
// empties: a first build's garbage (note texts, batches) would otherwise
// stay resident for the life of the process, the Go runtime keeping freed
// heap up to its next GC goal (issue 16: 109 MiB at 10,000 notes).
const releaseAfter = 1000

func (q *embedQueue) run() {
	defer close(q.done)
	pause := time.Duration(0)
	embedded := 0
	for {
		taken := q.take()
		if taken == nil {
			if embedded >= releaseAfter {
				debug.FreeOSMemory()
			}
			embedded = 0
			select {
			case <-q.ctx.Done():
				return
			case <-q.wake:
			}
			continue
		}
		if err := q.embed(taken); err != nil {
			if q.ctx.Err() != nil {
				return
			}
			pause = min(max(2*pause, time.Second), time.Minute)
			q.ix.logf("search vectors: %v; retrying in %s", err, pause)
			select {
			case <-q.ctx.Done():
				return
			case <-time.After(pause):
			}
			continue
		}
		pause = 0
		embedded += len(taken)
		q.finish(taken)
	}
}

// piece is one chunk to embed, and where its vector goes.
type piece struct {
	path string
	i    int
}

func (q *embedQueue) embed(taken map[string]*queued) error {
	ix := q.ix
	type job struct {
		doc    *Doc
		chunks []Chunk
		vecs   [][]float32
	}
	jobs := map[string]*job{}
	var texts []string
	var where []piece
	for p, e := range taken {
		if err := q.ctx.Err(); err != nil {
			return err // closing: loading 64 long notes would hold Close up
		}
		d := e.doc
		if d == nil && ix.opts.Load != nil {
			ld, err := ix.opts.Load(p)
			if err == nil && ld != nil {
				d = bounded(ld)
			}
		}
		ix.mu.RLock()
		m := ix.meta[p]
		ix.mu.RUnlock()
		if d == nil || m == nil || m.Version != d.Version {
			continue // gone, or changed again: its newer version is queued
		}
		j := &job{doc: d, chunks: Chunks(d.Body)}
		if len(j.chunks) == 0 {
			// A note with no body is found by its title alone.
			j.chunks = []Chunk{{Start: 0, End: 0}}
		}
		j.vecs = make([][]float32, len(j.chunks))
		jobs[p] = j
		for i, c := range j.chunks {
			texts = append(texts, chunkText(d, c))
			where = append(where, piece{p, i})
		}
	}
	for start := 0; start < len(texts); start += embedBatch {
		end := min(start+embedBatch, len(texts))
		vecs, err := ix.opts.Embedder.Embed(q.ctx, texts[start:end])
		if err != nil {
			return err
		}
		if len(vecs) != end-start {
			return fmt.Errorf("the embedder returned %d vectors for %d texts", len(vecs), end-start)
		}
		for k, v := range vecs {
			if len(v) != ix.vec.dims {
				return fmt.Errorf("the embedder returned a vector of %d dimensions, want %d (a changed model needs a restart)", len(v), ix.vec.dims)
			}
			w := where[start+k]
			jobs[w.path].vecs[w.i] = v
		}
	}
	for p, j := range jobs {
		// Under ix.mu, so an Apply cannot slip a newer record in between.
		ix.mu.RLock()
		if m := ix.meta[p]; m != nil && m.Version == j.doc.Version {
			ix.vec.put(p, j.doc.Version, j.chunks, j.vecs, m)
		}
		ix.mu.RUnlock()
	}
	return nil
}

// chunkText is what is embedded for a chunk: the note's title and the
// section's heading give the section its context. Both are bounded
// (maxTitleBytes, maxHeadingBytes): each chunk repeats them. The title's
// numbers are left out, as the lexical query leaves them out of titles
// (withoutNumbers): a note's number in a series ("D13:4", "Meeting 12")
// says nothing of what it holds, and in a short note's vector it weighed
// as much as a word of the text (LoCoMo's turns titled by number: semantic
// recall@10 0.394 against 0.414 with titles that carry none).
func chunkText(d *Doc, c Chunk) string {
	var b strings.Builder
	b.WriteString(titleWords(d.Title))
	if c.Heading != "" && c.Heading != d.Title {
		b.WriteString(". ")
		b.WriteString(c.Heading)
	}
	b.WriteString(". ")
	b.WriteString(d.Body[c.Start:c.End])
	return b.String()
}

// titleWords is a title less its numbers and the words that hold one,
// separated by spaces: in a title these are a note's place in a series
// ("D13:4" gives nothing, "Meeting 12" "Meeting", "Invoice B-0042"
// "Invoice"), and a word vector knows "d13" as a word of its own.
func titleWords(title string) string {
	var words []string
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		if strings.IndexFunc(w, unicode.IsNumber) < 0 {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}
