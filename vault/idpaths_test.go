package vault

import (
	"slices"
	"testing"
)

// idPaths holds one path inline and moves to a slice at the second, back
// at one; what it lists is what a set of paths per id would.
func TestIDPathsFollowASetOfPaths(t *testing.T) {
	x := newIDPaths()
	want := map[string][]string{}
	check := func(step string) {
		t.Helper()
		for _, id := range []string{"a", "b"} {
			got := x.of(id)
			slices.Sort(got)
			w := slices.Sorted(slices.Values(want[id]))
			if !slices.Equal(got, w) || x.has(id) != (len(w) > 0) {
				t.Fatalf("%s: %s has %v (has %v), want %v", step, id, got, x.has(id), w)
			}
			if _, one := x.one[id]; one && len(w) != 1 {
				t.Fatalf("%s: %s inline with %d paths", step, id, len(w))
			}
			if _, many := x.many[id]; many && len(w) < 2 {
				t.Fatalf("%s: %s in a slice with %d paths", step, id, len(w))
			}
		}
	}
	add := func(id, p string) {
		x.add(id, p)
		if !slices.Contains(want[id], p) {
			want[id] = append(want[id], p)
		}
		check("add " + id + " " + p)
	}
	remove := func(id, p, step string) {
		n := x.remove(id, p)
		want[id] = slices.DeleteFunc(want[id], func(q string) bool { return q == p })
		if n != len(want[id]) {
			t.Fatalf("%s: remove says %d paths left, want %d", step, n, len(want[id]))
		}
		check(step)
	}
	add("a", "x.md")
	add("a", "x.md")
	add("b", "y.md")
	add("a", "copy.md")
	add("a", "third.md")
	remove("a", "nowhere.md", "remove a path that does not carry a")
	remove("a", "x.md", "remove the first of three")
	remove("a", "third.md", "back to one")
	remove("b", "x.md", "remove another path than b's")
	remove("a", "copy.md", "none left")
	remove("a", "copy.md", "remove from none")
	add("a", "x.md")
}
