package search

// Tests of what an open does after a crash (reconcile.go); their notes
// and helpers are in world_test.go.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// changesAfterSave are the updates a crash loses from the manifest:
// notes of the sequence edited (their neighbours' context changes),
// others edited twice, deleted, added; and note 15 edited to link 16
// (which gets 15's text as context, at the same version).
func changesAfterSave(t testing.TB, ix *Index, w *world) {
	t.Helper()
	w.change(t, ix, map[int]int{3: 2, 20: 2, 21: 2}, []int{7, 30})
	w.change(t, ix, map[int]int{21: 3, 40: 1, 41: 1}, []int{5})
	w.change(t, ix, map[int]int{4: 2}, nil)
	w.link = [2]int{15, 16}
	w.change(t, ix, map[int]int{15: 2}, nil)
}

// changesWhileDown are edits made while no process ran: one note edited,
// and 15 edited again to drop its link to 16, which no version
// comparison tells about 16 (the manifest's 15 never linked it).
func changesWhileDown(w *world) {
	w.ver[10] = 2
	w.ver[15] = 3
	w.link = [2]int{}
}

// Bleve ahead of its manifest (saved before the last updates, which
// Bleve has on disk): the open reconciles them instead of rebuilding, and
// after the sync the index answers as a fresh build does, vectors
// included.
func TestCrashWithBleveAheadIsReconciled(t *testing.T) {
	dir := t.TempDir()
	w := newWorld(40)
	emb := builtinT(t)
	ix, _ := openT(t, dir, emb, w.load)
	if err := ix.Apply(w.docs(), nil); err != nil {
		t.Fatal(err)
	}
	ix.WaitVectors(time.Minute)
	if err := ix.Persist(); err != nil {
		t.Fatal(err)
	}
	changesAfterSave(t, ix, w)
	ix.WaitVectors(time.Minute)
	crash(t, ix)
	changesWhileDown(w)

	ix, lb := openT(t, dir, emb, w.load)
	defer ix.Close()
	if ix.Rebuilt() != "" {
		t.Fatalf("rebuilt: %s", ix.Rebuilt())
	}
	if ix.Reconciled() == 0 || !strings.Contains(lb.String(), "out of step") {
		t.Fatalf("reconciled %d; log %q", ix.Reconciled(), lb)
	}
	syncTo(t, ix, w)
	ix.QueueMissingVectors()
	checkWorld(t, ix, w, 3)
	sameAsFresh(t, ix, w, emb)
}

// Bleve behind its manifest (the last batches never reached the disk, or
// Close's wait for them ran out): the same.
func TestCrashWithBleveBehindIsReconciled(t *testing.T) {
	dir := t.TempDir()
	w := newWorld(40)
	emb := builtinT(t)
	ix, _ := openT(t, dir, emb, w.load)
	if err := ix.Apply(w.docs(), nil); err != nil {
		t.Fatal(err)
	}
	ix.WaitVectors(time.Minute)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "bleve")
	copyDir(t, filepath.Join(dir, "bleve"), old)

	ix, _ = openT(t, dir, emb, w.load)
	changesAfterSave(t, ix, w)
	ix.WaitVectors(time.Minute)
	if err := ix.Persist(); err != nil {
		t.Fatal(err)
	}
	crash(t, ix)
	copyDir(t, old, filepath.Join(dir, "bleve")) // Bleve as it was before the updates
	changesWhileDown(w)

	ix, lb := openT(t, dir, emb, w.load)
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Reconciled() == 0 || !strings.Contains(lb.String(), "out of step") {
		t.Fatalf("rebuilt %q, reconciled %d; log %q", ix.Rebuilt(), ix.Reconciled(), lb)
	}
	syncTo(t, ix, w)
	ix.QueueMissingVectors()
	checkWorld(t, ix, w, 3)
	sameAsFresh(t, ix, w, emb)
}

