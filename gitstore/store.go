package gitstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Options tune where a Store keeps its derived state.
type Options struct {
	// CacheFile is where the version map is persisted between runs. Empty
	// means never persisted (the map is rebuilt on each Open).
	CacheFile string
	// LockFile is taken (flock) around every commit so that two processes
	// never write the same vault at once. Empty means no cross-process lock.
	LockFile string
	// Identity, when set, names what a file is beyond its content (a
	// note's id): a deleted and an added file with the same identity in
	// one commit are reported as a rename (see Walk).
	Identity func(head []byte) string
	// Protected, when set, says why a fetched commit may not write path
	// ("" when it may): the vault's machine-only files under another
	// spelling. Advance refuses such a commit whole (incoming.go).
	Protected func(path string) string
}

// Store is one git work tree.
type Store struct {
	dir    string // work tree root, absolute
	gitDir string
	opts   Options

	// saving is held by Persist and Close from their copy of the version
	// map until its file is written (taken before mu), so the file never
	// goes back to an older copy.
	saving   sync.Mutex
	mu       sync.Mutex
	repo     *git.Repository
	objects  cache.Object // repo's cache of decoded objects (objectCache)
	trees    *treeCache   // the trees reads and writes went through last (treecache.go)
	versions *versionMap
	build    *versionBuild // the first map, being built (see startBuild)
	asking   atomic.Int32  // reads and writes asking git for a version meanwhile (AskingGit)
	// commits counts the commits this store made, gcRunning says a `git
	// gc --auto` it started runs (autogc.go).
	commits   atomic.Int64
	gcRunning atomic.Bool
	dirty     bool // versions changed since last persisted
	// indexWarning is set when a commit landed but the index could not be
	// updated; IndexWarning hands it out once.
	indexWarning string
	idxCache     *indexCache              // the index last written or read (index.go)
	idxSpare     *parsedIndex             // the index before it: the next splice's buffers (index.go)
	pend         *pendingIndex            // the index of landed commits, being written (indexwriter.go)
	idxWriteCost time.Duration            // what the writer's last pass took (coalesceDelay)
	walkCache    map[plumbing.Hash]walked // see commitChanges
	walkWeight   int                      // of walkCache (maxWalkCache)
	// recovered lists the commits of dead processes recovered since
	// TakeRecovered last ran.
	recovered []RecoveryReport
	// own maps the last commits this store made to their parents (see
	// OwnParent); ownOrder bounds it.
	own      map[plumbing.Hash]plumbing.Hash
	ownOrder []plumbing.Hash
	// branch is the branch cairn commits to (gitbusy.go): the one HEAD
	// named at Open, "" until HEAD names one.
	branch plumbing.ReferenceName
	// realDir is dir as /proc names it (symbolic links resolved), once
	// needed (gitprocs.go).
	realDir string
	// procs are the processes a commit's look for a person's git command
	// saw (gitprocs.go).
	procs procLooks
}

// ownMemory is how many of its own commits a store remembers for OwnParent.
const ownMemory = 256

// OwnParent is the parent of hash when this store made that commit (one of
// its last ownMemory). A vault told of a new HEAD uses it to tell its own
// commits, whose changes it records itself, from others', which need a
// rescan.
func (s *Store) OwnParent(hash string) (string, bool) {
	h := plumbing.NewHash(hash)
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.own[h]
	if !ok {
		return "", false
	}
	return p.String(), true
}

func (s *Store) rememberOwn(h, parent plumbing.Hash) {
	if s.own == nil {
		s.own = map[plumbing.Hash]plumbing.Hash{}
	}
	s.own[h] = parent
	s.ownOrder = append(s.ownOrder, h)
	if len(s.ownOrder) > ownMemory {
		delete(s.own, s.ownOrder[0])
		s.ownOrder = s.ownOrder[1:]
	}
}

// IndexWarning returns (and clears) the last index problem, if any.
func (s *Store) IndexWarning() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.indexWarning
	s.indexWarning = ""
	return w
}

// ErrNotRepository is returned by Open when dir is not a git work tree.
var ErrNotRepository = errors.New("not a git repository")

