package search

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// napsOf is how many naps the persister of ix has ended, whether they ran
// their course or were broken by the merger.
func napsOf(t *testing.T, ix *Index) uint64 {
	t.Helper()
	adv, err := ix.bleve.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	st := adv.(*scorch.Scorch).Stats().(*scorch.Stats)
	return atomic.LoadUint64(&st.TotPersisterNapPauseCompleted) + atomic.LoadUint64(&st.TotPersisterMergerNapBreak)
}

// onDisk applies one document and waits until Bleve has it on disk.
func onDisk(t *testing.T, ix *Index, i int) {
	t.Helper()
	if err := ix.Apply([]*Doc{{Path: fmt.Sprintf("n/%d.md", i), Version: "1", Scope: "s", Title: "nap", Body: "words"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.waitPersisted(time.Minute); err != nil {
		t.Fatal(err)
	}
}

// An index built from nothing lets Bleve's persister nap between its
// writes, and BuildDone ends that for good: after it, a batch reaches the
// disk with no nap before it. This pins how BuildDone turns Bleve's nap
// off (Scorch.NumEventsBlocking, buildnap.go): an upgrade of Bleve that
// reads its events otherwise fails here.
func TestTheNapEndsWithTheBuild(t *testing.T) {
	dir := t.TempDir()
	ix, _ := openT(t, dir, nil, nil)
	if ix.Rebuilt() == "" || !ix.Napping() {
		t.Fatalf("a new index must nap while it is built: rebuilt %q, napping %v", ix.Rebuilt(), ix.Napping())
	}
	for i := range 3 {
		onDisk(t, ix, i)
	}
	if napsOf(t, ix) == 0 {
		t.Fatal("three batches reached the disk and the persister never napped: the build's nap is not set")
	}
	ix.BuildDone()
	if ix.Napping() {
		t.Fatal("BuildDone left the index napping")
	}
	onDisk(t, ix, 3) // after a nap begun before BuildDone, if one was
	before := napsOf(t, ix)
	for i := 4; i < 8; i++ {
		onDisk(t, ix, i)
	}
	if n := napsOf(t, ix) - before; n != 0 {
		t.Fatalf("the persister napped %d times after BuildDone", n)
	}
	ix.BuildDone() // again: nothing more
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	// Opened warm, an index never naps.
	ix, _ = openT(t, dir, nil, nil)
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Napping() {
		t.Fatalf("a warm open: rebuilt %q, napping %v", ix.Rebuilt(), ix.Napping())
	}
	before = napsOf(t, ix)
	for i := 8; i < 11; i++ {
		onDisk(t, ix, i)
	}
	if n := napsOf(t, ix) - before; n != 0 {
		t.Fatalf("an index opened warm napped %d times", n)
	}
}
