package gitstore

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// A sync moves the vault to commits someone else made: anyone who can push
// to the shared remote chooses the trees Advance writes. Before anything
// is written, every commit that comes in is checked entry by entry, the
// way git's checkout and fsck would: a path git would refuse (VerifyPath),
// a mode that is no file or folder (CheckMode), two entries of one name in
// a tree (a file and a folder, which tools read differently), a tree that
// does not parse, and a path the vault protects (Options.Protected). One
// such entry in any commit refuses the move whole.

// IncomingError says a commit that a sync would bring in holds a path that
// must never be written: the move is refused and nothing is written.
type IncomingError struct {
	Commit string
	Path   string
	Why    string
}

func (e *IncomingError) Error() string {
	return fmt.Sprintf("commit %s is refused: %s %s; nothing was written (remove the commit from the remote's branch, then sync again)",
		e.Commit, QuotePath(e.Path), e.Why)
}

// checkIncoming checks the commits reachable from target and not from
// head, each against its first parent: what a commit has that its parent
// had is known already (head's history is the vault's own; a parent that
// came in too was checked first).
func (s *Store) checkIncoming(head, target plumbing.Hash) error {
	commits, err := s.newCommits(head, target)
	if err != nil {
		return err
	}
	c := &incomingCheck{st: s.repo.Storer, protected: s.opts.Protected, done: map[treeAt]bool{}}
	for _, nc := range commits {
		if err := c.commit(nc[0], nc[1]); err != nil {
			return err
		}
	}
	return nil
}

// newCommits lists the commits reachable from target and not from head,
// parents first, each with its first parent (zero for a root commit), as
// `git rev-list` gives them.
func (s *Store) newCommits(head, target plumbing.Hash) ([][2]plumbing.Hash, error) {
	args := []string{"rev-list", "--reverse", "--topo-order", "--parents", target.String()}
	if !head.IsZero() {
		args = append(args, "^"+head.String())
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = s.dir
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list the commits to check before moving to %s: %v: %s", target, err, strings.TrimSpace(stderr.String()))
	}
	var list [][2]plumbing.Hash
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		nc := [2]plumbing.Hash{plumbing.NewHash(f[0])}
		if len(f) > 1 {
			nc[1] = plumbing.NewHash(f[1])
		}
		list = append(list, nc)
	}
	return list, nil
}

// incomingCheck walks the trees of incoming commits.
type incomingCheck struct {
	st        storer.EncodedObjectStorer
	protected func(path string) string
	done      map[treeAt]bool // trees found sound, at a path
	commitID  string
}

type treeAt struct {
	tree plumbing.Hash
	at   string
}

// commit checks what commit h's tree has that its parent's does not.
func (c *incomingCheck) commit(h, parent plumbing.Hash) error {
	c.commitID = h.String()
	rc, err := readCommit(c.st, h)
	if err != nil {
		return err
	}
	old := plumbing.ZeroHash
	if !parent.IsZero() {
		pc, err := readCommit(c.st, parent)
		if err != nil {
			return err
		}
		old = pc.tree
	}
	return c.tree(old, rc.tree, "")
}

// tree checks the entries of tree h (at path at, "" or ending in a slash)
// that tree old, its counterpart in the parent, does not hold alike.
func (c *incomingCheck) tree(old, h plumbing.Hash, at string) error {
	if h == old || c.done[treeAt{h, at}] {
		return nil
	}
	entries, err := c.entries(h, at)
	if err != nil {
		return err
	}
	var before []rawEntry
	if !old.IsZero() {
		if before, err = c.entries(old, at); err != nil {
			before = nil // then every entry is checked
		}
	}
	if dup := duplicateName(entries); dup != "" {
		return c.refuse(at+dup, "is in its folder twice (a file and a folder of one name, or one name repeated)")
	}
	for i := range entries {
		e := &entries[i]
		prev := rawEntry{}
		if j := findEntry(before, e.name); j >= 0 {
			prev = before[j]
			if prev.mode == e.mode && prev.hash == e.hash {
				continue
			}
		}
		p := at + string(e.name)
		if err := c.entry(e, p); err != nil {
			return err
		}
		if e.isDir() {
			from := plumbing.ZeroHash
			if prev.isDir() {
				from = prev.hash
			}
			if err := c.tree(from, e.hash, p+"/"); err != nil {
				return err
			}
		}
	}
	c.done[treeAt{h, at}] = true
	return nil
}

// entry checks one new or changed entry at path p.
func (c *incomingCheck) entry(e *rawEntry, p string) error {
	if bytes.IndexByte(e.name, '/') >= 0 {
		return c.refuse(p, "has a slash inside one name")
	}
	if err := VerifyPath(p); err != nil {
		return c.refuse(p, err.(*PathError).Why)
	}
	if why := CheckMode(e.mode); why != "" {
		return c.refuse(p, why)
	}
	if c.protected != nil {
		if why := c.protected(p); why != "" {
			return c.refuse(p, why)
		}
	}
	return nil
}

// entries reads and parses tree h.
func (c *incomingCheck) entries(h plumbing.Hash, at string) ([]rawEntry, error) {
	raw, err := readRaw(c.st, plumbing.TreeObject, h)
	if err != nil {
		return nil, c.refuse(strings.TrimSuffix(at, "/"), fmt.Sprintf("is a tree that cannot be read (%v)", err))
	}
	entries, err := parseTree(raw)
	if err != nil {
		return nil, c.refuse(strings.TrimSuffix(at, "/"), "is a malformed tree (an empty name, or bytes that are no entry)")
	}
	return entries, nil
}

func (c *incomingCheck) refuse(p, why string) error {
	if p == "" {
		p = "/"
	}
	return &IncomingError{Commit: c.commitID, Path: p, Why: why}
}

// duplicateName is a name entries hold twice ("" when none): parseTree
// sorts in git's order, where folder "a" sorts as "a/", so a file and a
// folder of one name need not be neighbours.
func duplicateName(entries []rawEntry) string {
	if len(entries) < 2 {
		return ""
	}
	seen := make(map[string]struct{}, len(entries))
	for i := range entries {
		n := string(entries[i].name)
		if _, ok := seen[n]; ok {
			return n
		}
		seen[n] = struct{}{}
	}
	return ""
}
