package gitstore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// A write cairn acknowledged can still end up off the vault's branch: a
// commit made while a person's git operation was starting (gitbusy.go
// closes that window to microseconds, not to nothing), a reset or a
// rebase --abort that moved the branch back past it, a write that went to
// another branch before cairn refused to write there. git keeps it in a
// reflog until the reflog expires. Stranded finds those commits and what
// they changed, for cairn doctor to report and --fix to bring back.

// maxReflogLines is how much of each reflog Stranded reads (the newest).
const maxReflogLines = 2000

// Stranded is a commit of cairn's (it has a Cairn-Tool trailer) that a
// local branch's reflog or HEAD's holds, that is not on the vault's
// branch, and whose change is not on it in another form either (a rebase
// rewrites a commit; git cherry compares the changes).
type Stranded struct {
	Commit  string    `json:"commit"`
	Parent  string    `json:"parent,omitempty"` // its first parent ("" for a root commit)
	Reflog  string    `json:"reflog"`           // where it was found: "main", "HEAD", another branch
	Author  Signature `json:"author"`
	When    time.Time `json:"when"`
	Subject string    `json:"subject"`
	Message string    `json:"-"` // whole, trailers included
	Paths   []string  `json:"paths"`
}

// Stranded lists the commits of cairn's off the vault's branch, parents
// first.
func (s *Store) Stranded() ([]Stranded, error) {
	s.mu.Lock()
	branch := s.branch
	s.mu.Unlock()
	if branch == "" {
		return nil, nil
	}
	found, err := reflogCommits(filepath.Join(s.dir, ".git"))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	cands := make([]string, 0, len(found))
	for h := range found {
		cands = append(cands, h)
	}
	sort.Strings(cands)
	g := gitIn{dir: s.dir}
	off, err := g.notOn(branch.String(), cands)
	if err != nil {
		return nil, err
	}
	var mine []Stranded
	for _, h := range off {
		if st, ok, err := g.cairnCommit(h); err == nil && ok {
			mine = append(mine, st) // else gone (the reflog outlived it), or not cairn's
		}
	}
	if len(mine) == 0 {
		return nil, nil
	}
	restored, err := g.restoredSince(branch.String(), mine)
	if err != nil {
		return nil, err
	}
	var out []Stranded
	for _, st := range mine {
		if restored[st.Commit] {
			continue
		}
		if applied, err := g.alreadyOn(branch.String(), st); err != nil || applied {
			continue
		}
		st.Reflog = found[st.Commit]
		out = append(out, st)
	}
	return g.oldestFirst(branch.String(), out)
}

// oldestFirst orders list parents first (git rev-list --topo-order), which
// is the order to bring them back in: commit times have seconds, and a
// write and its next are often in one.
func (g gitIn) oldestFirst(branch string, list []Stranded) ([]Stranded, error) {
	if len(list) < 2 {
		return list, nil
	}
	var in strings.Builder
	for _, st := range list {
		in.WriteString(st.Commit + "\n")
	}
	out, err := g.run(strings.NewReader(in.String()), "rev-list", "--topo-order", "--reverse", "--stdin", "--not", branch)
	if err != nil {
		return nil, err
	}
	rank := map[string]int{}
	for i, h := range strings.Fields(string(out)) {
		rank[h] = i
	}
	sort.SliceStable(list, func(i, j int) bool { return rank[list[i].Commit] < rank[list[j].Commit] })
	return list, nil
}

// reflogCommits reads the newest entries of HEAD's reflog and each local
// branch's: each commit a reflog moved to, and where it was found.
func reflogCommits(gitDir string) (map[string]string, error) {
	found := map[string]string{}
	add := func(file, name string) {
		f, err := os.Open(file)
		if err != nil {
			return
		}
		defer f.Close()
		var lines []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if len(lines) > 2*maxReflogLines {
				lines = lines[maxReflogLines:]
			}
		}
		if len(lines) > maxReflogLines {
			lines = lines[len(lines)-maxReflogLines:]
		}
		for _, l := range lines {
			if f := strings.Fields(l); len(f) >= 2 && plumbing.IsHash(f[1]) && f[1] != plumbing.ZeroHash.String() {
				if _, ok := found[f[1]]; !ok {
					found[f[1]] = name
				}
			}
		}
	}
	heads := filepath.Join(gitDir, "logs", "refs", "heads")
	filepath.WalkDir(heads, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(heads, p)
			add(p, filepath.ToSlash(rel))
		}
		return nil
	})
	add(filepath.Join(gitDir, "logs", "HEAD"), "HEAD")
	return found, nil
}

// gitIn runs the git command line in a work tree.
type gitIn struct{ dir string }