// Init creates a new repository in dir (which may already hold files) with
// main as its initial branch, or returns ErrAlreadyRepository.
func Init(dir string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	_, err = git.PlainInitWithOptions(abs, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	return Open(abs, opts)
}

// IsRepository reports whether dir is the top of a git work tree.
func IsRepository(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil && fi.IsDir()
}

// Open opens the repository whose work tree is dir and loads (or builds) its
// version map.
func Open(dir string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	if !IsRepository(abs) {
		return nil, fmt.Errorf("open %s: %w", dir, ErrNotRepository)
	}
	objects := cache.NewObjectLRU(objectCache)
	repo, err := openRepositoryCache(abs, objects)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	s := &Store{dir: abs, gitDir: filepath.Join(abs, ".git"), opts: opts, repo: repo, objects: objects, trees: newTreeCache()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, err := s.branchRef(); err == nil {
		s.branch = b
	}
	if opts.CacheFile != "" {
		if vm, err := loadVersionMap(opts.CacheFile); err == nil {
			s.versions = vm
		}
	}
	if s.versions == nil {
		head, err := s.headHash()
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", dir, err)
		}
		if !head.IsZero() {
			s.startBuild(head)
			return s, nil
		}
	}
	if err := s.refreshLocked(); err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return s, nil
}

// maxOpenPacks is how many pack files a store keeps open. go-git's
// default opens the pack again for every object it reads from it (an open,
// several stats and a close, and its caches lost each time): a third of a
// history walk's time. A pack that git gc removed stays open until it is
// pushed out of these (or the store closes).
const maxOpenPacks = 8

// openRepository opens the repository whose work tree is dir (its .git a
// folder, as IsRepository checked), as git.PlainOpen does but keeping up
// to maxOpenPacks pack files open, and an object cache of objectCache.
func openRepository(dir string) (*git.Repository, error) {
	return openRepositoryCache(dir, cache.NewObjectLRU(objectCache))
}

// objectCache bounds go-git's cache of decoded objects. Its default, 96
// MiB, is most of what a server may hold at 10,000 notes (issue 16: 150
// MiB), and a history walk filled it with trees read once (62 MiB at
// 10,000 commits). What is read again is small: a write's root and folder
// trees, the last commits that activity and sessions read. At 16 MiB a
// fresh 10,000-note clone's writes filled it again with the delta bases
// of the folder trees they read (19 MiB at their peak), and the server
// held 195-203 MiB after 1,000 writes, where issue 34 asks 200; at 8 MiB,
// 178 MiB, the writes no slower (docs/benchmarks.md, "The first search
// goes first").
const objectCache = 8 * cache.MiByte

// openRepositoryCache is openRepository with the object cache objects.
func openRepositoryCache(dir string, objects cache.Object) (*git.Repository, error) {
	wt := osfs.New(dir)
	dot, err := wt.Chroot(git.GitDirName)
	if err != nil {
		return nil, err
	}
	st := filesystem.NewStorageWithOptions(dot, objects, filesystem.Options{MaxOpenDescriptors: maxOpenPacks})
	return git.Open(newRepackAware(st, filepath.Join(dir, git.GitDirName)), wt)
}

// closeRepository lets go of the pack files repo holds open. It stays
// usable: the next read opens them again.
func closeRepository(repo *git.Repository) error {
	if c, ok := repo.Storer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// reindexPacks makes go-git read the list of pack files again: it keeps
// the list it read first, and does not see a pack git wrote since (a
// fetch of 100 objects or more keeps them in a pack; gc repacks).
func (s *Store) reindexPacks() {
	if r, ok := s.repo.Storer.(interface{ Reindex() }); ok {
		r.Reindex()
	}
}

// Dir is the absolute work tree root.
func (s *Store) Dir() string { return s.dir }

// Close persists the version map and closes the pack files. The store
// stays usable (tests and the command line reuse it): they open again.
func (s *Store) Close() error {
	s.saving.Lock()
	defer s.saving.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleIndexLocked()
	s.settleBuildLocked(true)
	err := s.persistLocked()
	if cerr := closeRepository(s.repo); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", s.dir, cerr)
	}
	return err
}

// lockFreeHook, when set (tests), is called where long work runs with
// s.mu let go: Changed's read of HEAD's tree, Persist's write.
var lockFreeHook func()

// Persist writes the version map to the cache file if it changed. Only
// a copy of the map is made under s.mu: encoding 100,000 paths and
// writing the file took 0.3 s, every search (Head), read and write
// waiting for the lock meanwhile, every 30 s while commits came.
func (s *Store) Persist() error {
	s.saving.Lock()
	defer s.saving.Unlock()
	s.mu.Lock()
	s.settleBuildLocked(false)
	if !s.mapUnsavedLocked() {
		s.mu.Unlock()
		return nil
	}
	vm := s.versions.clone()
	s.dirty = false
	s.mu.Unlock()
	if lockFreeHook != nil {
		lockFreeHook()
	}
	if err := vm.save(s.opts.CacheFile); err != nil {
		s.mu.Lock()
		s.dirty = true
		s.mu.Unlock()
		return fmt.Errorf("persist version map: %w", err)
	}
	return nil
}

// mapUnsavedLocked says whether the version map has changes its cache
// file lacks.
func (s *Store) mapUnsavedLocked() bool {
	return s.opts.CacheFile != "" && s.dirty && s.versions != nil
}

func (s *Store) persistLocked() error {
	if !s.mapUnsavedLocked() {
		return nil
	}
	if err := s.versions.save(s.opts.CacheFile); err != nil {
		return fmt.Errorf("persist version map: %w", err)
	}
	s.dirty = false
	return nil
}

// branchRef is the reference HEAD points at (refs/heads/main usually).
func (s *Store) branchRef() (plumbing.ReferenceName, error) {
	head, err := s.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() == plumbing.SymbolicReference {
		return head.Target(), nil
	}
	return "", errors.New("HEAD is detached: check out a branch in the vault")
}

// headHash is the commit HEAD names, or ZeroHash on an unborn branch.
// It is on every read's path, so the common case (HEAD a symbolic ref to a
// loose branch ref) reads the two files directly; go-git's resolver,
// which walks the path through its chroot helper, takes the rest.
func (s *Store) headHash() (plumbing.Hash, error) {
	if head, err := os.ReadFile(filepath.Join(s.gitDir, "HEAD")); err == nil {
		if target, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && strings.HasPrefix(target, "refs/heads/") && !strings.Contains(target, "..") {
			if ref, err := os.ReadFile(filepath.Join(s.gitDir, filepath.FromSlash(target))); err == nil {
				if h := strings.TrimSpace(string(ref)); plumbing.IsHash(h) {
					return plumbing.NewHash(h), nil
				}
			}
		}
	}
	ref, err := s.repo.Reference(plumbing.HEAD, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve HEAD: %w", err)
	}
	return ref.Hash(), nil
}

// Head returns the current HEAD commit hash ("" before the first commit).
func (s *Store) Head() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.headHash()
	if err != nil || h.IsZero() {
		return "", err
	}
	return h.String(), nil
}

