package gitstore

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// writeLock is the cross-process write lock (an flock on Options.LockFile)
// and, written into that same file, the intent of the commit in progress.
//
// The kernel releases an flock when its process dies, so whoever holds the
// lock knows no other cairn process is committing. If the file still holds
// an intent, the process that wrote it died mid-commit: its temporary files
// and git lock files (each marked with the intent's nonce) are its own and
// can be removed, and its commit rolled forward or dropped (recover.go).
// The intent costs two small writes per commit and no fsync: it answers a
// process crash, which leaves the page cache intact.
type writeLock struct {
	f     *os.File
	nonce string
	// keep leaves a dead commit's intent in place at release, for the
	// next holder, when recovering from it failed.
	keep bool
	// indexBase, when set, is the commit git's index on disk matches while
	// the index of the commits after it up to landed is pending
	// (pendingIndex); every intent written meanwhile names both.
	indexBase, landed plumbing.Hash
}

// intent is what a commit in progress wrote into the write lock.
type intent struct {
	nonce string
	pid   int
	// Set once the commit's objects are staged, just before git's locks
	// are taken: the branch, the commit it builds on and the new commit.
	branch       plumbing.ReferenceName
	head, commit plumbing.Hash
	// The index on disk matches indexBase; the commits after it up to
	// landed were made (zero: the index matched the branch before this
	// commit).
	indexBase, landed plumbing.Hash
}

// lockWrites takes the write lock, blocking while another process commits.
// With no LockFile it locks nothing (and nothing can be recovered).
func lockWrites(path string) (*writeLock, error) {
	nonce := newNonce()
	if path == "" {
		return &writeLock{nonce: nonce}, nil
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
	return &writeLock{f: f, nonce: nonce}, nil
}

// release clears the intent (the commit is over, made or not) and unlocks.
func (l *writeLock) release() {
	if l.f == nil {
		return
	}
	if !l.keep {
		l.f.Truncate(0)
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}

// leftover reads the intent a dead commit left, if any.
func (l *writeLock) leftover() (*intent, bool) {
	if l.f == nil {
		return nil, false
	}
	buf := make([]byte, 1024)
	n, _ := l.f.ReadAt(buf, 0)
	if n == 0 {
		return nil, false
	}
	return parseIntent(string(buf[:n]))
}

// begin records that a commit with this lock's nonce is starting.
func (l *writeLock) begin() {
	l.write(fmt.Sprintf("cairn-commit %s %d%s\n", l.nonce, os.Getpid(), l.pendingIndex()))
}

// staged records the commit about to move the branch.
func (l *writeLock) staged(branch plumbing.ReferenceName, head, commit plumbing.Hash) {
	l.write(fmt.Sprintf("cairn-commit %s %d %s %s %s%s\n", l.nonce, os.Getpid(), branch, head, commit, l.pendingIndex()))
}

// pendingIndex is the intent's tail naming a pending index, if any.
func (l *writeLock) pendingIndex() string {
	if l.indexBase.IsZero() && l.landed.IsZero() {
		return ""
	}
	return fmt.Sprintf(" index %s %s", l.indexBase, l.landed)
}

// clear forgets the intent (after a recovery, the lock still held).
func (l *writeLock) clear() {
	if l.f != nil {
		l.f.Truncate(0)
	}
}

// write replaces the intent in one write, then trims what a longer
// previous intent left after it: a process killed in between leaves a
// readable intent, never an empty file (which would orphan the commit's
// temporary files).
func (l *writeLock) write(s string) {
	if l.f == nil {
		return
	}
	l.f.WriteAt([]byte(s), 0)
	l.f.Truncate(int64(len(s)))
}

func parseIntent(s string) (*intent, bool) {
	f := strings.Fields(s)
	if len(f) < 3 || f[0] != "cairn-commit" || !validNonce(f[1]) {
		return nil, false
	}
	in := &intent{nonce: f[1]}
	in.pid, _ = strconv.Atoi(f[2])
	if n := len(f); n >= 3 && f[n-3] == "index" && plumbing.IsHash(f[n-2]) && plumbing.IsHash(f[n-1]) {
		in.indexBase, in.landed = plumbing.NewHash(f[n-2]), plumbing.NewHash(f[n-1])
		f = f[:n-3]
	}
	if len(f) == 6 && strings.HasPrefix(f[3], "refs/heads/") && plumbing.IsHash(f[4]) && plumbing.IsHash(f[5]) {
		in.branch = plumbing.ReferenceName(f[3])
		in.head, in.commit = plumbing.NewHash(f[4]), plumbing.NewHash(f[5])
	}
	return in, true
}

// ReadIntent reports, without taking the lock, whether the write lock file
// at path holds the intent of a commit: the pid that wrote it, and whether
// that process still holds the lock (a commit in progress) or died.
func ReadIntent(path string) (pid int, found, alive bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false, false
	}
	in, ok := parseIntent(string(data))
	if !ok {
		return 0, false, false
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return in.pid, true, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return in.pid, true, true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return in.pid, true, false
}

func newNonce() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func validNonce(s string) bool {
	if len(s) != 12 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
