package vault

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

var (
	adoptNotes       = flag.Int("adopt-notes", 10000, "notes in BenchmarkAdoptFolder's vault")
	adoptAttachments = flag.Int("adopt-attachments", 200, "1 MiB attachments in BenchmarkAdoptFolder's vault")
)

// BenchmarkAdoptFolder adopts a folder of notes that is not a repository
// yet (an Obsidian vault: notes of about 1 KiB in 100 folders, attachments
// of 1 MiB, .obsidian/): the one commit of every file, as cairn init makes
// it. It reports the time, the peak heap during Init (every file is read
// for its blob) and the repository's size on disk after it.
//
//	go test ./vault -run '^$' -bench AdoptFolder -benchtime 1x
func BenchmarkAdoptFolder(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "vault")
		payload := makeObsidianFolder(b, dir, *adoptNotes, *adoptAttachments)
		runtime.GC()
		var peak uint64
		done := make(chan struct{})
		go func() { // sample the heap while Init runs
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
				select {
				case <-done:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		b.StartTimer()
		start := time.Now()
		res, err := Init(dir, InitOptions{})
		elapsed := time.Since(start)
		b.StopTimer()
		close(done)
		if err != nil || res.Notes != *adoptNotes {
			b.Fatalf("init: %+v %v", res, err)
		}
		b.ReportMetric(elapsed.Seconds(), "s/adoption")
		b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")
		b.ReportMetric(float64(payload)/(1<<20), "MiB-of-files")
		b.ReportMetric(float64(dirSize(filepath.Join(dir, ".git")))/(1<<20), "MiB-.git")
	}
}

func makeObsidianFolder(b *testing.B, dir string, notes, attachments int) int64 {
	r := rand.New(rand.NewSource(1))
	var total int64
	write := func(p string, data []byte) {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, data, 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(data))
	}
	write(".obsidian/app.json", []byte(`{"alwaysUpdateLinks":true}`))
	write(".obsidian/workspace.json", []byte(`{"main":{}}`))
	for i := 0; i < notes; i++ {
		body := fmt.Sprintf("---\ntags: [t%d]\n---\n# Note %d\n\n", i%50, i)
		for len(body) < 1024 {
			body += fmt.Sprintf("Words %d about [[Note %d]] and more. ", r.Intn(1e6), r.Intn(notes))
		}
		write(fmt.Sprintf("area %d/Note %d.md", i%100, i), []byte(body))
	}
	blob := make([]byte, 1<<20)
	for i := 0; i < attachments; i++ {
		r.Read(blob) // incompressible, as images are
		write(fmt.Sprintf("attachments/image %d.png", i), blob)
	}
	return total
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
