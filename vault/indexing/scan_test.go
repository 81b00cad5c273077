package indexing

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/search"
)

// listNotes is Notes over a list of paths in one scope, "root", with some
// written since the keeper last took them: what unindexed reads of a vault.
type listNotes struct {
	paths   []string
	changed []string
}

func (n listNotes) Doc(p string) (*search.Doc, error) { return &search.Doc{Path: p}, nil }

func (n listNotes) ScanDoc(p string, data []byte) *search.Doc { return &search.Doc{Path: p} }

func (n listNotes) Scopes() (ScopeFunc, string) {
	return func(string) (string, string, string) { return "root", "", "" }, ""
}

func (n listNotes) TakeChanged(map[string]bool, bool) (map[string]bool, map[string]Stamp) {
	return nil, nil
}

func (n listNotes) GiveBack([]string) {}

func (n listNotes) ChangedNotes() []string { return n.changed }

func (n listNotes) BySize(paths []string) ([]string, []string) { return paths, nil }

func (n listNotes) AllBySize() ([]string, []string) { return n.paths, nil }
func (n listNotes) OpenTexts() map[string]OpenText  { return nil }

func (n listNotes) Version(string) (string, bool) { return "", true }

// A bounded scan reads the notes the build reaches last first: the rest
// of the build is given from its end, after any note written meanwhile.
func TestUnindexedGivesTheBuildsRestFromItsEnd(t *testing.T) {
	todo := []string{"a/1.md", "a/2.md", "a/3.md", "a/4.md", "b/5.md"}
	k := New(listNotes{paths: todo, changed: []string{"a/3.md", "c/new.md"}}, Config{})
	b := &firstBuild{todo: todo}
	b.done.Store(1)
	u, fresh := k.unindexed(b, search.Filter{Scopes: []string{"root"}, PathPrefix: "a/"})
	if u == nil {
		t.Fatal("nothing unindexed")
	}
	want := []string{"a/3.md", "a/4.md", "a/2.md"} // written meanwhile, then the rest from its end
	if !slices.Equal(u.Paths, want) {
		t.Fatalf("unindexed gives\n%v\nwant\n%v", u.Paths, want)
	}
	if want := []string{"a/3.md", "c/new.md"}; !slices.Equal(fresh, want) {
		t.Fatalf("the notes to read from their file are %v, want %v", fresh, want)
	}
}
