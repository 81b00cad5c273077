package gitstore

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// A read during the version map's build takes what git's walk has read
// so far: the version the walk found, or git asked to walk on from the
// last commit the walk has read whole. Cut anywhere (between two
// commits, or in the middle of one's list of paths), every path of HEAD
// gets the version the whole map gives it, in a history with edits of old
// files, deletions, an undone change, a file become a folder and a merge.
func TestAReadTakesWhatTheMapsWalkHasRead(t *testing.T) {
	dir, paths, head, whole := wholeWalk(t, 120)
	log, err := gitLogCommand(dir, head, walkDeltaCache).Output()
	if err != nil {
		t.Fatal(err)
	}
	// Where each commit's header ends, and where its first path does.
	var headers, firstPaths []int
	for i := 0; i < len(log); i++ {
		if log[i] == 1 {
			end := i + bytes.IndexByte(log[i:], 0) + 1
			headers = append(headers, end)
			if next := bytes.IndexByte(log[end:], 0); next >= 0 {
				firstPaths = append(firstPaths, end+next+1)
			}
			i = end
		}
	}
	if len(headers) < 100 {
		t.Fatalf("git listed %d commits", len(headers))
	}
	cuts := []int{headers[0], firstPaths[0], headers[1], firstPaths[2], headers[9], headers[60], firstPaths[61], headers[len(headers)-2], firstPaths[len(firstPaths)-1]}
	walkFound, walkedOn := 0, 0 // paths the walk had found, paths git walked on for
	for _, cut := range cuts {
		b := &versionBuild{head: head, done: make(chan struct{}), slots: make(chan struct{}, onDemandSlots)}
		unresolved := map[string]string{}
		for _, p := range paths {
			unresolved[p] = p
		}
		out := map[string]plumbing.Hash{}
		r := &cutReader{given: log[:cut], drained: make(chan struct{}), rest: make(chan struct{})}
		ended := make(chan error, 1)
		go func() {
			_, err := readGitLog(r, unresolved, out, nil, &b.progress)
			ended <- err
		}()
		select {
		case <-r.drained: // every whole record given has been read
		case err := <-ended: // every file has its commit
			if err != nil {
				t.Fatalf("cut at byte %d: %v", cut, err)
			}
			ended <- nil
		}
		for _, p := range paths {
			if _, found, from := b.progress.walked(p); found {
				walkFound++
			} else if !from.IsZero() {
				walkedOn++
			}
			got, err := b.askGit(dir, p, askCacheFloor)
			if err != nil {
				t.Fatalf("cut at byte %d: %s: %v", cut, p, err)
			}
			if got != whole.paths[p] {
				t.Fatalf("cut at byte %d: %s: %s, the whole map says %s", cut, p, got, whole.paths[p])
			}
		}
		close(r.rest)
		if err := <-ended; err != nil {
			t.Fatal(err)
		}
	}
	if walkFound == 0 || walkedOn == 0 {
		t.Fatalf("of the asks, %d took what the walk found and %d walked on from it: both should", walkFound, walkedOn)
	}
}

// cutReader gives the walk's output up to a cut, then says it has been
// drained and holds the reader until rest is closed (then io.EOF).
type cutReader struct {
	given         []byte
	drained, rest chan struct{}
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.given) > 0 {
		n := copy(p, c.given)
		c.given = c.given[n:]
		return n, nil
	}
	select {
	case <-c.drained:
	default:
		close(c.drained)
	}
	<-c.rest
	return 0, io.EOF
}

// Once a read has asked git, the map's walk, niced until then, goes on
// from the commit whose paths it was about to read in a new git process
// (at normal priority), and the map comes out as a whole walk gives it.
func TestAHurriedWalkGoesOnWhereItWas(t *testing.T) {
	dir, paths, head, whole := wholeWalk(t, 600)
	calls := filepath.Join(t.TempDir(), "calls")
	wrapGit(t, "echo \"$*\" >> \""+calls+"\"\nexec \"$GIT\" \"$@\"\n")

	var progress walkProgress
	progress.hurry.Store(true) // a read asked as the walk began
	vm, err := gitVersions(dir, head, &atomic.Bool{}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if len(vm.paths) != len(paths) || len(whole.paths) != len(paths) {
		t.Fatalf("%d paths: the hurried walk gave %d versions, the whole one %d", len(paths), len(vm.paths), len(whole.paths))
	}
	for _, p := range paths {
		if vm.paths[p] != whole.paths[p] {
			t.Fatalf("%s: the hurried walk says %s, the whole one %s", p, vm.paths[p], whole.paths[p])
		}
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	var walks []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, " log --first-parent ") {
			walks = append(walks, strings.TrimSuffix(line, " --"))
		}
	}
	if len(walks) != 2 || !strings.HasSuffix(walks[0], head.String()) || strings.HasSuffix(walks[1], head.String()) {
		t.Fatalf("want two walks, the second from a commit under the head %s; git ran:\n%s", head, strings.Join(walks, "\n"))
	}
}

// wholeWalk makes a history of n commits (deepHistory) and the map a
// whole walk of it gives: the folder, HEAD's paths, HEAD, the map.
func wholeWalk(t *testing.T, n int) (string, []string, plumbing.Hash, *versionMap) {
	t.Helper()
	dir := t.TempDir()
	paths := deepHistory(t, dir, n)
	head := plumbing.NewHash(runGit(t, dir, "rev-parse", "main"))
	whole, err := buildVersions(dir, head, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, paths, head, whole
}
