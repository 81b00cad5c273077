// Package notefile reads note files with the system calls alone, relative
// to a folder held open: reading 100,000 notes at a fresh clone's open, or
// scanning those a first build has not reached, through an os.File each
// costs as much again as the reading (the poller's registration, a
// finalizer, the path walked again for each). It builds on Linux and
// macOS (golang.org/x/sys/unix: openat, fstat and the stat's mtime are
// spelt alike on both).
package notefile

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Stamp is the size and modification time of a file as it was read.
type Stamp struct {
	Size  int64
	Mtime time.Time
}

// OpenDir opens the folder that ReadAt reads relative to; the caller
// closes it with CloseDir.
func OpenDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// CloseDir closes a folder OpenDir opened.
func CloseDir(fd int) error { return unix.Close(fd) }

// ErrTooLarge says a file is larger than the bound it was read with.
var ErrTooLarge = errors.New("larger than the bound")

// ReadAt reads the file at the slash-separated path p in the folder dir
// (OpenDir's), into buf when it is large enough: a regular file, no
// symbolic link as its last element, at most limit bytes. A file that
// grew since its size was read is read to its end (within limit). It
// returns the size and mtime the read saw.
func ReadAt(dir int, p string, buf []byte, limit int64) ([]byte, Stamp, error) {
	fd, err := openAt(dir, p)
	if err != nil {
		return nil, Stamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, Stamp{}, fmt.Errorf("read %s: %w", p, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, Stamp{}, fmt.Errorf("%s is not a regular file", p)
	}
	if st.Size > limit {
		return nil, Stamp{}, fmt.Errorf("%s is %w of %d bytes", p, ErrTooLarge, limit)
	}
	stamp := Stamp{st.Size, time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))}
	// One byte more than its size: a file that grew since is read to its
	// end.
	if need := int(st.Size) + 1; cap(buf) < need {
		buf = make([]byte, 0, need)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= limit {
				return nil, Stamp{}, fmt.Errorf("%s is %w of %d bytes", p, ErrTooLarge, limit)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		asked := cap(buf) - len(buf)
		k, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, Stamp{}, fmt.Errorf("read %s: %w", p, err)
		}
		if k == 0 {
			return buf, stamp, nil
		}
		buf = buf[:len(buf)+k]
		// A read that gave less than it was asked, having reached the
		// size fstat saw, met the end: no read more to be told so (one
		// system call of five a note, and a system call cost more than
		// the rest of a note's read on a machine where reading 100,000
		// notes took 4 s of the kernel's time). A file written since is
		// read as of then, as it would be by a read made a moment
		// earlier.
		if k < asked && int64(len(buf)) == st.Size {
			return buf, stamp, nil
		}
	}
}

func openAt(dir int, p string) (int, error) {
	for {
		fd, err := unix.Openat(dir, p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
