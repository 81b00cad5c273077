package vault_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

var crashNotes = flag.Int("crash-notes", 2000, "notes in BenchmarkOpenAfterCrash's vault")

// BenchmarkOpenAfterCrash times a vault's start with its search index as
// a killed server leaves it: the manifest saved before the last writes
// (20 notes created, 10 edited), Bleve holding them ("crashed"). Beside it,
// the same start after a clean stop ("clean": the open's comparison of
// Bleve with the manifest is paid by every start), and with the manifest
// gone ("rebuilt": what a crash cost before, a build from the notes). It
// reports the vault's open, the index ready (open, reconciled or built,
// brought up to date with the notes) and the first search answered, each
// from the start, and the documents the open found out of step.
//
//	go test ./vault -run '^$' -bench OpenAfterCrash -benchtime 3x -crash-notes 10000
func BenchmarkOpenAfterCrash(b *testing.B) {
	sents, err := corpus.Sentences(*rebuildData)
	if err != nil {
		b.Skipf("no sentences to make notes of: %v", err)
	}
	dir := b.TempDir()
	if err := corpus.Generate(dir, *crashNotes, 300, sents, rand.New(rand.NewSource(int64(*crashNotes)))); err != nil {
		b.Fatal(err)
	}
	if _, err := vault.Init(dir, vault.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	idx := filepath.Join(dir, vault.CacheDir, "search")
	snaps := b.TempDir()
	crashedState(b, dir, idx, snaps, sents)
	for _, state := range []string{"crashed", "clean", "rebuilt"} {
		b.Run(state, func(b *testing.B) {
			var open, ready, first time.Duration
			reconciled := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				replaceDir(b, filepath.Join(snaps, state), idx)
				b.StartTimer()
				t0 := time.Now()
				v, err := vault.Open(dir, vault.Options{Exclusive: true})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				ix, err := v.SearchIndex()
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				c := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "bench"}
				if _, err := v.Search(context.Background(), c, vault.SearchArgs{Query: "what did they say about the weekend", Limit: 10}); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				b.StopTimer()
				if state != "rebuilt" && ix.Rebuilt() != "" {
					b.Fatalf("%s: rebuilt (%s)", state, ix.Rebuilt())
				}
				reconciled = ix.Reconciled()
				open += t1.Sub(t0)
				ready += t2.Sub(t0)
				first += t3.Sub(t0)
				v.Close()
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(open.Seconds()/n, "open-s")
			b.ReportMetric(ready.Seconds()/n, "index-ready-s")
			b.ReportMetric(first.Seconds()/n, "first-search-s")
			b.ReportMetric(float64(reconciled), "out-of-step-docs")
		})
	}
}

// crashedState builds the vault's index and vectors, saves them, makes
// the writes a crash loses from the manifest, and keeps three copies of
// the index folder in snaps: crashed (Bleve ahead of its manifest), clean
// (as a clean stop leaves it), rebuilt (no manifest).
func crashedState(b *testing.B, dir, idx, snaps string, sents []string) {
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	if err != nil {
		b.Fatal(err)
	}
	ix, err := v.SearchIndex()
	if err != nil {
		b.Fatal(err)
	}
	if !ix.WaitVectors(30 * time.Minute) {
		b.Fatal("vectors not made")
	}
	if err := v.Persist(); err != nil {
		b.Fatal(err)
	}
	saved := b.TempDir()
	for _, f := range []string{"manifest.json", "vectors.bin"} {
		copyFile(b, filepath.Join(idx, f), filepath.Join(saved, f))
	}
	c := access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "agent", Tool: "bench"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		if _, err := v.CreateNote(c, vault.CreateArgs{Project: "space", Path: "new", Body: fmt.Sprintf("# Written %d\n\n%s\n", i, corpus.Query(rng, sents))}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 10; i++ {
		ref := fmt.Sprintf("space/f%03d/Note %06d.md", i, i)
		n, err := v.GetNote(c, ref, false, "")
		if err != nil {
			b.Fatal(err)
		}
		s := "\n\nEdited: " + corpus.Query(rng, sents)
		if _, err := v.EditNote(c, vault.EditArgs{Ref: ref, VersionToken: n.VersionToken, Operation: vault.OpAppend, Content: &s}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := v.Search(context.Background(), c, vault.SearchArgs{Query: "edited", Limit: 1}); err != nil {
		b.Fatal(err) // the index holds the writes
	}
	if !ix.WaitVectors(time.Minute) {
		b.Fatal("vectors not made")
	}
	if err := v.Close(); err != nil {
		b.Fatal(err)
	}
	copyDirB(b, idx, filepath.Join(snaps, "clean"))
	copyDirB(b, idx, filepath.Join(snaps, "crashed"))
	for _, f := range []string{"manifest.json", "vectors.bin"} {
		copyFile(b, filepath.Join(saved, f), filepath.Join(snaps, "crashed", f))
	}
	copyDirB(b, idx, filepath.Join(snaps, "rebuilt"))
	if err := os.Remove(filepath.Join(snaps, "rebuilt", "manifest.json")); err != nil {
		b.Fatal(err)
	}
}

func copyFile(b *testing.B, from, to string) {
	data, err := os.ReadFile(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

func copyDirB(b *testing.B, from, to string) {
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		b.Fatal(err)
	}
}

func replaceDir(b *testing.B, from, to string) {
	if err := os.RemoveAll(to); err != nil {
		b.Fatal(err)
	}
	copyDirB(b, from, to)
}
