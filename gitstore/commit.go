package gitstore

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signature names who made a commit.
type Signature struct {
	Name  string
	Email string
}

// Trailer is one `Key: value` line at the end of a commit message.
type Trailer struct {
	Key   string
	Value string
}

// Change is one path a commit writes or deletes.
type Change struct {
	Path    string // slash-separated, relative to the work tree
	Content []byte // new content (ignored when Delete)
	Delete  bool
	// When CheckVersion is set, the commit happens only if the path's
	// current version is ExpectVersion ("" meaning: the path must not exist).
	CheckVersion  bool
	ExpectVersion string
	// When RequireClean is set, the file on disk must equal its committed
	// content (or be absent when not committed): a change made in an editor
	// and not yet committed is never overwritten.
	RequireClean bool
	// When Absent is set (a deletion made by hand, being committed), the
	// file must still be absent when the commit happens.
	Absent bool
	// OnDisk says Content was read from the work tree (an edit made by
	// hand, being committed): the file is left alone, never rewritten, so
	// a save made since the read is not replaced by the older content.
	OnDisk bool
	// ReadFrom, with OnDisk, is the file the content is read from when the
	// commit stages it (Content is then ignored): a commit of thousands of
	// files (a vault adopted) holds one in memory at a time, not all.
	ReadFrom string
	// Executable records the file as executable (git's mode 100755), as
	// `git add` does for a file with an execute bit: a vault adopted with
	// such a file would otherwise show it as changed in `git status`. A
	// path committed executable before stays so either way.
	Executable bool
}

// CommitRequest is one commit: its author, message, trailers and changes.
type CommitRequest struct {
	Author   Signature
	Message  string
	Trailers []Trailer
	Changes  []Change
	// When is the commit time; zero means now.
	When time.Time
}

// ConflictError says a path's version was not the expected one.
type ConflictError struct {
	Path    string
	Current string // "" when the path does not exist
}

func (e *ConflictError) Error() string {
	if e.Current == "" {
		return fmt.Sprintf("version conflict on %s: it does not exist", e.Path)
	}
	return fmt.Sprintf("version conflict on %s: current version is %s", e.Path, e.Current)
}

// DirtyError says a file on disk differs from its committed content.
type DirtyError struct{ Path string }

func (e *DirtyError) Error() string {
	return fmt.Sprintf("%s has uncommitted changes on disk", e.Path)
}

// ErrNothingToCommit is returned when every change leaves its path as it is.
var ErrNothingToCommit = errors.New("nothing to commit: the changes leave every file as it is")

// FormatMessage appends trailers to a message the way `git interpret-trailers` does.
func FormatMessage(msg string, trailers []Trailer) string {
	msg = strings.TrimRight(msg, "\n")
	if len(trailers) == 0 {
		return msg + "\n"
	}
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString("\n\n")
	for _, t := range trailers {
		b.WriteString(t.Key)
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(t.Value, "\n", " "))
		b.WriteString("\n")
	}
	return b.String()
}

// Commit writes the changes into the work tree and records them as one
// commit on the current branch, touching only the changed paths.
//
// Order, chosen so a crash never loses content: objects are written (and
// synced) first; then the work-tree files; then the branch moves (compare
// and swap against the head the tree was built on); then the index. A
// commit interrupted by a crash is finished or dropped by the next process
// that takes the write lock (recover.go), by what reached the work tree.
func (s *Store) Commit(req CommitRequest) (hash string, err error) {
	if err := checkChanges(req.Changes); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		if err == nil {
			s.noteCommit()
		}
	}()
	if s.askChangesLocked(req.Changes) { // before the write lock: it may let go of s.mu
		if hash, done, err := s.commitDuringBuild(req); done {
			return hash, err
		}
	}
	s.awaitBuildLocked() // before the write lock: it may let go of s.mu
	wl, err := s.commitLock()
	if err != nil {
		return "", err
	}
	defer s.releaseUnlessPending(wl)
	wl.begin()
	return s.commitLocked(wl, req)
}

// commitDuringBuild makes the commit on the build's tip, without the map
// (buildwrites.go). done is false when, under the write lock, the build
// turned out over or HEAD not its tip: the caller then waits for the map.
func (s *Store) commitDuringBuild(req CommitRequest) (hash string, done bool, err error) {
	wl, err := s.commitLock()
	if err != nil {
		return "", true, err
	}
	defer s.releaseUnlessPending(wl)
	if _, err := s.vaultBranch(); err != nil {
		return "", true, err
	}
	head, versions, b, ok := s.buildingVersionsLocked(req.Changes)
	if !ok {
		return "", false, nil
	}
	wl.begin()
	hash, err = s.commitOn(wl, req, head, versions, b)
	return hash, true, err
}

