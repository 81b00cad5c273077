package vault_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/note"
)

var idsNotes = flag.Int("ids-notes", 10000, "notes in BenchmarkRepairDuplicateIDs's vault")

// BenchmarkRepairDuplicateIDs is what the id check adds to every sync
// (twice: before the fetch and after integrating): "none" with no copy in
// the vault (a no-op sync's case), "one" finding one copy and committing
// its repair (a new copy is committed between rounds, outside the timer,
// and handed in as a sync hands in what it brought).
//
//	go test ./vault -run '^$' -bench RepairDuplicateIDs -ids-notes 10000
func BenchmarkRepairDuplicateIDs(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < *idsNotes; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i%100), fmt.Sprintf("Note %05d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := fmt.Sprintf("---\nid: %s\n---\n# Note %05d\n\nSome words about note %d, see [[Note %05d]].\n", note.NewID(), i, i, (i+1)%*idsNotes)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := vault.Init(dir, vault.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	b.Run("none", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if got, err := v.RepairDuplicateIDs("bench", nil); err != nil || len(got) != 0 {
				b.Fatalf("%+v %v", got, err)
			}
		}
	})
	orig, err := os.ReadFile(filepath.Join(dir, "f00", "Note 00000.md"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("one", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			cp := fmt.Sprintf("f00/Note 00000 copy %d.md", i)
			if _, err := v.Store().Commit(gitstore.CommitRequest{Author: gitstore.Signature{Name: "b", Email: "b@x"}, Message: "copy",
				Changes: []gitstore.Change{{Path: cp, Content: orig}}}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			got, err := v.RepairDuplicateIDs("bench", []string{cp})
			if err != nil || len(got) != 1 || !got[0].Repaired {
				b.Fatalf("%+v %v", got, err)
			}
		}
	})
}
