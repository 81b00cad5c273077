package gitstore

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// writeLooseObject stores one object as git does (zlib of "type size\0data"
// under objects/xx/yyyy), synced to disk before it is renamed into place so
// a crash never leaves a branch naming a missing object. go-git's own
// object writer does not sync.
func writeLooseObject(gitDir string, t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, data)
	hex := h.String()
	dir := filepath.Join(gitDir, "objects", hex[:2])
	final := filepath.Join(dir, hex[2:])
	if _, err := os.Lstat(final); err == nil {
		return h, nil
	}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	zw.Write([]byte(t.String() + " " + strconv.Itoa(len(data)) + "\x00"))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return h, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return h, err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return h, err
	}
	tmp := f.Name()
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		os.Remove(tmp)
		return h, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return h, err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return h, err
	}
	os.Chmod(tmp, 0o444)
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return h, fmt.Errorf("store object %s: %w", hex, err)
	}
	return h, nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder, synced, then renamed over path: a reader (or a crash) sees the old
// content or the new, never half of it. An existing file keeps its mode.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".cairn-tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(dir)
	return nil
}

func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// lockFile takes an exclusive flock on path (created if missing) and returns
// its release. An empty path locks nothing.
func lockFile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("write lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("write lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("write lock: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
