package vault

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
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
	return io.ReadAll(f)
}

// openDir opens a folder for readNoteAt.
func openDir(dir string) (int, error) {
	return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
}

// readNoteAt reads the note at the slash-separated path p in the folder
// dir (openDir's), into buf when it is large enough, as readFileNoFollow
// does (a regular file, no symbolic link as its last element, bounded),
// with the system calls alone: an os.File costs as much again (the
// poller's registration, a finalizer), which reading 100,000 notes at an
// open feels. It returns the file's size and mtime as it read them.
func readNoteAt(dir int, p string, buf []byte) ([]byte, fileStamp, error) {
	fd, err := syscall.Openat(dir, p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fileStamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fileStamp{}, fmt.Errorf("%s is not a regular file", p)
	}
	if st.Size > maxReadBytes {
		return nil, fileStamp{}, fmt.Errorf("%s is larger than %d bytes", p, maxReadBytes)
	}
	stamp := fileStamp{st.Size, time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))}
	// One byte more than its size: a file that grew since is read to its
	// end, as readFileNoFollow reads it.
	if need := int(st.Size) + 1; cap(buf) < need {
		buf = make([]byte, 0, need)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= maxReadBytes {
				return nil, fileStamp{}, fmt.Errorf("%s is larger than %d bytes", p, maxReadBytes)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		k, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fileStamp{}, fmt.Errorf("read %s: %w", p, err)
		}
		if k == 0 {
			return buf, stamp, nil
		}
		buf = buf[:len(buf)+k]
	}
}
