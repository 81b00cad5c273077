package vault

import (
	"slices"
	"strings"
	"testing"
)

// A long note waiting for the lane (package vault/indexing, lane.go) is found meanwhile, read
// from disk, by those who may read it only; once indexed, as before.
func TestLongNoteIsFoundBeforeTheLaneIndexesIt(t *testing.T) {
	v, dir := sampleVault(t)
	v.SearchIndex()
	held, release := holdLane(t, v)
	writeByHand(t, v, dir, map[string]string{"long": "# Long\n\nThe hornwort census.\n\n" + strings.Repeat("papaya words ", 20000)})
	if p := heldT(t, held); p != "acme/long.md" {
		t.Fatalf("the lane holds %s", p)
	}
	r := searchT(t, v, owner, SearchArgs{Query: "hornwort census"})
	if got := resultPaths(r); len(got) == 0 || got[0] != "acme/long.md" || r.IndexPending != 1 {
		t.Errorf("with the long note held: %v, %d pending", got, r.IndexPending)
	}
	if r := searchT(t, v, sam, SearchArgs{Query: "hornwort census"}); slices.Contains(resultPaths(r), "acme/long.md") || r.IndexPending != 0 {
		t.Errorf("sam, who cannot read acme, is shown %v, %d pending", resultPaths(r), r.IndexPending)
	}
	release <- struct{}{}
	waitLaneT(t, v)
	if r := searchT(t, v, owner, SearchArgs{Query: "hornwort census"}); len(r.Results) == 0 || r.Results[0].Path != "acme/long.md" || r.IndexPending != 0 {
		t.Errorf("once indexed: %v, %d pending", resultPaths(r), r.IndexPending)
	}
}
