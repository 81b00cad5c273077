package indexing_test

import "testing"

// A build from nothing lets Bleve's persister nap between its writes
// (search/buildnap.go); once the open's build is done, and after a
// Rebuild, the index serving writes does not nap: a write's batch goes to
// the disk at once.
func TestTheIndexNapsOnlyWhileItIsBuilt(t *testing.T) {
	v, _ := sampleVault(t)
	ix, err := v.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if ix.Rebuilt() == "" {
		t.Fatal("the sample vault's first index was not built from nothing")
	}
	if ix.Napping() {
		t.Error("the first build is done and the index still naps")
	}
	if err := v.Rebuild(func(string, int, int) {}); err != nil {
		t.Fatal(err)
	}
	if ix, err = v.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	if ix.Napping() {
		t.Error("the index a Rebuild swapped in naps")
	}
}