// crashPoint, when a test sets it, is called at each step of a commit; a
// test process exits there (skipping every cleanup, as a SIGKILL would) to
// leave the state a crash at that step leaves.
var crashPoint = func(step string) {}

// SetCrashPoint sets what is called at each step of a commit or an
// advance, for the crash tests of the packages built on the store (a test
// process exits there); nil sets nothing.
func SetCrashPoint(f func(step string)) {
	if f == nil {
		f = func(string) {}
	}
	crashPoint = f
}

func checkChanges(changes []Change) error {
	if len(changes) == 0 {
		return errors.New("commit: no changes")
	}
	seen := map[string]bool{}
	for _, c := range changes {
		if err := VerifyPath(c.Path); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		if seen[c.Path] {
			return fmt.Errorf("commit: path %q given twice", c.Path)
		}
		seen[c.Path] = true
	}
	return nil
}

// pendingCommit is a commit whose objects are staged, not yet in place.
type pendingCommit struct {
	req    CommitRequest
	batch  *batch
	head   plumbing.Hash // the commit it builds on (zero: the first)
	hash   plumbing.Hash
	sig    object.Signature
	blobs  map[string]plumbing.Hash // new content of each written path
	before map[string]plumbing.Hash // committed content of each path (zero: none)
	// unchanged are written paths whose content stays as committed.
	unchanged map[string]bool
	// versions holds the version of each path the changes touch that is
	// committed on head (the version map's paths, or buildingVersionsLocked's).
	versions map[string]plumbing.Hash
	// build is the version map build the commit is made during (nil:
	// the map is there): recordCommit records it there.
	build *versionBuild
}

func (s *Store) commitLocked(wl *writeLock, req CommitRequest) (string, error) {
	if _, err := s.vaultBranch(); err != nil {
		return "", err
	}
	if err := s.refreshLocked(); err != nil {
		return "", err
	}
	return s.commitOn(wl, req, s.versions.head, s.versions.paths, nil)
}

// commitOn makes the commit on head, checking the changes against
// versions. The tree is built on the head the version map describes (not
// on a second read of HEAD), and the branch lock checks the branch still
// names it: a commit landing in between makes this one fail with
// ErrHeadMoved rather than skip its version checks.
func (s *Store) commitOn(wl *writeLock, req CommitRequest, head plumbing.Hash, versions map[string]plumbing.Hash, b *versionBuild) (string, error) {
	pc := &pendingCommit{req: req, batch: &batch{nonce: wl.nonce}, head: head, versions: versions, build: b}
	defer pc.batch.abort()
	if err := s.stageCommit(pc); err != nil {
		return "", err
	}
	subject, _, _ := strings.Cut(req.Message, "\n")
	if err := s.land(wl, pc, "commit: "+subject); err != nil {
		return "", err
	}
	s.recordCommit(pc, subject)
	return pc.hash.String(), nil
}

// land puts a staged commit in place: the intent, git's locks, the files,
// the branch (compare and swap against pc.head), its reflog, the index.
// The caller then records what it knows of the new head.
func (s *Store) land(wl *writeLock, pc *pendingCommit, reflog string) error {
	branch, err := s.vaultBranch()
	if err != nil {
		return err
	}
	// No lock is taken while a person's git command runs (gitprocs.go).
	if err := s.noGitMoving(); err != nil {
		return err
	}
	wl.staged(branch, pc.head, pc.hash)
	crashPoint("staged")

	// Locks first (git's order: the index, then the branch), so that a git
	// process holding either makes this commit fail before anything changes.
	tpl, tplDone, err := s.lockTemplate(wl.nonce)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	defer tplDone()
	idxLock, err := s.indexLock(wl.nonce, tpl)
	if err != nil {
		return busyIfLocked(fmt.Errorf("commit: %w", err))
	}
	defer func() {
		if s.pend == nil || s.pend.lock != idxLock {
			idxLock.release()
		}
	}()
	refLock, err := s.lockRef(branch, pc.head, wl.nonce, tpl)
	if err != nil {
		return busyIfLocked(fmt.Errorf("commit: %w", err))
	}
	defer refLock.release()
	index, err := s.currentIndex()
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	// Again with both locks held: a person's git command that started
	// since the first check has made its state files or moved HEAD by now,
	// or waits for these locks (gitbusy.go).
	if _, err := s.vaultBranch(); err != nil {
		return err
	}
	crashPoint("locked")
	if err := s.placeFiles(pc); err != nil {
		return err
	}
	crashPoint("placed")
	// Last, right before the branch moves (its new value written and
	// synced, not yet renamed into place): a person's git command that
	// began since, a pull still fetching, would be broken by the move.
	var busy error
	err = refLock.commitChecked([]byte(pc.hash.String()+"\n"), true, func() error {
		busy = s.noGitMoving()
		return busy
	})
	if busy != nil {
		s.unplaceFiles(pc)
		return busy
	}
	if err != nil {
		return fmt.Errorf("commit: move %s: %w", branch, err)
	}
	s.appendReflogs(branch, pc.head, pc.hash, pc.sig, reflog)
	crashPoint("moved")
	if err := s.updateIndex(wl, idxLock, index, pc.head, pc.hash, pc.req.Changes, pc.blobs); err != nil {
		// The commit is made and the files are in place; only git's cache
		// of the work tree lags. Say so, but the write stands.
		s.indexWarning = fmt.Sprintf("commit %s made, but the git index was not updated (run `git reset` in the vault): %v", pc.hash, err)
	}
	return nil
}

