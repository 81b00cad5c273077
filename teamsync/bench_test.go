package teamsync

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

var benchNotes = flag.Int("sync-notes", 2000, "notes in the vault of the sync benchmarks")

// benchTeam is team with benchNotes more notes, pushed.
func benchTeam(b *testing.B) (*vault.Vault, *vault.Vault) {
	return team(b, func(a *vault.Vault) {
		var changes []gitstore.Change
		for i := range *benchNotes {
			changes = append(changes, gitstore.Change{Path: fmt.Sprintf("bulk/%03d/Note %d.md", i%100, i),
				Content: fmt.Appendf(nil, "# Note %d\n\nSome words about topic %d and [[Note %d]].\n", i, i%37, (i+1)%*benchNotes)})
		}
		if _, err := a.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "bench", Email: "b@x"}, Message: "bulk", Changes: changes}); err != nil {
			b.Fatal(err)
		}
		// Pack the bulk commit's loose objects now: else the first git
		// command of the loop starts a detached `git gc --auto` that is
		// still writing in .git when the benchmark's temp dir is removed.
		gitT(b, a.Root(), "gc", "-q")
	})
}

// BenchmarkNoopSync: a sync with nothing to bring in or send (a local
// remote). go test ./teamsync -run '^$' -bench NoopSync -sync-notes 10000
func BenchmarkNoopSync(b *testing.B) {
	a, _ := benchTeam(b)
	for b.Loop() {
		if _, err := Sync(context.Background(), a, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyncHundredEachSide: 100 notes changed on each side, then one
// sync of b (a merge), until the incoming notes are searchable there.
func BenchmarkSyncHundredEachSide(b *testing.B) {
	a, v := benchTeam(b)
	if _, err := v.SearchIndex(); err != nil {
		b.Fatal(err)
	}
	owner := access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "human", Tool: "bench"}
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		for _, side := range []*vault.Vault{a, v} {
			var changes []gitstore.Change
			for i := range 100 {
				changes = append(changes, gitstore.Change{Path: fmt.Sprintf("round/%s %d %d.md", filepath.Base(side.Root()), round, i),
					Content: fmt.Appendf(nil, "# %s %d %d\n\nzyzzyva%d marker\n", filepath.Base(side.Root()), round, i, round)})
			}
			if _, err := side.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "bench", Email: "b@x"}, Message: "round", Changes: changes}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := Sync(context.Background(), a, Options{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Sync(context.Background(), v, Options{}); err != nil {
			b.Fatal(err)
		}
		res, err := v.Search(context.Background(), owner, vault.SearchArgs{Query: fmt.Sprintf("zyzzyva%d", round), Mode: "lexical", Limit: 50})
		if err != nil || len(res.Results) == 0 {
			b.Fatalf("the incoming notes are not searchable: %v %v", res, err)
		}
	}
}
