package indexing

import (
	"bytes"
	"errors"
	"testing"
)

// A text is read from its file once, then from memory; what a read gives
// is the caller's (writing into it changes nothing kept); a forgotten text
// is read again; past the bound, texts are read every time.
func TestScanTextsKeepWhatTheyRead(t *testing.T) {
	files := map[string][]byte{"a.md": []byte("alpha"), "b.md": []byte("beta")}
	reads := map[string]int{}
	from := func(p string, buf []byte) ([]byte, error) {
		reads[p]++
		data, ok := files[p]
		if !ok {
			return nil, errors.New("no such file")
		}
		return append(buf[:0], data...), nil
	}
	c := newScanTexts()
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
	big := bytes.Repeat([]byte("x"), scanTextsBytes)
	files["big.md"] = big
	for range 2 {
		if got, err := c.read("big.md", nil, from); err != nil || len(got) != len(big) {
			t.Fatalf("big read: %d bytes, %v", len(got), err)
		}
	}
	if reads["big.md"] != 2 || c.held > scanTextsBytes {
		t.Fatalf("past the bound: %d file reads, %d bytes held (bound %d)", reads["big.md"], c.held, scanTextsBytes)
	}
	if c.held != len("changed on disk") {
		t.Fatalf("held %d bytes, want %d", c.held, len("changed on disk"))
	}
}