// stageCommit stages the blobs (stageBlobs), the changed trees and the
// commit.
func (s *Store) stageCommit(pc *pendingCommit) error {
	rootHash := plumbing.ZeroHash
	if !pc.head.IsZero() {
		hc, err := readCommit(s.repo.Storer, pc.head)
		if err != nil {
			return fmt.Errorf("read HEAD commit: %w", err)
		}
		rootHash = hc.tree
	}
	// The trees along the changed paths, read once for both steps.
	w := newCachedWalker(s.repo.Storer, s.trees)
	if err := s.stageBlobs(pc, w, rootHash); err != nil {
		return err
	}
	newRoot, err := s.editTree(w, pc.batch, rootHash, pc.req.Changes, pc.blobs)
	if err != nil {
		return fmt.Errorf("commit: build tree: %w", err)
	}
	when := pc.req.When
	if when.IsZero() {
		when = time.Now()
	}
	when = when.Truncate(time.Second) // what git stores: what the walk cache holds must match it
	pc.sig = object.Signature{Name: pc.req.Author.Name, Email: pc.req.Author.Email, When: when}
	commit := &object.Commit{
		Author:    pc.sig,
		Committer: pc.sig,
		Message:   FormatMessage(pc.req.Message, pc.req.Trailers),
		TreeHash:  newRoot,
	}
	if !pc.head.IsZero() {
		commit.ParentHashes = []plumbing.Hash{pc.head}
	}
	if pc.hash, err = s.writeEncoded(pc.batch, commit); err != nil {
		return fmt.Errorf("commit: write commit: %w", err)
	}
	return nil
}

// stageBlobs checks each change against its expected version and the work
// tree, and stages the new blobs. ErrNothingToCommit: every change leaves
// its path as it is.
func (s *Store) stageBlobs(pc *pendingCommit, w *rawWalker, root plumbing.Hash) error {
	pc.blobs, pc.before, pc.unchanged = map[string]plumbing.Hash{}, map[string]plumbing.Hash{}, map[string]bool{}
	changed := false
	for _, c := range pc.req.Changes {
		cur, committed := pc.versions[c.Path]
		if c.CheckVersion {
			curStr := ""
			if committed {
				curStr = cur.String()
			}
			if curStr != c.ExpectVersion {
				return &ConflictError{Path: c.Path, Current: curStr}
			}
		}
		committedBlob := plumbing.ZeroHash
		if !root.IsZero() && committed {
			e, found, err := w.find(root, c.Path)
			if err != nil {
				return fmt.Errorf("commit: %s: %w", c.Path, err)
			}
			if found {
				committedBlob = e.hash
			}
		}
		pc.before[c.Path] = committedBlob
		if c.RequireClean {
			clean, err := s.diskMatches(c.Path, committedBlob)
			if err != nil {
				return err
			}
			if !clean {
				return &DirtyError{Path: c.Path}
			}
		}
		if c.Delete {
			changed = changed || !committedBlob.IsZero()
			continue
		}
		data := c.Content
		if c.OnDisk && c.ReadFrom != "" {
			var err error
			if data, err = os.ReadFile(c.ReadFrom); err != nil {
				return fmt.Errorf("commit: read %s: %w", c.Path, err)
			}
		}
		h, err := s.stageObject(pc.batch, plumbing.BlobObject, data)
		if err != nil {
			return fmt.Errorf("commit: write blob for %s: %w", c.Path, err)
		}
		pc.blobs[c.Path] = h
		if h != committedBlob {
			changed = true
		} else {
			pc.unchanged[c.Path] = true
		}
	}
	if !changed {
		return ErrNothingToCommit
	}
	return nil
}

