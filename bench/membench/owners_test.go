package main

import (
	"runtime"
	"testing"
)

func TestOwnerOfTakesTheFirstRuleAnyFrameMatches(t *testing.T) {
	for _, c := range []struct {
		stack []string // innermost first
		want  string
	}{
		// A commit decoded through go-git's pack reader under the walk
		// cache is go-git's: its LRU keeps what the pack reader made.
		{[]string{"runtime.mallocgc", gogit + "plumbing/format/packfile.(*Packfile).objectAtOffset", cairn + "gitstore.(*Store).commitChanges"}, "go-git: object LRU and packfile reads (96 MiB bound)"},
		{[]string{"runtime.mallocgc", gogit + "plumbing/object.(*Commit).Decode", cairn + "gitstore.(*Store).commitChanges"}, "gitstore: commit-diff cache (walkCache)"},
		// The graph before the catalog whose scan feeds it.
		{[]string{"internal/runtime/maps.newarray", cairn + "wikilinks.add", cairn + "wikilinks.(*Graph).Set", cairn + "vault.(*catalog).put"}, "wikilinks: link graph"},
		{[]string{cairn + "vault.addPath", cairn + "vault.(*catalog).put", cairn + "vault.(*catalog).sync"}, "vault: catalog (entries, their parsed links, ids)"},
		{[]string{cairn + "vault/note.TitleOf", cairn + "vault/note.Parse", cairn + "vault.(*catalog).sync"}, "note.TitleOf: titles (catalog, graph)"},
		// What reading a note for the index left live, whatever kept it.
		{[]string{cairn + "vault/note.TitleOf", cairn + "vault/note.Parse", cairn + "vault.(*Vault).searchDoc", cairn + "search.(*embedQueue).embed"}, "vault.searchDoc: note texts read for the index, still held"},
		{[]string{"runtime.mallocgc", "github.com/blevesearch/zapx/v16.(*interim).convert", cairn + "search.(*Index).apply"}, "Bleve (in heap)"},
		{[]string{"runtime.mallocgc", "regexp.compile", "github.com/yuin/goldmark/parser.init"}, "other: github.com/yuin/goldmark/parser"},
		{[]string{"runtime.malg", "runtime.newproc1"}, "other: runtime"},
	} {
		if got := ownerOf(c.stack); got != c.want {
			t.Errorf("ownerOf(%v) = %q, want %q", c.stack, got, c.want)
		}
	}
}

func TestPkgOf(t *testing.T) {
	for fn, want := range map[string]string{
		cairn + "vault.(*catalog).put":          cairn + "vault",
		"gopkg.in/yaml%2ev3.(*parser).parse":    "gopkg.in/yaml%2ev3",
		"runtime.mallocgc":                      "runtime",
		"internal/runtime/maps.newarray":        "internal/runtime/maps",
		"github.com/a/b.init.func1":             "github.com/a/b",
		"github.com/a/b.(*T[...]).Method.func2": "github.com/a/b",
	} {
		if got := pkgOf(fn); got != want {
			t.Errorf("pkgOf(%q) = %q, want %q", fn, got, want)
		}
	}
}

// sink keeps the test's allocation alive until the profile is read.
var sink [][]byte

// A live allocation of this test is found in the profile at its size,
// with the test as its allocation site.
func TestAttributeFindsALiveAllocation(t *testing.T) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	for i := 0; i < 64; i++ {
		sink = append(sink, make([]byte, 64<<10))
	}
	runtime.GC()
	runtime.GC()
	var found uint64
	for _, o := range attribute(heapRecords()) {
		for _, s := range o.Sites {
			if s.Func == "github.com/cairn-dev/cairn/bench/membench.TestAttributeFindsALiveAllocation" {
				found += s.Bytes
			}
		}
	}
	sink = nil
	if found < 4<<20 || found > 5<<20 {
		t.Fatalf("the test's 4 MiB found as %d bytes", found)
	}
}

func TestReadMapsFindsTheExecutable(t *testing.T) {
	maps, err := readMaps(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := readStatus()
	if err != nil {
		t.Fatal(err)
	}
	var rss uint64
	kinds := map[string]bool{}
	for _, m := range maps {
		rss += m.Rss
		kinds[m.Kind] = true
	}
	if !kinds[mapBinary] || !kinds[mapAnon] {
		t.Fatalf("kinds %v: want the executable and anonymous memory", kinds)
	}
	// The mappings' Rss sums to VmRSS, give or take what moved between the
	// two reads.
	if rss < st["VmRSS"]/2 || rss > st["VmRSS"]*2 {
		t.Fatalf("smaps Rss %d against VmRSS %d", rss, st["VmRSS"])
	}
}
