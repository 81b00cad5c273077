package indexing

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/notefile"
)

// A text is read from its file once, then from memory; what a read gives
// is the caller's (writing into it changes nothing kept); a forgotten text
// is read again; past the bound, texts are read every time.
func TestScanTextsKeepWhatTheyRead(t *testing.T) {
	files := map[string][]byte{"a.md": []byte("alpha"), "b.md": []byte("beta")}
	reads := map[string]int{}
	from := fileReader(files, reads)
	c := newScanTexts(nil, nil)
	got, err := c.read("a.md", nil, from)
	if err != nil || string(got) != "alpha" {
		t.Fatalf("first read: %q, %v", got, err)
	}
	got[0] = 'X' // the caller's buffer, reused for its next read
	files["a.md"] = []byte("changed on disk")
	again, err := c.read("a.md", make([]byte, 0, 64), from)
	if err != nil || string(again) != "alpha" || reads["a.md"] != 1 {
		t.Fatalf("second read: %q, %v after %d file reads; want the kept text, one file read", again, err, reads["a.md"])
	}
	c.forget("a.md")
	if again, _ = c.read("a.md", nil, from); string(again) != "changed on disk" || reads["a.md"] != 2 {
		t.Fatalf("after forget: %q after %d file reads", again, reads["a.md"])
	}
	if _, err := c.read("gone.md", nil, from); err == nil {
		t.Fatal("a file that cannot be read read as a text")
	}
	if _, kept := c.texts["gone.md"]; kept {
		t.Fatal("a failed read kept a text")
	}

	// The bound: a text that would pass it is read, not kept.
	big := bytes.Repeat([]byte("x"), ScanTextsBytes)
	files["big.md"] = big
	for range 2 {
		if got, err := c.read("big.md", nil, from); err != nil || len(got) != len(big) {
			t.Fatalf("big read: %d bytes, %v", len(got), err)
		}
	}
	if reads["big.md"] != 2 || c.held > ScanTextsBytes {
		t.Fatalf("past the bound: %d file reads, %d bytes held (bound %d)", reads["big.md"], c.held, ScanTextsBytes)
	}
	if c.held != len("changed on disk") {
		t.Fatalf("held %d bytes, want %d", c.held, len("changed on disk"))
	}
}

// A text the open read is taken without reading its file while the file
// is as the open read it (its stamp, checked once); changed or gone
// since, its file is read.
func TestScanTextsTakeTheOpensTextsWhileTheirFilesAreAsRead(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	stamps := map[string]notefile.Stamp{"same.md": {Size: 4, Mtime: t0}, "edited.md": {Size: 9, Mtime: t0.Add(time.Second)}}
	stats := map[string]int{}
	stat := func(p string) (notefile.Stamp, bool) {
		stats[p]++
		st, ok := stamps[p]
		return st, ok
	}
	files := map[string][]byte{"same.md": []byte("disk"), "edited.md": []byte("new words")}
	reads := map[string]int{}
	from := fileReader(files, reads)
	c := newScanTexts(map[string]OpenText{
		"same.md":   {Text: []byte("open"), Stamp: notefile.Stamp{Size: 4, Mtime: t0}},
		"edited.md": {Text: []byte("old"), Stamp: notefile.Stamp{Size: 3, Mtime: t0}},
		"gone.md":   {Text: []byte("gone"), Stamp: notefile.Stamp{Size: 4, Mtime: t0}},
	}, stat)
	for range 2 {
		if got, err := c.read("same.md", nil, from); err != nil || string(got) != "open" {
			t.Fatalf("same.md: %q, %v; want the open's text", got, err)
		}
	}
	if reads["same.md"] != 0 || stats["same.md"] != 1 {
		t.Fatalf("same.md: %d file reads, %d stats; want none and one", reads["same.md"], stats["same.md"])
	}
	if got, err := c.read("edited.md", nil, from); err != nil || string(got) != "new words" || reads["edited.md"] != 1 {
		t.Fatalf("edited.md: %q, %v after %d file reads; want its file read", got, err, reads["edited.md"])
	}
	if _, err := c.read("gone.md", nil, from); err == nil {
		t.Fatal("gone.md: the open's text read for a note gone since")
	}
	if c.held != len("open")+len("new words") {
		t.Fatalf("held %d bytes, want the open's text of same.md and edited.md's file", c.held)
	}
}

// fileReader reads files as a scan reads notes, counting the reads of each.
func fileReader(files map[string][]byte, reads map[string]int) func(string, []byte) ([]byte, error) {
	return func(p string, buf []byte) ([]byte, error) {
		reads[p]++
		data, ok := files[p]
		if !ok {
			return nil, errors.New("no such file")
		}
		return append(buf[:0], data...), nil
	}
}