// The two sides agree on the change counter, yet a long note's batch
// (ApplyLarge, which moves no counter in Bleve) reached Bleve and not the
// manifest, at the same version: as when the lane indexes a long note
// again because a neighbour changed. Only the update tokens tell; the
// note is indexed again from what it is now.
func TestLongNoteAheadOfItsRecordIsReconciled(t *testing.T) {
	dir := t.TempDir()
	w := newWorld(40)
	ix, _ := openT(t, dir, nil, nil)
	if err := ix.Apply(w.docs(), nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.Persist(); err != nil {
		t.Fatal(err)
	}
	d := w.doc(20)
	d.Context = "a neighbour's text the notes no longer hold: quetzal"
	if err := ix.ApplyLarge(d); err != nil {
		t.Fatal(err)
	}
	if got := lexFind(t, ix, "quetzal"); !slices.Equal(got, []string{d.Path}) {
		t.Fatalf("before the crash: %v", got)
	}
	crash(t, ix)
	m, err := readManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if bseq := bleveSeq(t, filepath.Join(dir, "bleve")); bseq != m.Seq || m.Docs[d.Path].Version != d.Version {
		t.Fatalf("the premise: Bleve at change %d, the manifest at %d, version %q", bseq, m.Seq, m.Docs[d.Path].Version)
	}

	ix, _ = openT(t, dir, nil, nil)
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Version(d.Path) != "" {
		t.Fatalf("rebuilt %q; version %q (want out of step)", ix.Rebuilt(), ix.Version(d.Path))
	}
	syncTo(t, ix, w)
	if got := lexFind(t, ix, "quetzal"); len(got) != 0 {
		t.Errorf("after the sync, Bleve's copy the manifest did not know is still found: %v", got)
	}
	checkWorld(t, ix, w, 1)
	sameAsFresh(t, ix, w, nil)
}

// bleveSeq reads Bleve's change counter in a closed index.
func bleveSeq(t testing.TB, dir string) uint64 {
	t.Helper()
	b, err := bleve.OpenUsing(dir, scorchConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	raw, err := b.GetInternal([]byte(seqKey))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	fmt.Sscan(string(raw), &n)
	return n
}

// A note's change marks its sequence neighbours, whose context holds its
// text, until they are indexed again (the vault does so right after, in
// another batch, or in the lane for long notes). A stop between the two,
// clean or not, leaves the marks in the manifest, and the next open has
// those neighbours indexed again.
func TestNeighboursLeftWaitingAreIndexedAgain(t *testing.T) {
	for _, stop := range []string{"close", "crash"} {
		t.Run(stop, func(t *testing.T) {
			dir := t.TempDir()
			w := newWorld(40)
			ix, _ := openT(t, dir, nil, nil)
			if err := ix.Apply(w.docs(), nil); err != nil {
				t.Fatal(err)
			}
			w.ver[3] = 2
			if err := ix.Apply([]*Doc{w.doc(3)}, nil); err != nil { // not 2 and 4 yet
				t.Fatal(err)
			}
			if stop == "close" {
				if err := ix.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := ix.Persist(); err != nil {
					t.Fatal(err)
				}
				crash(t, ix)
			}
			ix, lb := openT(t, dir, nil, nil)
			defer ix.Close()
			if ix.Rebuilt() != "" || ix.Reconciled() != 2 || ix.Version(notePath(2)) != "" || ix.Version(notePath(4)) != "" || ix.Version(notePath(3)) != "2" {
				t.Fatalf("rebuilt %q, reconciled %d; versions of 2, 3, 4: %q %q %q", ix.Rebuilt(), ix.Reconciled(), ix.Version(notePath(2)), ix.Version(notePath(3)), ix.Version(notePath(4)))
			}
			if lb.String() != "" {
				t.Errorf("nothing was out of step, yet: %s", lb)
			}
			syncTo(t, ix, w)
			checkWorld(t, ix, w, 2)
			sameAsFresh(t, ix, w, nil)
		})
	}
}

// Once the neighbours are indexed again, nothing waits: a clean stop and
// a new start index nothing again.
func TestNothingWaitsOnceNeighboursAreIndexed(t *testing.T) {
	dir := t.TempDir()
	w := newWorld(40)
	ix, _ := openT(t, dir, nil, nil)
	if err := ix.Apply(w.docs(), nil); err != nil {
		t.Fatal(err)
	}
	w.change(t, ix, map[int]int{3: 2, 12: 2}, []int{6})
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, lb := openT(t, dir, nil, nil)
	defer ix.Close()
	if ix.Rebuilt() != "" || ix.Reconciled() != 0 || lb.String() != "" {
		t.Fatalf("rebuilt %q, reconciled %d, log %q", ix.Rebuilt(), ix.Reconciled(), lb)
	}
	checkWorld(t, ix, w, 2)
}

// What cannot be reconciled is rebuilt: no manifest, a damaged one, one
// of another format (an older cairn's: its Bleve documents carry no
// update token), a Bleve folder that does not open.
func TestUnreconcilableIndexIsRebuilt(t *testing.T) {
	for _, c := range []struct {
		name, reason string
		spoil        func(dir string) error
	}{
		{"no manifest", "no manifest", func(dir string) error { return os.Remove(filepath.Join(dir, "manifest.json")) }},
		{"damaged manifest", "damaged", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format":5,"docs":{`), 0o644)
		}},
		{"older format", "format 4", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format":4,"seq":3,"docs":{}}`), 0o644)
		}},
		{"damaged index", "index:", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "bleve", "index_meta.json"), []byte("{"), 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w := newWorld(10)
			ix, _ := openT(t, dir, nil, nil)
			if err := ix.Apply(w.docs(), nil); err != nil {
				t.Fatal(err)
			}
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
			if err := c.spoil(dir); err != nil {
				t.Fatal(err)
			}
			ix, lb := openT(t, dir, nil, nil)
			defer ix.Close()
			if !strings.Contains(ix.Rebuilt(), c.reason) || ix.Len() != 0 || !strings.Contains(lb.String(), "rebuilding") {
				t.Fatalf("rebuilt %q (want %q), %d documents, log %q", ix.Rebuilt(), c.reason, ix.Len(), lb)
			}
			if got := lexFind(t, ix, word(1, 1)); len(got) != 0 {
				t.Errorf("the old index's documents are still found: %v", got)
			}
		})
	}
}
