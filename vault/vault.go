package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/internal/notefile"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/indexing"
	"github.com/cairn-dev/cairn/vault/note"
)

// Options for Open.
type Options struct {
	// Exclusive takes the vault's host lock (HostLockFile): a second
	// exclusive Open of the same vault fails at once with ErrVaultBusy. The
	// process holding it is the one that keeps the search index, watches
	// the files and serves the other processes (package host); short
	// command-line operations that need no index do not take it (they
	// still take the write lock for each commit).
	Exclusive bool
	// NoRepair opens without recovering a commit a crashed process left
	// (cairn doctor reports it instead). Every other Open recovers it.
	NoRepair bool
	// Quiet is how long a note must have been untouched on disk before a
	// person's edit is committed, by the watcher or before an agent reads
	// or writes the note (DefaultQuiet when zero).
	Quiet time.Duration
	// Locked, when set, is called once Exclusive's host lock is held and
	// before the slow part of the open (the version map, the catalog, the
	// rescan: seconds in a large vault). From then on no other process
	// will host the vault, so a server lets its calls wait for this open
	// however long it takes (package host).
	Locked func()
	// AnswerDuringBuild lets a search made during the first build of the
	// index (a fresh clone: seconds per 10,000 notes) answer from the
	// notes indexed so far, saying how many are not yet, rather than wait
	// for the last one. A server sets it; a command that opens the vault
	// itself (`cairn search` with no server) waits for the whole index. A
	// build of one step (500 notes or fewer) is always waited for.
	AnswerDuringBuild bool
	// OpenIndex, with Exclusive, opens the search index at once, beside
	// the catalog's load (Bleve, its manifest and the vector file are
	// read while the catalog is), rather than at the first search: a
	// server's first search then waits for the slower of the two, not for
	// both one after the other (issue 16: a warm start's first search
	// within 0.5 s). The index is brought up to date with the notes once
	// the catalog is loaded. A server sets it; a command that may never
	// search does not pay for the index.
	OpenIndex bool
	// noOpenTexts, set by Init only, keeps none of the texts a fresh
	// clone's open keeps for the searches of the index's first build
	// (opentexts.go): Init builds no index, and they were up to
	// indexing.ScanTextsBytes held for nothing.
	noOpenTexts bool
}

// Vault is one open vault.
type Vault struct {
	root  string
	store *gitstore.Store

	// catalog locks itself (catalogapi.go) and calls out only to the link
	// graphs, which lock themselves. The graph calls back into access
	// checks (mu) while it holds its lock, so nothing may ask the catalog
	// or the graph anything while holding mu.
	catalog *catalog

	// index is the search index and what keeps it up to date (package
	// indexing; the vault's side is index.go).
	index *indexing.Keeper

	// rootDir is the vault's folder held open for the index's reads
	// (fileio.go); Close closes it.
	rootDir rootDir

	// attached holds what other packages keep per open vault (Attached in
	// hooks_families.go): the memory families' state, start_session's
	// lock of the last-visit marks.
	attached sync.Map

	mu          sync.Mutex // guards the fields below
	openTexts   *openTexts // the texts a fresh clone's open kept, until the index keeper takes them
	access      *access.Access
	accessStamp [2]fileStamp // access.yaml's and local.yaml's when read
	projects    *projectSet
	scannedAt   time.Time
	scanTook    time.Duration // how long the last rescan took (scanDue)
	knownHead   string        // the HEAD the catalog and projects reflect
	recoveries  []gitstore.RecoveryReport
	// closing is closed by Close (closed set, under mu): a watcher then
	// commits what it has seen and ends, and Close waits for it.
	closing  chan struct{}
	closed   bool
	watchers sync.WaitGroup

	quiet time.Duration // see Options.Quiet

	hostLock *os.File
}

// ErrVaultBusy says another process holds the vault's host lock.
var ErrVaultBusy = errors.New("another cairn process hosts this vault")

// HostLockFile is the host lock, relative to the vault: flocked by the
// process that opened the vault exclusively, and holding its pid.
const HostLockFile = CacheDir + "/host.lock"

