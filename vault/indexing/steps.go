package indexing

import "github.com/cairn-dev/cairn/search"

// steps reads a build's notes one step ahead of the step Bleve indexes,
// and maps and analyses them there (search.Prepare). Bleve builds a
// step's segment on one goroutine; reading, parsing and analysing the
// next step's notes meanwhile takes the other core. Reading ahead alone
// took 3.5 s of a served 100,000-note build's CPU off the build's path;
// analysing ahead too, where Bleve's Batch analysed a step on every core
// and only then built its segment, made `cairn search`'s 100,000-note
// build about an eighth shorter (docs/benchmarks.md, "The next step
// analysed while Bleve builds").
//
// A note is read at most one step earlier than it was: its changes since
// reach the index as any change during a build does (the vault re-reads
// it and the next update indexes it again).
type steps struct {
	k       *Keeper
	ix      *search.Index
	paths   []string
	ahead   chan readStep // the step at aheadAt, being read; nil when none
	aheadAt int
}

// readStep is a step read, and its batch prepared.
type readStep struct {
	docs []*search.Doc
	st   *search.Prepared
	err  error
}

func (k *Keeper) stepsOf(ix *search.Index, paths []string) *steps {
	return &steps{k: k, ix: ix, paths: paths}
}

// read reads the notes of paths and prepares their batch.
func (s *steps) read(paths []string) readStep {
	docs := s.k.docs(paths)
	st, err := s.ix.Prepare(docs)
	return readStep{docs, st, err}
}

// step returns the documents of the step starting at paths[i] (Step
// notes at most) and their batch prepared for ApplyPrepared, and starts
// reading the next one.
func (s *steps) step(i int) ([]*search.Doc, *search.Prepared, error) {
	var p readStep
	if s.ahead != nil && s.aheadAt == i {
		p = <-s.ahead
		s.ahead = nil
	} else {
		s.stop()
		p = s.read(s.paths[i:min(i+Step, len(s.paths))])
	}
	if j := i + Step; j < len(s.paths) && p.err == nil {
		ch := make(chan readStep, 1)
		go func() { ch <- s.read(s.paths[j:min(j+Step, len(s.paths))]) }()
		s.ahead, s.aheadAt = ch, j
	}
	return p.docs, p.st, p.err
}

// stop waits for the step being read ahead, if any, and drops it: a
// build that ends early leaves nothing reading behind it.
func (s *steps) stop() {
	if s.ahead != nil {
		<-s.ahead
		s.ahead = nil
	}
}
