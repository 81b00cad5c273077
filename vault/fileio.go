package vault

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/cairn-dev/cairn/internal/notefile"
)

// maxReadBytes bounds a file the vault reads as a note (a write is
// bounded by MaxNoteBytes; a larger file put there by hand is not read).
const maxReadBytes = 4 * MaxNoteBytes

// readFileNoFollow reads a regular file, refusing a symbolic link. The
// index reads its notes relative to the vault's folder instead
// (rootDir), with fewer system calls.
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

// rootDir is a descriptor of the vault's folder, opened at its first use
// and held until Close, that the index reads its notes relative to
// (notefile.ReadAt: openat, fstat, read, close), where an lstat and a
// read by path through an os.File were eleven system calls (the poller's
// fcntls and epoll_ctl, a read to see the end) and the path walked twice.
//
// Held for the vault's life, not opened per read (two system calls
// more): the vault's root is fixed at Open (v.root is never set again),
// and a vault already holds its folder as it was when opened (the host
// lock's file, the watcher's inotify watches), so a folder moved or
// replaced under a running vault is not followed by these reads either.
// Close closes it under the write lock, so no read uses its number once
// it is closed (and maybe reused); a read after Close, or when the folder
// cannot be opened, reads by path as before.
type rootDir struct {
	mu     sync.RWMutex
	fd     int
	open   bool
	closed bool
}

// acquire gives the descriptor of the folder root, read-locked (release
// it with r.mu.RUnlock), or ok false, unlocked, when there is none.
func (r *rootDir) acquire(root string) (fd int, ok bool) {
	r.mu.RLock()
	if r.open {
		return r.fd, true
	}
	r.mu.RUnlock()
	r.mu.Lock()
	if !r.open && !r.closed {
		// A failure (out of descriptors) is tried again at the next read.
		if fd, err := notefile.OpenDir(root); err == nil {
			r.fd, r.open = fd, true
		}
	}
	r.mu.Unlock()
	r.mu.RLock()
	if r.open {
		return r.fd, true
	}
	r.mu.RUnlock()
	return -1, false
}

// close closes the descriptor; reads after it go by path.
func (r *rootDir) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open {
		notefile.CloseDir(r.fd)
		r.open = false
	}
	r.closed = true
}

// readBufs are the buffers the index and a search's hits read their
// notes into (withNoteBytes): what they make of a note keeps no part of
// the bytes, so each is used again.
var readBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuf bounds a buffer kept in readBufs: a rare large note's is
// left to the collector.
const maxPooledBuf = 64 << 10

// withNoteBytes reads the note at p as readNote does, into a buffer of
// readBufs, and calls fn with its bytes and their stamp. fn must keep no
// part of the bytes: the buffer is used again.
func (v *Vault) withNoteBytes(p string, fn func(data []byte, st fileStamp)) error {
	bp := readBufs.Get().(*[]byte)
	data, st, err := v.readNote(p, *bp)
	if err != nil {
		readBufs.Put(bp)
		return err
	}
	fn(data, st)
	if cap(data) <= maxPooledBuf {
		*bp = data[:0]
		readBufs.Put(bp)
	}
	return nil
}

// readNote reads the note at the slash-separated path p as
// readFileNoFollow reads its file (a regular file, no symbolic link as
// its last element, at most maxReadBytes), relative to the vault's
// folder, into buf; with the size and mtime of what it read.
func (v *Vault) readNote(p string, buf []byte) ([]byte, fileStamp, error) {
	// A path that is not clean and local (absolute, "..", "./") is read
	// by path as ever: openat might not read it where filepath.Join does.
	if filepath.IsLocal(p) && path.Clean(p) == p {
		if dir, ok := v.rootDir.acquire(v.root); ok {
			data, st, err := notefile.ReadAt(dir, p, buf, maxReadBytes)
			v.rootDir.mu.RUnlock()
			return data, st, err
		}
	}
	full := v.abs(p)
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, fileStamp{}, err
	}
	data, err := readFileNoFollow(full)
	if err != nil {
		return nil, fileStamp{}, err
	}
	return data, stampOfInfo(fi), nil
}
