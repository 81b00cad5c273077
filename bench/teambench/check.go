package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// settled says how the clones came to agree once the agents stopped.
type settled struct {
	agreed     bool
	background time.Duration // the background syncs alone agreed after this (0: they did not within -settle)
	rounds     int           // rounds of cairn sync needed after that
	syncErrors []string      // cairn sync runs that failed
	took       time.Duration // from the agents' stop to agreement (or giving up)
	waited     time.Duration // -settle
}

// settle waits for the background syncs to bring every clone to the
// remote's head, then runs cairn sync on each clone (through its server)
// in rounds until they agree.
func (t *team) settle() settled {
	st := settled{waited: t.cfg.settle}
	t0 := time.Now()
	for time.Since(t0) < t.cfg.settle {
		if t.agree() {
			st.agreed, st.background, st.took = true, time.Since(t0), time.Since(t0)
			return st
		}
		time.Sleep(500 * time.Millisecond)
	}
	for r := 1; r <= t.cfg.rounds && !st.agreed; r++ {
		fmt.Fprintf(errOut, "teambench: not settled; cairn sync round %d\n", r)
		for _, c := range t.clones {
			out, err := exec.Command(t.bin, "sync", "--vault", c.dir).CombinedOutput()
			if err != nil {
				st.syncErrors = append(st.syncErrors, fmt.Sprintf("%s round %d: %v: %s", c.name, r, err, lastLine(out)))
			}
		}
		st.rounds = r
		st.agreed = t.agree()
	}
	st.took = time.Since(t0)
	return st
}

// agree says whether every clone's HEAD is the remote's main.
func (t *team) agree() bool {
	want, err := gitOut(t.remote, "rev-parse", "main")
	if err != nil {
		return false
	}
	for _, c := range t.clones {
		if h, err := gitOut(c.dir, "rev-parse", "HEAD"); err != nil || h != want {
			return false
		}
	}
	return true
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// missing counts the acknowledged writes whose marker is absent from a
// clone's files now (read afresh, not from the poll's cache).
func (t *team) missing(acks []ack) (pairs int, writes []ack) {
	for _, a := range acks {
		lost := false
		for _, c := range t.clones {
			if !present(c.dir, a) {
				pairs++
				lost = true
			}
		}
		if lost {
			writes = append(writes, a)
		}
	}
	return pairs, writes
}

func present(dir string, a ack) bool {
	if a.kind == "create" {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(a.path)))
		return err == nil && bytes.Contains(b, []byte(a.marker))
	}
	folder := filepath.Join(dir, filepath.FromSlash(sharedFolder))
	entries, err := os.ReadDir(folder)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(folder, e.Name())); err == nil && bytes.Contains(b, []byte(a.marker)) {
			return true
		}
	}
	return false
}

// trees is the number of distinct HEAD trees among the clones and the
// remote's main (1: identical), and the clones with uncommitted changes.
func (t *team) trees() (distinct int, dirty []string, err error) {
	seen := map[string]bool{}
	tree, err := gitOut(t.remote, "rev-parse", "main^{tree}")
	if err != nil {
		return 0, nil, err
	}
	seen[tree] = true
	for _, c := range t.clones {
		tree, err := gitOut(c.dir, "rev-parse", "HEAD^{tree}")
		if err != nil {
			return 0, nil, err
		}
		seen[tree] = true
		st, err := gitOut(c.dir, "status", "--porcelain")
		if err != nil {
			return 0, nil, err
		}
		if st != "" {
			dirty = append(dirty, c.name+": "+strings.ReplaceAll(st, "\n", "; "))
		}
	}
	return len(seen), dirty, nil
}

// fsck runs git fsck on the remote and every clone; it returns the
// failures.
func (t *team) fsck() []string {
	var bad []string
	dirs := []string{t.remote}
	for _, c := range t.clones {
		dirs = append(dirs, c.dir)
	}
	for _, d := range dirs {
		cmd := exec.Command("git", "-C", d, "fsck", "--no-progress", "--full")
		if out, err := cmd.CombinedOutput(); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v: %s", d, err, lastLine(out)))
		}
	}
	return bad
}

// scan walks a clone's files (not .git, not the derived .cairn/cache) for
// lines that start with a conflict marker, and counts conflict copies:
// notes whose frontmatter says conflict_from.
func scan(dir string) (markers []string, copies int, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == ".cairn/cache" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if hasConflictMarker(b) {
			markers = append(markers, rel)
		}
		if strings.HasSuffix(rel, ".md") && inFrontmatter(b, "conflict_from:") {
			copies++
		}
		return nil
	})
	return markers, copies, err
}

// hasConflictMarker says whether a line starts with git's conflict
// markers <<<<<<< or >>>>>>>.
func hasConflictMarker(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		l := sc.Bytes()
		if bytes.HasPrefix(l, []byte("<<<<<<<")) || bytes.HasPrefix(l, []byte(">>>>>>>")) {
			return true
		}
	}
	return false
}

// inFrontmatter says whether a line of b's leading frontmatter starts
// with key.
func inFrontmatter(b []byte, key string) bool {
	s := string(b)
	if !strings.HasPrefix(s, "---\n") {
		return false
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return false
	}
	for _, l := range strings.Split(s[4:4+end], "\n") {
		if strings.HasPrefix(l, key) {
			return true
		}
	}
	return false
}
