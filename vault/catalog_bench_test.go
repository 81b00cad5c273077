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

// BenchmarkCatalogPersist writes a catalog of 100,000 notes shaped as
// bench/corpus makes them, and reports the longest a put waited for the
// catalog's lock meanwhile (lock-wait-ms; one tried every 2 ms): persist
// holds it only for its copy of the entries. Before, it held it for the
// whole save, whose time is ns/op.
//
//	go test ./vault -run '^$' -bench CatalogPersist -benchtime 3x
func BenchmarkCatalogPersist(b *testing.B) {
	const notes = 100000
	c := loadCatalog(filepath.Join(b.TempDir(), "catalog.json"))
	summary := func(i int) (string, note.Summary) {
		p := fmt.Sprintf("space/f%03d/Note %06d.md", i%1000, i)
		return p, note.Summary{ID: note.DerivedID(p), Title: strings.TrimSuffix(filepath.Base(p), ".md"), Type: "note", Tags: []string{fmt.Sprintf("t%d", i%10)}}
	}
	for i := range notes {
		p, s := summary(i)
		c.put(p, s, fileStamp{Size: 2000, Mtime: time.Unix(int64(i), 0)})
	}
	var worst time.Duration
	for b.Loop() {
		c.unsaved = 1 // a change to save
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p, s := summary(i % notes)
				t0 := time.Now()
				c.mu.Lock()
				worst = max(worst, time.Since(t0))
				c.put(p, s, fileStamp{Size: 2000, Mtime: time.Unix(int64(i), 0)})
				c.mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		}()
		if err := c.persist(true); err != nil {
			b.Fatal(err)
		}
		close(stop)
		<-stopped
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "lock-wait-ms")
}
