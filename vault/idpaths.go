package vault

import "slices"

// idPaths lists the paths whose file carries each id (see catalog.idPaths).
// Nearly every id has one path: it is held as a string in one, and only
// ids with two paths or more have a slice in many. With a slice for every
// id, the catalog of 100,000 notes held 100,000 more objects, marked by
// the collector on every cycle of a fresh clone's build.
type idPaths struct {
	one  map[string]string   // an id carried by one path
	many map[string][]string // an id carried by two paths or more
}

func newIDPaths() idPaths {
	return idPaths{one: map[string]string{}, many: map[string][]string{}}
}

// add records that the file at p carries id.
func (x idPaths) add(id, p string) {
	if ps, ok := x.many[id]; ok {
		if !slices.Contains(ps, p) {
			x.many[id] = append(ps, p)
		}
		return
	}
	q, ok := x.one[id]
	switch {
	case !ok:
		x.one[id] = p
	case q != p:
		delete(x.one, id)
		x.many[id] = []string{q, p}
	}
}

// remove forgets that the file at p carries id, and says how many paths
// still carry it.
func (x idPaths) remove(id, p string) int {
	if ps, ok := x.many[id]; ok {
		ps = slices.DeleteFunc(ps, func(q string) bool { return q == p })
		if len(ps) == 1 {
			delete(x.many, id)
			x.one[id] = ps[0]
			return 1
		}
		x.many[id] = ps
		return len(ps)
	}
	if q, ok := x.one[id]; ok && q == p {
		delete(x.one, id)
	}
	if _, ok := x.one[id]; ok {
		return 1
	}
	return 0
}

// of lists the paths carrying id, in no particular order (a new slice).
func (x idPaths) of(id string) []string {
	if ps, ok := x.many[id]; ok {
		return slices.Clone(ps)
	}
	if q, ok := x.one[id]; ok {
		return []string{q}
	}
	return nil
}

// has says whether a path carries id (the tests ask it).
func (x idPaths) has(id string) bool {
	_, one := x.one[id]
	_, many := x.many[id]
	return one || many
}
