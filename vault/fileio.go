package vault

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

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
	if fi.Size() > 4*MaxNoteBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, 4*MaxNoteBytes)
	}
	return io.ReadAll(f)
}
