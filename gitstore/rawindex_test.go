package gitstore

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// TestSpliceMatchesAModel splices random creates, edits and removals
// (first, last, absent and conflicted paths included) into indexes go-git
// encoded, and checks what go-git's decoder reads back, checksum included,
// against a map of what each path should hold.
func TestSpliceMatchesAModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	hashOf := func(s string) plumbing.Hash { return blobHash([]byte(s)) }
	for round := 0; round < 200; round++ {
		model := map[string]plumbing.Hash{}
		idx := &index.Index{Version: 2}
		n := rng.Intn(40)
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("d%d/n%03d.md", rng.Intn(3), rng.Intn(100))
			if _, dup := model[name]; dup {
				continue
			}
			model[name] = hashOf(name)
			idx.Entries = append(idx.Entries, &index.Entry{Name: name, Hash: model[name], Mode: filemode.Regular})
		}
		conflicted := ""
		if n > 0 && rng.Intn(3) == 0 { // a path in conflict: stages 1 to 3, no stage 0
			conflicted = fmt.Sprintf("d%d/zconflict.md", rng.Intn(3))
			for stage := index.AncestorMode; stage <= index.TheirMode; stage++ {
				idx.Entries = append(idx.Entries, &index.Entry{Name: conflicted, Hash: hashOf(fmt.Sprint(conflicted, stage)), Mode: filemode.Regular, Stage: stage})
			}
		}
		sort.SliceStable(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
		var buf bytes.Buffer
		if err := index.NewEncoder(&buf).Encode(idx); err != nil {
			t.Fatal(err)
		}
		pi, err := parseIndex(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var updates []indexUpdate
		seen := map[string]bool{}
		for k := rng.Intn(6); k >= 0; k-- {
			name := fmt.Sprintf("d%d/n%03d.md", rng.Intn(3), rng.Intn(100))
			if k == 0 && conflicted != "" {
				name = conflicted
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			if rng.Intn(3) == 0 {
				updates = append(updates, indexUpdate{name: name, del: true})
				delete(model, name)
				if name == conflicted {
					conflicted = ""
				}
				continue
			}
			h := hashOf(name + "v2")
			updates = append(updates, indexUpdate{name: name, hash: h})
			model[name] = h
			if name == conflicted {
				conflicted = ""
			}
		}
		var spare *parsedIndex
		if round%2 == 1 {
			spare, _ = parseIndex(append([]byte(nil), buf.Bytes()...))
		}
		out := pi.splice(updates, spare)
		got, err := readIndexBytes(out.data)
		if err != nil {
			t.Fatalf("round %d: go-git cannot read the spliced index: %v", round, err)
		}
		want := map[string]plumbing.Hash{}
		for name, h := range model {
			want[name] = h
		}
		gotMap := map[string]plumbing.Hash{}
		for i, e := range got.Entries {
			if i > 0 && got.Entries[i-1].Name > e.Name {
				t.Fatalf("round %d: entries out of order: %q before %q", round, got.Entries[i-1].Name, e.Name)
			}
			if e.Name == conflicted {
				continue // left alone: not updated this round
			}
			gotMap[e.Name] = e.Hash
		}
		if fmt.Sprint(gotMap) != fmt.Sprint(want) {
			t.Fatalf("round %d: after %v\n got %v\nwant %v", round, updates, gotMap, want)
		}
		// The spans the splice returns are those a fresh scan finds.
		again, err := parseIndex(out.data)
		if err != nil || fmt.Sprint(again.entries) != fmt.Sprint(out.entries) {
			t.Fatalf("round %d: spans %v, a scan finds %v (%v)", round, out.entries, again.entries, err)
		}
	}
}

func readIndexBytes(data []byte) (*index.Index, error) {
	idx := &index.Index{}
	return idx, index.NewDecoder(bytes.NewReader(data)).Decode(idx)
}
