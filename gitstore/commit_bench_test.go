package gitstore

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var commitFiles = flag.Int("commit-files", 10000, "files in BenchmarkCommitOneNote's repository")

// BenchmarkCommitOneNote is the cost of a write in a big vault: one note
// created or edited (alternately) in a repository of -commit-files files
// spread over 100 folders, the git index holding them all. Issue 16 asks
// that it not grow with the vault:
//
//	go test ./gitstore -run '^$' -bench CommitOneNote -commit-files 50000
func BenchmarkCommitOneNote(b *testing.B) {
	dir := b.TempDir()
	s, err := Init(dir, Options{CacheFile: filepath.Join(dir, ".cairn/cache/versions.json"), LockFile: filepath.Join(dir, ".cairn/cache/write.lock")})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".cairn/\n"), 0o644)
	changes := []Change{{Path: ".gitignore", Content: []byte(".cairn/\n")}}
	for i := 0; i < *commitFiles; i++ {
		changes = append(changes, Change{Path: fmt.Sprintf("f%02d/Note %06d.md", i%100, i), Content: []byte(fmt.Sprintf("# Note %d\n\nSome words about note %d.\n", i, i))})
	}
	commitAll(b, s, changes)
	i := 0
	for b.Loop() {
		var c Change
		if i%2 == 0 {
			c = Change{Path: fmt.Sprintf("new/Added %06d.md", i), Content: []byte(fmt.Sprintf("# Added %d\n", i))}
		} else {
			n := i % *commitFiles
			p := fmt.Sprintf("f%02d/Note %06d.md", n%100, n)
			v, _, err := s.Version(p)
			if err != nil {
				b.Fatal(err)
			}
			c = Change{Path: p, Content: []byte(fmt.Sprintf("# Note %d\n\nEdited %d.\n", n, i)), CheckVersion: true, ExpectVersion: v, RequireClean: true}
		}
		if _, err := s.Commit(CommitRequest{Author: Signature{"bench", "bench@cairn.local"}, Message: "one", Changes: []Change{c}}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// commitAll is the benchmark's setup, a function of its own so that a
// profile can leave it out (go tool pprof -ignore commitAll).
func commitAll(b *testing.B, s *Store, changes []Change) {
	if _, err := s.Commit(CommitRequest{Author: Signature{"bench", "bench@cairn.local"}, Message: "notes", Changes: changes}); err != nil {
		b.Fatal(err)
	}
}
