package gitstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// batch holds the files of one commit (its new objects, then the notes'
// new contents) written to temporary files, not yet synced. flush syncs
// them all at once, renames them into place and syncs their folders: a
// crash never leaves a branch naming a missing object or a commit whose
// file was not renamed. Concurrent fsyncs share the file system's journal
// commits, so eight files cost little more than one. (go-git's own object
// writer does not sync at all.)
type batch struct {
	// nonce names the temporary files of one commit (see writeLock), so
	// that the leftovers of a commit whose process died are known as such.
	nonce string
	files []pendingFile
	seen  map[string]bool
	// beforeRename, if set, runs after the syncs and before the first
	// rename; an error aborts the flush with nothing renamed.
	beforeRename func() error
}

type pendingFile struct {
	f          *os.File
	tmp, final string
}

// stage writes data to a temporary file in dir that flush renames to final.
func (b *batch) stage(dir, pattern, final string, data []byte, perm os.FileMode) error {
	if b.seen[final] {
		return nil
	}
	f, err := createIn(dir, pattern)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err == nil {
		err = f.Chmod(perm)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	b.seen[final] = true
	pf := pendingFile{f: f, tmp: f.Name(), final: final}
	if len(b.files) >= maxOpenStaged {
		// A large commit (a first import, a big folder move): sync and
		// close as we go rather than hold thousands of files open.
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(pf.tmp)
			return err
		}
		pf.f = nil
	}
	b.files = append(b.files, pf)
	return nil
}

// createIn is os.CreateTemp in dir, making dir again when it is gone: git
// gc (prune) removes the empty folders of .git/objects, and may do so
// between the caller's MkdirAll and the file's creation; git's own
// object writes make the folder again too (odb_mkstemp).
func createIn(dir, pattern string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := os.CreateTemp(dir, pattern)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || try == 3 {
			return f, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
}

// maxOpenStaged bounds the files a batch keeps open for its final,
// concurrent sync.
const maxOpenStaged = 64

// flush syncs every staged file, renames each into place in the order
// staged, and syncs the folders they went to.
func (b *batch) flush() error {
	if err := parallel(min(len(b.files), maxOpenStaged), func(i int) error { return b.files[i].f.Sync() }); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if b.beforeRename != nil {
		if err := b.beforeRename(); err != nil {
			return err
		}
	}
	dirs := map[string]bool{}
	for i := range b.files {
		pf := &b.files[i]
		if pf.f != nil {
			if err := pf.f.Close(); err != nil {
				return err
			}
			pf.f = nil
		}
		if err := os.Rename(pf.tmp, pf.final); err != nil {
			return fmt.Errorf("rename into place: %w", err)
		}
		pf.tmp = ""
		crashPoint("renamed " + filepath.Base(pf.final))
		dirs[filepath.Dir(pf.final)] = true
	}
	var list []string
	for d := range dirs {
		list = append(list, d)
	}
	b.files = nil
	return parallel(len(list), func(i int) error { syncDir(list[i]); return nil })
}

// abort removes what flush did not put in place.
func (b *batch) abort() {
	for _, pf := range b.files {
		if pf.f != nil {
			pf.f.Close()
		}
		if pf.tmp != "" {
			os.Remove(pf.tmp)
		}
	}
	b.files = nil
}

func parallel(n int, f func(i int) error) error {
	if n == 1 {
		return f(0)
	}
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func(i int) { errs <- f(i) }(i)
	}
	var first error
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// zlibWriters are reused from one object to the next: a new writer
// allocates about a megabyte of compressor state, and a write of one note
// stores five objects or so (issue 16 measured 5.6 MiB of garbage per
// write from them, which the heap then grew to hold).
var zlibWriters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return zw
}}

// stageObject stages one object as git stores it (zlib of "type size\0data"
// under objects/xx/yyyy), unless the object exists already.
func (s *Store) stageObject(b *batch, t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, data)
	hex := h.String()
	dir := filepath.Join(s.gitDir, "objects", hex[:2])
	final := filepath.Join(dir, hex[2:])
	// An object already there is freshened, as git does: git gc prunes
	// unreachable loose objects by their age, and one an old aborted write
	// left could otherwise go while the commit that now needs it lands.
	// Gone meanwhile (packed, or pruned), it is written again.
	if now := time.Now(); os.Chtimes(final, now, now) == nil {
		return h, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64) // grown once more at most: text deflates to under half
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(&buf)
	zw.Write([]byte(t.String() + " " + strconv.Itoa(len(data)) + "\x00"))
	zw.Write(data)
	err := zw.Close()
	zlibWriters.Put(zw)
	if err != nil {
		return h, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return h, err
	}
	if err := b.stage(dir, tempObjectPrefix+b.nonce+"-", final, buf.Bytes(), 0o444); err != nil {
		return h, fmt.Errorf("store object %s: %w", hex, err)
	}
	return h, nil
}

// Temporary files of a commit: git's own prefix for objects (so `git gc`
// would prune one as it prunes git's) and a hidden name beside a note,
// both followed by the commit's nonce.
const (
	tempObjectPrefix = "tmp_obj_cairn-"
	tempNoteMarker   = ".cairn-tmp-"
)

// tempNotePattern is the pattern of a note's temporary file.
func tempNotePattern(name, nonce string) string {
	if nonce == "" {
		return "." + name + tempNoteMarker
	}
	return "." + name + tempNoteMarker + nonce + "-"
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder, synced, then renamed over path: a reader (or a crash) sees the old
// content or the new, never half of it. An existing file keeps its mode.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	var b batch
	defer b.abort()
	if err := b.stage(filepath.Dir(path), tempNotePattern(filepath.Base(path), ""), path, data, perm); err != nil {
		return err
	}
	return b.flush()
}

func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
