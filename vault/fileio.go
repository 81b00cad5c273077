package vault

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// maxReadBytes bounds a file the vault reads as a note (a write is
// bounded by MaxNoteBytes; a larger file put there by hand is not read).
const maxReadBytes = 4 * MaxNoteBytes

// readFileNoFollow reads a regular file, refusing a symbolic link.
func readFileNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxReadBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxReadBytes)
	}
	// One buffer of the size stat gave, and room for the read that sees
	// the end: io.ReadAll grows from 512 bytes, five allocations for a
	// note of 8 KiB (0.4 GB of a 100,000-note build's garbage).
	var b bytes.Buffer
	b.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