// Open opens the vault at root, a git work tree set up by Init.
func Open(root string, opts Options) (*Vault, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := Check(root); err != nil {
		return nil, err
	}
	v := &Vault{root: abs, quiet: opts.Quiet, closing: make(chan struct{})}
	v.index = newIndexKeeper(v, opts.AnswerDuringBuild)
	if v.quiet <= 0 {
		v.quiet = DefaultQuiet
	}
	if err := os.MkdirAll(filepath.Join(abs, CacheDir), 0o755); err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	if opts.Exclusive {
		if err := v.takeHostLock(); err != nil {
			return nil, err
		}
		if opts.Locked != nil {
			opts.Locked()
		}
		if opts.OpenIndex {
			v.index.OpenEarly()
		}
	}
	err = v.load(opts)
	if loadedHook != nil {
		loadedHook(v)
	}
	v.index.CatalogLoaded(err)
	if err != nil {
		v.releaseHostLock()
		v.rootDir.close() // an index opened early may have read a note
		return nil, fmt.Errorf("open vault: %w", err)
	}
	return v, nil
}

// load is the slow part of the open: the git store (its version map
// built in the background), a crashed commit recovered, the access
// rules, the catalog and the link graph (from their cache, or every note
// read), brought up to date with the files.
func (v *Vault) load(opts Options) error {
	var err error
	v.store, err = gitstore.Open(v.root, gitstore.Options{
		CacheFile: filepath.Join(v.root, CacheDir, "versions.json"),
		LockFile:  filepath.Join(v.root, CacheDir, "write.lock"),
		Identity:  noteIdentity,
		Protected: machineOnlyDisguise,
	})
	if err != nil {
		return err
	}
	if !opts.NoRepair {
		// Before anything reads the work tree: a commit a crashed process
		// left is finished or dropped, its locks and temporary files gone.
		// A failure is not fatal to reading; every commit retries it.
		if rep, err := v.store.Recover(); err != nil {
			fmt.Fprintln(os.Stderr, "cairn:", err)
		} else if rep != nil {
			v.recoveries = append(v.recoveries, *rep)
		}
	}
	if _, err := v.accessNow(); err != nil {
		return err
	}
	file := filepath.Join(v.root, CacheDir, "catalog.json")
	if _, err := os.Stat(file); err == nil {
		return v.loadSaved(file)
	}
	v.catalog = loadCatalog(file)
	v.catalog.reserve(v.store.TrackedFiles(".md"), true)
	v.knownHead, _ = v.store.Head()
	// Every note is read: those read last are kept for the searches of
	// the index's first build, which takes them (opentexts.go).
	if !opts.noOpenTexts {
		v.mu.Lock()
		v.openTexts = newOpenTexts()
		v.mu.Unlock()
	}
	return v.rescan()
}

// loadSaved loads the catalog saved in file while the folders are walked
// for the notes changed since: at 100,000 notes each took about half a
// second of a warm start, one after the other. The walk reads no note and
// does not touch the catalog (walk without fill). A file that does not
// load as a catalog leaves it empty: the walk's notes are then all new to
// it, and read.
func (v *Vault) loadSaved(file string) error {
	loaded := make(chan *catalog, 1)
	go func() { loaded <- loadCatalog(file) }()
	began := time.Now()
	w, err := v.walk(false)
	v.catalog = <-loaded
	v.knownHead, _ = v.store.Head()
	if err != nil {
		return err
	}
	v.scanned(w, v.catalog.generation(), began)
	return nil
}

// Check says whether root is a vault Open can open: a folder, a git work
// tree, with a .cairn folder. It reads nothing else.
func Check(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return fmt.Errorf("open vault %s: no such folder", root)
	}
	if !gitstore.IsRepository(abs) {
		return fmt.Errorf("open vault %s: not a git repository (run `cairn init %s` first)", root, root)
	}
	if _, err := os.Stat(filepath.Join(abs, CairnDir)); err != nil {
		return fmt.Errorf("open vault %s: no %s folder (run `cairn init %s` to adopt it)", root, CairnDir, root)
	}
	return nil
}

// Root is the vault's absolute folder.
func (v *Vault) Root() string { return v.root }

