package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestAReadDuringASaveInThreeWritesSeesAWholeVersion: an editor saves a
// note in place in three writes (truncate and write the start, a pause,
// the middle, a pause, the end), round after round, while an agent reads
// it as fast as it can. Every read is one whole version, never a save cut
// in its middle: a read waits for the file to be quiet first. The editor
// saves at least six times, and on until the agent has read ten times
// (a loaded machine may give the reader few turns in six saves).
func TestAReadDuringASaveInThreeWritesSeesAWholeVersion(t *testing.T) {
	v, dir := sampleVault(t)
	note := "acme/launch/Pricing.md"
	full := filepath.Join(dir, note)
	base := readFile(t, full)
	const minReads, maxSaves = 10, 200
	done, quit := make(chan struct{}), make(chan struct{})
	defer func() { close(quit); <-done }()
	var reads atomic.Int64
	saves := 0
	go func() {
		defer close(done)
		for k := 0; k < maxSaves && (k < 6 || reads.Load() < minReads); k++ {
			saves = k + 1
			select {
			case <-quit:
				return
			default:
			}
			content := fmt.Sprintf("%s\nSTART-%d\n%s\nMIDDLE-%d\n%s\nEND-%d\n", base, k, strings.Repeat("one ", 200), k, strings.Repeat("two ", 200), k)
			third := len(content) / 3
			f, err := os.OpenFile(full, os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				t.Error(err)
				return
			}
			for i, part := range []string{content[:third], content[third : 2*third], content[2*third:]} {
				if i > 0 {
					time.Sleep(testQuiet / 3)
				}
				f.Write([]byte(part))
			}
			f.Close()
			time.Sleep(2 * testQuiet)
		}
	}()
	for {
		select {
		case <-done:
			if reads.Load() < minReads {
				t.Fatalf("only %d reads in %d saves", reads.Load(), saves)
			}
			t.Logf("%d reads in %d saves, each a whole version", reads.Load(), saves)
			return
		default:
		}
		n, err := v.GetNote(owner, note, false, "")
		if err != nil {
			var be *BusyError
			if errors.As(err, &be) {
				continue // saved again and again past the wait: nothing read
			}
			t.Fatal(err)
		}
		reads.Add(1)
		for k := 0; k < maxSaves; k++ {
			if strings.Contains(n.Content, fmt.Sprintf("START-%d\n", k)) != strings.Contains(n.Content, fmt.Sprintf("END-%d\n", k)) {
				t.Fatalf("read %d returned part of save %d:\n...%s", reads.Load(), k, n.Content[max(0, len(n.Content)-200):])
			}
		}
	}
}
