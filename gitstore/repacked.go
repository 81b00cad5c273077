package gitstore

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// git gc (a person's, or git's own `gc --auto` after their `git commit`,
// or `git maintenance`) packs the loose objects cairn's writes made and
// deletes them, and may merge the packs into a new one. go-git lists the
// packs once, at its first read from a pack, and looks an object up in
// those packs, then among the loose objects: after a gc, an object that
// was loose is in neither, and every write failed ("read HEAD commit:
// object not found") until the server restarted, as did the history of
// every note written since it started.
//
// So go-git reads the list again and looks once more when an object is
// not found while the pack folder lists other packs than when go-git
// last read it; when a pack it indexed is gone ("packfile not found":
// git merged it away), whatever the folder held when cairn last listed
// it; and when an object over 16 KiB, which go-git finds in a pack it
// holds open but reads by the pack's name, cannot be read because that
// file is gone (packedObject). An object really missing costs a listing
// of the pack folder.
//
// A gc running back to back with cairn's reads (a loop of `git gc`, as in
// TestWritesBesideAGitGCLoseNothing) can remove the pack go-git has just
// listed before go-git opens it: one read may then need the packs read
// more than once (maxRereads).

// maxRereads bounds how often one read has go-git read the packs again:
// a folder that lists a pack whose file stays missing (a broken
// repository) must end in an error, not a loop.
const maxRereads = 8

// repackAware is go-git's storage, reading the packs again after a
// repack. Like go-git's, it is used under the store's lock.
type repackAware struct {
	*filesystem.Storage
	packDir string

	mu    sync.Mutex
	packs []string // the pack folder's names when go-git last read it

	afterReread func() // tests: runs after go-git's index was dropped
}

func newRepackAware(st *filesystem.Storage, gitDir string) *repackAware {
	r := &repackAware{Storage: st, packDir: filepath.Join(gitDir, "objects", "pack")}
	r.packs = r.list()
	return r
}

// list is the pack folder's names, sorted (nil when it cannot be read).
func (r *repackAware) list() []string {
	entries, err := os.ReadDir(r.packDir)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// repacked says whether err may come from packs go-git no longer sees as
// they are, and if so, after the pack folder changed, has go-git read
// them again.
func (r *repackAware) repacked(err error) bool {
	// A pack go-git indexed is gone: its index is stale whatever the
	// folder held when cairn last listed it (go-git lists it lazily, so
	// may have seen a pack made and removed since).
	gone := errors.Is(err, dotgit.ErrPackfileNotFound)
	if !gone && !errors.Is(err, plumbing.ErrObjectNotFound) && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	now := r.list()
	r.mu.Lock()
	changed := !slices.Equal(now, r.packs)
	r.packs = now
	r.mu.Unlock()
	if !changed && !gone {
		return false
	}
	// The packs held open stay so (maxOpenPacks): an object already handed
	// out and read through one git removed still reads (one read by the
	// pack's name is packedObject's case).
	r.Storage.Reindex()
	if r.afterReread != nil {
		r.afterReread()
	}
	return true
}

// Reindex is go-git's, the pack folder's names noted (a fetch's new pack).
func (r *repackAware) Reindex() {
	now := r.list()
	r.mu.Lock()
	r.packs = now
	r.mu.Unlock()
	r.Storage.Reindex()
}

func (r *repackAware) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := r.find(t, h)
	if _, big := o.(*packfile.FSObject); big && err == nil {
		o = packedObject{o, r}
	}
	return o, err
}

// find is go-git's EncodedObject, the packs read again while the error
// says they changed.
func (r *repackAware) find(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return reread(r, func() (plumbing.EncodedObject, error) { return r.Storage.EncodedObject(t, h) })
}

// reread is get's answer, get asked again after go-git read the packs
// again, while its error says they changed (at most maxRereads times).
func reread[T any](r *repackAware, get func() (T, error)) (T, error) {
	v, err := get()
	for i := 0; err != nil && i < maxRereads && r.repacked(err); i++ {
		v, err = get()
	}
	return v, err
}

// packedObject is an object over 16 KiB go-git found in a pack (a large
// note, a folder tree of some 400 notes or more): go-git hands it out
// unread, naming its pack file, and opens that file again by name when
// it is read. A gc since the packs were last listed may have removed
// that file while go-git holds it open, so that the object is found but
// cannot be read ("open .../pack-….pack: no such file or directory"), and
// would not be until some other object was not found. Its read, failing
// so, has go-git read the packs again and look once more.
type packedObject struct {
	plumbing.EncodedObject
	r *repackAware
}

func (o packedObject) Reader() (io.ReadCloser, error) {
	rc, err := o.EncodedObject.Reader()
	for i := 0; err != nil && i < maxRereads && errors.Is(err, fs.ErrNotExist); i++ {
		o.r.Reindex()
		again, findErr := o.r.find(o.Type(), o.Hash())
		if findErr != nil {
			return nil, findErr
		}
		rc, err = again.Reader()
	}
	return rc, err
}

func (r *repackAware) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	return reread(r, func() (int64, error) { return r.Storage.EncodedObjectSize(h) })
}

func (r *repackAware) HasEncodedObject(h plumbing.Hash) error {
	_, err := reread(r, func() (struct{}, error) { return struct{}{}, r.Storage.HasEncodedObject(h) })
	return err
}
