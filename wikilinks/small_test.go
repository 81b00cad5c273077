package wikilinks

import (
	"fmt"
	"maps"
	"testing"
)

// small behaves as a map through every change of size, the empty key
// and value included: checked against a Go map after each step.
func TestSmallIsAMap(t *testing.T) {
	var s small[string]
	want := map[string]string{}
	check := func(step string) {
		t.Helper()
		if got := maps.Collect(s.all()); !maps.Equal(got, want) || s.len() != len(want) {
			t.Fatalf("%s: holds %v (len %d), want %v", step, got, s.len(), want)
		}
		for k, v := range want {
			if got, ok := s.get(k); !ok || got != v {
				t.Fatalf("%s: get(%q) = %q, %v", step, k, got, ok)
			}
		}
		if _, ok := s.get("absent"); ok {
			t.Fatalf("%s: get(absent) found", step)
		}
	}
	ops := []struct {
		del  bool
		k, v string
	}{
		{false, "", ""}, {false, "", "x"}, {false, "a", ""}, {true, "", ""}, {true, "a", ""},
		{false, "a", "1"}, {true, "b", ""}, {false, "b", "2"}, {false, "c", "3"}, {true, "a", ""},
		{true, "b", ""}, {false, "c", "4"}, {true, "c", ""}, {true, "c", ""},
	}
	for i, op := range ops {
		if op.del {
			s.del(op.k)
			delete(want, op.k)
		} else {
			s.set(op.k, op.v)
			want[op.k] = op.v
		}
		check(fmt.Sprintf("step %d", i))
	}
	if s.many != nil || s.one {
		t.Fatalf("empty, yet holds %+v", s)
	}
	// drop removes the key of an empty small map.
	m := map[string]set{}
	put(m, "k", "id1", struct{}{})
	put(m, "k", "id2", struct{}{})
	drop(m, "k", "id1")
	drop(m, "k", "id2")
	if _, ok := m["k"]; ok {
		t.Fatal("an emptied set is still in its map")
	}
	// Iteration stops when asked.
	for range 3 {
		s.set(fmt.Sprint(s.len()), "v")
	}
	n := 0
	for range s.all() {
		n++
		break
	}
	if n != 1 {
		t.Fatalf("iteration went on after break: %d", n)
	}
}