// placeFiles puts the objects and the notes' new contents in place (with
// git's locks held): contents are staged beside the objects and synced with
// them, renamed, then deletions happen. An editor's save since the first
// clean check is never overwritten: the check runs again here and right
// before the renames, leaving a window of the renames' few microseconds.
func (s *Store) placeFiles(pc *pendingCommit) error {
	changes := pc.req.Changes
	if err := s.checkClean(changes, pc.before); err != nil {
		return err
	}
	real := map[string]bool{}
	for _, c := range changes {
		if c.OnDisk || (c.Delete && c.Absent) {
			continue
		}
		if err := s.noLinkOnTheWay(c.Path, real); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
	}
	for _, c := range changes {
		if c.Delete || c.OnDisk {
			continue
		}
		full := filepath.Join(s.dir, filepath.FromSlash(c.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		perm := os.FileMode(0o644)
		if fi, err := os.Stat(full); err == nil {
			perm = fi.Mode().Perm()
		}
		if err := pc.batch.stage(filepath.Dir(full), tempNotePattern(filepath.Base(full), pc.batch.nonce), full, c.Content, perm); err != nil {
			return fmt.Errorf("commit: write %s: %w", c.Path, err)
		}
	}
	pc.batch.beforeRename = func() error { return s.checkClean(changes, pc.before) }
	if err := pc.batch.flush(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for _, c := range changes {
		if !c.Delete {
			continue
		}
		full := filepath.Join(s.dir, filepath.FromSlash(c.Path))
		if c.RequireClean {
			if clean, err := s.diskMatches(c.Path, pc.before[c.Path]); err != nil || !clean {
				return &DirtyError{Path: c.Path}
			}
		}
		if c.Absent {
			continue // already gone, by hand
		}
		if err := os.Remove(full); err != nil && !Missing(err) {
			return fmt.Errorf("commit: remove %s: %w", c.Path, err)
		}
		removeEmptyParents(s.dir, filepath.Dir(full))
	}
	return nil
}

// recordCommit updates what the store knows once the branch has moved: the
// walk cache (what the commit changed) and the version map, or the
// overlay of the build it was made during.
func (s *Store) recordCommit(pc *pendingCommit, subject string) {
	before := map[string]plumbing.Hash{}
	for p, h := range pc.before {
		if !h.IsZero() {
			before[p] = h
		}
	}
	info := CommitInfo{Hash: pc.hash.String(), Author: pc.sig.Name, Email: pc.sig.Email, When: pc.sig.When, Committed: pc.sig.When,
		Subject: subject, Trailers: ParseTrailers(FormatMessage(pc.req.Message, pc.req.Trailers))}
	if !pc.head.IsZero() {
		info.Parents = []string{pc.head.String()}
	}
	s.remember(pc.hash, pc.head, info, pc.req.Changes, before, pc.blobs)
	s.rememberOwn(pc.hash, pc.head)
	if pc.build != nil {
		recordBuildingCommit(pc.build, pc)
		return
	}
	s.versions.head = pc.hash
	for _, c := range pc.req.Changes {
		if c.Delete {
			delete(s.versions.paths, c.Path)
		} else if !pc.unchanged[c.Path] {
			s.versions.paths[c.Path] = pc.hash
		}
	}
	s.dirty = true
}

func (s *Store) diskMatches(path string, committed plumbing.Hash) (bool, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(path)))
	if Missing(err) {
		return committed.IsZero(), nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if committed.IsZero() {
		return false, nil
	}
	return blobHash(data) == committed, nil
}

// checkClean fails with DirtyError when a RequireClean path's file on disk
// no longer equals its committed content.
func (s *Store) checkClean(changes []Change, committed map[string]plumbing.Hash) error {
	for _, c := range changes {
		if c.Absent {
			if _, err := os.Lstat(filepath.Join(s.dir, filepath.FromSlash(c.Path))); err == nil {
				return &DirtyError{Path: c.Path}
			}
		}
		if !c.RequireClean {
			continue
		}
		clean, err := s.diskMatches(c.Path, committed[c.Path])
		if err != nil {
			return err
		}
		if !clean {
			return &DirtyError{Path: c.Path}
		}
	}
	return nil
}

// blobHash is git's object id of a blob. crypto/sha1 is several times
// faster than go-git's collision-detecting hasher, and the content here is
// our own file, compared with our own commit.
func blobHash(data []byte) plumbing.Hash {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func (s *Store) writeEncoded(b *batch, o encoder) (plumbing.Hash, error) {
	mem := &plumbing.MemoryObject{}
	if err := o.Encode(mem); err != nil {
		return plumbing.ZeroHash, err
	}
	r, err := mem.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.stageObject(b, mem.Type(), buf.Bytes())
}

func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
