package vault

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/note"
)

// BenchmarkCatalogHeldObjects reports the heap objects the catalog and
// its link graph hold for each note (objects/note), for notes shaped as
// bench/corpus makes them (a title, a type, a tag, an id; no links). The
// collector marks every one of them on each of its cycles, and a fresh
// clone's build runs hundreds (docs/memory.md, "What a server holds").
//
//	go test ./vault -run '^$' -bench CatalogHeldObjects
func BenchmarkCatalogHeldObjects(b *testing.B) {
	const notes = 20000
	for b.Loop() {
		before := liveObjects()
		c := loadCatalog(filepath.Join(b.TempDir(), "none.json"))
		for i := range notes {
			p := fmt.Sprintf("space/f%03d/Note %06d.md", i%100, i)
			// Each value made apart, as a parse makes it.
			s := note.Summary{
				ID:    note.DerivedID(p),
				Title: strings.TrimSuffix(filepath.Base(p), ".md"),
				Type:  strings.Clone("note"),
				Tags:  []string{fmt.Sprintf("t%d", i%10)},
			}
			c.put(p, s, fileStamp{Size: 2000, Mtime: time.Unix(int64(i), 0)})
		}
		held := liveObjects() - before
		runtime.KeepAlive(c)
		b.ReportMetric(float64(held)/notes, "objects/note")
	}
}

// liveObjects is how many objects the heap holds after a full collection.
func liveObjects() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapObjects
}