func (g gitIn) run(stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = gitEnv()
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// notOn are the commits of cands that exist and are not reachable from
// branch.
func (g gitIn) notOn(branch string, cands []string) ([]string, error) {
	out, err := g.run(strings.NewReader(strings.Join(cands, "\n")+"\n"), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	var commits []string
	for _, l := range strings.Split(string(out), "\n") {
		if h, kind, ok := strings.Cut(l, " "); ok && kind == "commit" {
			commits = append(commits, h)
		}
	}
	if len(commits) == 0 {
		return nil, nil
	}
	out, err = g.run(strings.NewReader(strings.Join(commits, "\n")+"\n"), "rev-list", "--stdin", "--not", branch)
	if err != nil {
		return nil, err
	}
	unreachable := map[string]bool{}
	for _, h := range strings.Fields(string(out)) {
		unreachable[h] = true
	}
	var off []string
	for _, h := range commits {
		if unreachable[h] {
			off = append(off, h)
		}
	}
	return off, nil
}

// cairnCommit reads commit h: ok when cairn made it (a Cairn-Tool trailer).
func (g gitIn) cairnCommit(h string) (Stranded, bool, error) {
	out, err := g.run(nil, "show", "-s", "--format=%P%x00%an%x00%ae%x00%ct%x00%s%x00%B", h)
	if err != nil {
		return Stranded{}, false, err
	}
	f := strings.SplitN(string(out), "\x00", 6)
	if len(f) < 6 {
		return Stranded{}, false, fmt.Errorf("git show %s: unexpected output", h)
	}
	msg := f[5]
	if _, ok := ParseTrailers(msg)["Cairn-Tool"]; !ok {
		return Stranded{}, false, nil
	}
	secs, _ := strconv.ParseInt(f[3], 10, 64)
	st := Stranded{Commit: h, Author: Signature{Name: f[1], Email: f[2]}, When: time.Unix(secs, 0), Subject: f[4], Message: msg}
	if parents := strings.Fields(f[0]); len(parents) > 0 {
		st.Parent = parents[0]
	}
	from := []string{"--root", h}
	if st.Parent != "" {
		from = []string{st.Parent, h}
	}
	out, err = g.run(nil, append([]string{"diff-tree", "--no-commit-id", "-r", "--name-only", "-z"}, from...)...)
	if err != nil {
		return Stranded{}, false, err
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			st.Paths = append(st.Paths, p)
		}
	}
	return st, true, nil
}

// restoredSince are the commits that commits on branch since the oldest
// of list (a day's margin for clocks) name in a Cairn-Restored trailer:
// brought back by doctor --fix already, perhaps as a conflict copy.
func (g gitIn) restoredSince(branch string, list []Stranded) (map[string]bool, error) {
	oldest := list[0].When
	for _, st := range list {
		if st.When.Before(oldest) {
			oldest = st.When
		}
	}
	out, err := g.run(nil, "log", fmt.Sprintf("--since=@%d", oldest.Add(-24*time.Hour).Unix()),
		"--format=%(trailers:key=Cairn-Restored,valueonly,separator=%x00)", branch)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for _, h := range strings.FieldsFunc(string(out), func(r rune) bool { return r == 0 || r == '\n' }) {
		done[strings.TrimSpace(h)] = true
	}
	return done, nil
}

// alreadyOn says whether branch holds st's change anyway: a commit with the
// same change (git cherry: a rebase made one), or each path as st left it.
func (g gitIn) alreadyOn(branch string, st Stranded) (bool, error) {
	limit := st.Parent
	args := []string{"cherry", branch, st.Commit}
	if limit != "" {
		args = append(args, limit)
	}
	out, err := g.run(nil, args...)
	if err != nil {
		return false, err
	}
	if strings.HasPrefix(strings.TrimSpace(string(out)), "-") {
		return true, nil
	}
	for _, p := range st.Paths {
		theirs, _ := g.run(nil, "rev-parse", "-q", "--verify", st.Commit+":"+p)
		ours, _ := g.run(nil, "rev-parse", "-q", "--verify", branch+":"+p)
		if !bytes.Equal(theirs, ours) {
			return false, nil
		}
	}
	return true, nil
}

// FileAt is the content of path in commit ("", false when absent).
func (s *Store) FileAt(commit, path string) ([]byte, bool, error) {
	if commit == "" {
		return nil, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := readCommit(s.repo.Storer, plumbing.NewHash(commit))
	if err != nil {
		return nil, false, err
	}
	e, ok, err := newRawWalker(s.repo.Storer).find(c.tree, path)
	if err != nil || !ok || e.isDir() {
		return nil, false, err
	}
	data, err := s.blobData(e.hash)
	return data, err == nil, err
}
