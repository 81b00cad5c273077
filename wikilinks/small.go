package wikilinks

import "iter"

// small is a map from strings that most often holds one entry: the graph's
// indexes map a title, a file name or a link's key to the notes that have
// it, and nearly always there is one. That entry is held inline; a Go map
// is made from the second. With a map per key, even of one entry (about
// 250 bytes), the graph of 100,000 notes took 106 MiB of heap; it takes 42
// MiB this way, and the collector scans that much less on every cycle
// (issue 16).
type small[V any] struct {
	k    string
	v    V
	one  bool         // k and v hold an entry (many is nil)
	many map[string]V // two entries or more
}

// set is a set of note ids.
type set = small[struct{}]

func (s *small[V]) set(k string, v V) {
	switch {
	case s.many != nil:
		s.many[k] = v
	case !s.one || s.k == k:
		s.k, s.v, s.one = k, v, true
	default:
		s.many = map[string]V{s.k: s.v, k: v}
		s.clearOne()
	}
}

func (s *small[V]) clearOne() {
	var zero V
	s.k, s.v, s.one = "", zero, false
}

func (s *small[V]) get(k string) (V, bool) {
	if s.many != nil {
		v, ok := s.many[k]
		return v, ok
	}
	if s.one && s.k == k {
		return s.v, true
	}
	var zero V
	return zero, false
}

func (s *small[V]) del(k string) {
	if s.many == nil {
		if s.one && s.k == k {
			s.clearOne()
		}
		return
	}
	delete(s.many, k)
	if len(s.many) == 1 { // back inline
		for k, v := range s.many {
			s.k, s.v, s.one = k, v, true
		}
		s.many = nil
	}
}

func (s *small[V]) len() int {
	if s.many != nil {
		return len(s.many)
	}
	if s.one {
		return 1
	}
	return 0
}

// all yields the entries, in no particular order.
func (s small[V]) all() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if s.many == nil {
			if s.one {
				yield(s.k, s.v)
			}
			return
		}
		for k, v := range s.many {
			if !yield(k, v) {
				return
			}
		}
	}
}

// keys yields the keys, in no particular order.
func (s small[V]) keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range s.all() {
			if !yield(k) {
				return
			}
		}
	}
}

// put sets k's entry in the small map of m at key.
func put[K comparable, V any](m map[K]small[V], key K, k string, v V) {
	s := m[key]
	s.set(k, v)
	m[key] = s
}

// drop removes k's entry from the small map of m at key, and the small
// map once empty.
func drop[K comparable, V any](m map[K]small[V], key K, k string) {
	s, ok := m[key]
	if !ok {
		return
	}
	s.del(k)
	if s.len() == 0 {
		delete(m, key)
	} else {
		m[key] = s
	}
}