// Quiet is how long a note must have been untouched on disk before it is
// committed as a person's edit (Options.Quiet).
func (v *Vault) Quiet() time.Duration { return v.quiet }

// Store gives the git store (for the command line and benchmarks).
func (v *Vault) Store() *gitstore.Store { return v.store }

// Close persists derived state and releases the serve lock.
func (v *Vault) Close() error {
	v.mu.Lock()
	if !v.closed {
		v.closed = true
		close(v.closing)
	}
	v.mu.Unlock()
	v.watchers.Wait() // each commits what it has seen first (Watch)
	err := v.store.Close()
	if cerr := v.index.Close(); err == nil {
		err = cerr
	}
	v.rootDir.close() // after the index's last read
	if cerr := v.catalog.persist(true); err == nil {
		err = cerr
	}
	v.releaseHostLock()
	return err
}

// Persist saves derived state now (the version map and the note catalog),
// so a restart does not rebuild them.
func (v *Vault) Persist() error {
	return v.persist(true)
}

// persist saves derived state; the catalog only once a tenth of it
// changed unless all (catalog.persist).
func (v *Vault) persist(all bool) error {
	if err := v.store.Persist(); err != nil {
		return err
	}
	if err := v.index.Persist(); err != nil {
		return err
	}
	return v.catalog.persist(all)
}

func (v *Vault) takeHostLock() error {
	path := filepath.Join(v.root, HostLockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("host lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(path)
		f.Close()
		who := strings.TrimSpace(string(pid))
		if who != "" {
			who = " (pid " + who + ")"
		}
		return fmt.Errorf("%w%s: %s", ErrVaultBusy, who, v.root)
	}
	if err := olderServer(v.root); err != nil {
		f.Close()
		return err
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	v.hostLock = f
	return nil
}

// olderServer refuses to host a vault a cairn from before hosting is
// serving: it holds serve.lock, knows nothing of the host lock, and would
// keep its own index and watcher beside this process's.
func olderServer(root string) error {
	path := filepath.Join(root, CacheDir, "serve.lock")
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return nil
	}
	pid, _ := os.ReadFile(path)
	return fmt.Errorf("an older cairn server (pid %s) serves %s: stop it (or restart its client) so that this one can host the vault", strings.TrimSpace(string(pid)), root)
}

func (v *Vault) releaseHostLock() {
	if v.hostLock != nil {
		syscall.Flock(int(v.hostLock.Fd()), syscall.LOCK_UN)
		v.hostLock.Close()
		v.hostLock = nil
	}
}

type fileStamp = notefile.Stamp

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{Size: -1}
	}
	return stampOfInfo(fi)
}

// stampOfInfo is the size and mtime of a file as fi gives them.
func stampOfInfo(fi os.FileInfo) fileStamp { return fileStamp{Size: fi.Size(), Mtime: fi.ModTime()} }

// accessNow returns access.yaml as it applies here (effectiveAccess),
// re-read when it or the local settings changed, so a grant or revoke
// takes effect without a restart.
func (v *Vault) accessNow() (*access.Access, error) {
	st := [2]fileStamp{stampOf(filepath.Join(v.root, AccessFile)), stampOf(filepath.Join(v.root, LocalFile))}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.access != nil && st == v.accessStamp {
		return v.access, nil
	}
	a, err := effectiveAccess(v.root)
	if err != nil {
		if v.access != nil {
			return v.access, nil // keep the last good one; doctor reports the problem
		}
		return nil, err
	}
	v.access, v.accessStamp = a, st
	return a, nil
}

// Owner is the vault owner's principal id.
func (v *Vault) Owner() string {
	a, err := v.accessNow()
	if err != nil {
		return ""
	}
	return a.Owner
}

// rescan walks the vault: project markers, and every note file, reparsing
// only those whose size or mtime changed since the catalog last saw them.
func (v *Vault) rescan() error {
	_, err := v.rescanChanged()
	return err
}

// rescanChanged is rescan, returning the note paths whose file changed
// (size or mtime) or disappeared since the last scan.
func (v *Vault) rescanChanged() ([]string, error) {
	since := v.catalog.generation()
	began := time.Now()
	w, err := v.walk(v.catalog.empty())
	if err != nil {
		return nil, err
	}
	return v.scanned(w, since, began), nil
}

