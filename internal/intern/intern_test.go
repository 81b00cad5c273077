package intern

import (
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// Equal strings made apart come back as one copy, equal to what was given.
func TestEqualStringsShareOneCopy(t *testing.T) {
	a := strings.Repeat("tag", 3)
	b := strings.Repeat("ta", 1) + "gtagtag"
	if unsafe.StringData(a) == unsafe.StringData(b) {
		t.Fatal("the test's two strings share their bytes already")
	}
	ia, ib := String(a), String(b)
	if ia != a || ib != b {
		t.Fatalf("interned %q, %q from %q, %q", ia, ib, a, b)
	}
	if unsafe.StringData(ia) != unsafe.StringData(ib) {
		t.Error("two equal strings interned are two copies")
	}
	if String("") != "" || Strings(nil) != nil || Strings([]string{}) != nil {
		t.Error("nothing interned is not nothing")
	}
}

// Strings gives a new slice: the one given is never written.
func TestStringsLeavesItsArgumentAlone(t *testing.T) {
	in := []string{strings.Repeat("x", 2), "y"}
	keep := slices.Clone(in)
	out := Strings(in)
	if !slices.Equal(out, keep) {
		t.Fatalf("Strings(%q) = %q", keep, out)
	}
	out[0] = "changed"
	if in[0] != keep[0] || unsafe.StringData(in[0]) != unsafe.StringData(keep[0]) {
		t.Error("Strings wrote into the slice it was given")
	}
}
