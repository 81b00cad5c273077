package indexing

import "github.com/cairn-dev/cairn/search"

// steps reads a build's notes one step ahead of the step Bleve indexes.
// Bleve analyses a step on every core, then builds its segment on one
// goroutine; reading and parsing the next step's notes then takes the
// other core, where before the build read them only once the segment was
// built (a profile of a fresh 100,000-note clone served: 3.5 s of CPU
// reading and parsing notes, 17.6 s building segments).
//
// A note is read at most one step earlier than it was: its changes since
// reach the index as any change during a build does (the vault re-reads
// it and the next update indexes it again).
type steps struct {
	k       *Keeper
	paths   []string
	ahead   chan []*search.Doc // the step at aheadAt, being read; nil when none
	aheadAt int
}

func (k *Keeper) stepsOf(paths []string) *steps {
	return &steps{k: k, paths: paths}
}

// step returns the documents of the step starting at paths[i] (Step
// notes at most) and starts reading the next one.
func (s *steps) step(i int) []*search.Doc {
	var docs []*search.Doc
	if s.ahead != nil && s.aheadAt == i {
		docs = <-s.ahead
		s.ahead = nil
	} else {
		s.stop()
		docs = s.k.docs(s.paths[i:min(i+Step, len(s.paths))])
	}
	if j := i + Step; j < len(s.paths) {
		ch := make(chan []*search.Doc, 1)
		go func() { ch <- s.k.docs(s.paths[j:min(j+Step, len(s.paths))]) }()
		s.ahead, s.aheadAt = ch, j
	}
	return docs
}

// stop waits for the step being read ahead, if any, and drops it: a
// build that ends early leaves nothing reading behind it.
func (s *steps) stop() {
	if s.ahead != nil {
		<-s.ahead
		s.ahead = nil
	}
}