// walked is what a walk of the vault's folders found.
type walked struct {
	markers []string             // the folders holding a project marker
	seen    map[string]fileStamp // the note files, with their stamps (none when filled)
	others  map[string]bool      // the other files links may name
	put     []string             // the notes a fill read into the catalog
}

// walk lists the vault's files. With fill (a catalog with no note yet, a
// fresh clone's open) it reads each note as the walk finds it
// (catalog.fill), its size and mtime with it; else it takes each note's
// stamp and reads nothing, and does not touch the catalog.
func (v *Vault) walk(fill bool) (walked, error) {
	w := walked{seen: map[string]fileStamp{}, others: map[string]bool{}}
	ign := v.ignoreMatcher()
	var feed chan string
	var filled chan []string
	var keep *openTexts
	if fill {
		v.mu.Lock()
		keep = v.openTexts // the open's walk (load), until the index takes them
		v.mu.Unlock()
		feed, filled = make(chan string, openFeed), make(chan []string, 1)
		go func() { filled <- v.catalog.fill(v.root, feed, keep) }()
	}
	err := filepath.WalkDir(v.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == v.root {
				return err
			}
			return nil
		}
		rel, _ := filepath.Rel(v.root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		name := d.Name()
		if d.IsDir() {
			if rel != "" && (strings.HasPrefix(name, ".") || ignored(ign, rel, true)) {
				return filepath.SkipDir
			}
			return nil
		}
		if ignored(ign, rel, false) {
			return nil
		}
		if name == ProjectMarker {
			w.markers = append(w.markers, parentDir(rel))
			return nil
		}
		if d.Type().IsRegular() && isOtherFile(rel) {
			w.others[rel] = true
		}
		if !d.Type().IsRegular() || !isNotePath(rel) {
			return nil
		}
		if feed != nil {
			w.seen[rel] = fileStamp{}
			feed <- rel
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		w.seen[rel] = stampOfInfo(fi)
		return nil
	})
	if feed != nil {
		if keep != nil {
			keep.total.Store(int64(len(w.seen)))
		}
		close(feed)
		w.put = <-filled
	}
	if err != nil {
		return walked{}, fmt.Errorf("scan vault: %w", err)
	}
	return w, nil
}

// scanned brings the catalog and the projects to what walk found (begun
// at began, the catalog then at generation since), and returns the note
// paths that changed or disappeared.
func (v *Vault) scanned(w walked, since uint64, began time.Time) []string {
	ps := newProjectSet(v.root, w.markers)
	// After a fill, this only takes the other files: the notes put have
	// a generation past since.
	changed := append(w.put, v.catalog.syncScan(v.root, w.seen, w.others, since)...)
	v.mu.Lock()
	v.projects = ps
	v.scannedAt = time.Now()
	v.scanTook = v.scannedAt.Sub(began)
	v.mu.Unlock()
	v.index.Soon()
	return changed
}

// rescanIfStale rescans when the last scan is older than d: the cheap way
// to see notes and markers people added by hand when no watcher runs, or
// before its events arrive.
func (v *Vault) rescanIfStale(d time.Duration) error {
	if !v.scanDue(d) {
		return nil
	}
	return v.rescan()
}

// scanPace bounds the share of a core the periodic rescans take: a rescan
// runs at most once per scanPace times its own duration (2 %). A rescan
// stats every file; at 100,000 notes it takes a few hundred milliseconds,
// and every 3 s it was a tenth of a core with nobody using the vault.
const scanPace = 50

// scanDue says whether the last rescan is older than d, or than scanPace
// times its duration when that is longer.
func (v *Vault) scanDue(d time.Duration) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return time.Since(v.scannedAt) > max(d, scanPace*v.scanTook)
}

func (v *Vault) projectSet() *projectSet {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.projects
}

// noteIdentity is a note's saved id, read from the start of its file.
func noteIdentity(head []byte) string {
	n := note.Parse("", head)
	if !n.IDSaved {
		return ""
	}
	return n.ID
}