func (s *Store) refreshLocked() error {
	s.awaitBuildLocked()
	head, err := s.headHash()
	if err != nil {
		return err
	}
	if s.versions != nil && s.versions.head == head {
		return nil
	}
	if head.IsZero() {
		s.versions = &versionMap{paths: map[string]plumbing.Hash{}}
		s.dirty = true
		return nil
	}
	// HEAD moved outside this store (git pull, a sync's fetch): the
	// commits may have come in a pack go-git has not indexed yet.
	s.reindexPacks()
	vm, err := updateVersionMap(s.repo, s.versions, head, s.trees)
	if err != nil {
		return err
	}
	s.versions = vm
	s.dirty = true
	return nil
}

// Version returns the hash of the last commit that touched path, and whether
// path is in HEAD at all. It refreshes first, so a commit made by hand shows.
func (s *Store) Version(path string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok, err := s.versionLocked(path)
	if err != nil || !ok {
		return "", false, err
	}
	return h.String(), true, nil
}

// versionLocked is path's version and whether HEAD holds it: from the map,
// refreshed, or while the map is built in the background, asked of git
// for path alone (buildingVersionLocked). Either may let go of s.mu.
func (s *Store) versionLocked(path string) (plumbing.Hash, bool, error) {
	if h, blob, known := s.buildingVersionLocked(path); known {
		return h, !blob.IsZero(), nil
	}
	if err := s.refreshLocked(); err != nil {
		return plumbing.ZeroHash, false, err
	}
	h, ok := s.versions.paths[path]
	return h, ok, nil
}

// Paths lists every file path in HEAD (as the version map knows it).
func (s *Store) Paths() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refreshLocked(); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(s.versions.paths))
	for p := range s.versions.paths {
		out = append(out, p)
	}
	return out, nil
}
