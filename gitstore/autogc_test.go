package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// plumbingBlobHash is the hash git gives a blob of content b.
func plumbingBlobHash(b []byte) string { return plumbing.ComputeHash(plumbing.BlobObject, b).String() }

// countObjects is `git count-objects -v`'s loose count and packs.
func countObjects(t *testing.T, dir string) (loose, packs int) {
	t.Helper()
	for _, line := range strings.Split(runGit(t, dir, "count-objects", "-v"), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.Atoi(v)
		switch k {
		case "count":
			loose = n
		case "packs":
			packs = n
		}
	}
	return loose, packs
}

// Every gcEvery commits a store has git run `git gc --auto`, as git does
// after a person's commits: past git's threshold the loose objects of
// cairn's writes go into a pack, and the store reads and writes on; with
// the person's gc.auto 0, nothing is packed.
func TestTheStoreHasGitPackItsLooseObjects(t *testing.T) {
	was, wasHook := gcEvery, afterAutoGC
	t.Cleanup(func() { gcEvery, afterAutoGC = was, wasHook })
	gcEvery = 10
	ran := make(chan struct{}, 10)
	afterAutoGC = func() {
		select {
		case ran <- struct{}{}:
		default: // never blocks a store's goroutine
		}
	}

	for _, auto := range []string{"40", "0"} {
		t.Run("gc.auto="+auto, func(t *testing.T) {
			s, dir := newStore(t)
			runGit(t, dir, "config", "gc.auto", auto)
			runGit(t, dir, "config", "gc.autoDetach", "false") // done when the command ends
			// git gc --auto estimates the loose objects from those in
			// objects/17 (gc.auto 40: more than one there): three notes
			// whose blobs land there make it certain.
			first := []Change{{Path: ".gitignore", Content: []byte(".cairn/\n")}}
			for i := 0; len(first) < 4; i++ {
				b := []byte(fmt.Sprint("seventeen ", i, "\n"))
				if strings.HasPrefix(plumbingBlobHash(b), "17") {
					first = append(first, Change{Path: fmt.Sprintf("notes/s%d.md", i), Content: b})
				}
			}
			commit(t, s, "first", first...)
			for i := range 2*gcEvery - 1 {
				commit(t, s, "note", Change{Path: fmt.Sprintf("notes/n%02d.md", i), Content: []byte(fmt.Sprint("note ", i, "\n"))})
			}
			// The first at the tenth commit; the second may find it still
			// running and start none.
			select {
			case <-ran:
			case <-time.After(time.Minute):
				t.Fatal("no git gc --auto ran")
			}
			for s.gcRunning.Load() {
				time.Sleep(10 * time.Millisecond)
			}
			loose, packs := countObjects(t, dir)
			if auto == "0" {
				if packs != 0 || loose < 60 {
					t.Fatalf("gc.auto 0: %d loose objects, %d packs; want all loose", loose, packs)
				}
				return
			}
			if packs == 0 || loose > 40 {
				t.Fatalf("%d loose objects, %d packs after the store's gc --auto; want a pack and at most gc.auto loose", loose, packs)
			}
			for _, p := range []string{"notes/n00.md", "notes/n18.md"} {
				want := runGit(t, dir, "log", "-1", "--format=%H", "--", p)
				if h, err := s.FileHistory(p, 5, 100); err != nil || len(h) != 1 || h[0].Hash != want {
					t.Errorf("history of %s after the pack: %v %v, want %s", p, h, err, want)
				}
			}
			commit(t, s, "edit", Change{Path: "notes/n00.md", Content: []byte("edited\n")})
			if out := runGit(t, dir, "fsck", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
				t.Fatalf("git fsck: %s", out)
			}
		})
	}
}

// git gc beside cairn's writes, again and again: it packs the loose
// objects (the store then reads the pack) and removes the empty folders
// of .git/objects (a write then makes its folder again). Every write
// succeeds and the repository stays sound.
func TestWritesBesideAGitGCLoseNothing(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "ignore", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	stop := make(chan struct{})
	gcs := make(chan int)
	go func() {
		n := 0
		defer func() { gcs <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			// git's default prune, of loose objects two weeks old: with
			// --prune=now git itself warns that a concurrent writer's
			// objects may go (git-gc(1)), and they do.
			cmd := exec.Command("git", "gc", "-q")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err == nil {
				n++
			} else if !strings.Contains(string(out), "lock") {
				t.Errorf("git gc: %v: %s", err, out)
			}
		}
	}()
	const writes = 60
	for i := range writes {
		if _, err := s.Commit(CommitRequest{Author: Signature{"agent", "agent@cairn.local"}, Message: "note",
			Changes: []Change{{Path: fmt.Sprintf("notes/d%02d/n%02d.md", i%7, i), Content: []byte(fmt.Sprint("note ", i, "\n"))}}}); err != nil {
			t.Errorf("write %d beside git gc: %v", i, err)
		}
	}
	close(stop)
	n := <-gcs
	if n == 0 {
		t.Fatal("no git gc completed beside the writes")
	}
	t.Logf("%d writes beside %d runs of git gc", writes, n)
	if out := runGit(t, dir, "fsck", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
		t.Fatalf("git fsck: %s", out)
	}
	if files := strings.Split(runGit(t, dir, "ls-files"), "\n"); len(files) != writes+1 {
		t.Errorf("%d files in HEAD, want %d", len(files), writes+1)
	}
}

// A commit that needs an object already stored loose freshens it, as git
// does, so that a gc's prune of old unreachable objects cannot take it
// while the commit lands.
func TestAnObjectACommitReusesIsFreshened(t *testing.T) {
	s, dir := newStore(t)
	commit(t, s, "ignore", Change{Path: ".gitignore", Content: []byte(".cairn/\n")})
	content := []byte("left by a write that never landed\n")
	file := filepath.Join(t.TempDir(), "left.md")
	if err := os.WriteFile(file, content, 0o644); err != nil {
		t.Fatal(err)
	}
	h := runGit(t, dir, "hash-object", "-w", file)
	obj := filepath.Join(dir, ".git", "objects", h[:2], h[2:])
	old := time.Now().Add(-21 * 24 * time.Hour)
	if err := os.Chtimes(obj, old, old); err != nil {
		t.Fatal(err)
	}
	commit(t, s, "note", Change{Path: "notes/left.md", Content: content})
	st, err := os.Stat(obj)
	if err != nil {
		t.Fatal(err)
	}
	if st.ModTime().Before(time.Now().Add(-time.Hour)) {
		t.Errorf("the reused object's time is %s: not freshened", st.ModTime())
	}
	runGit(t, dir, "gc", "-q", "--prune=2.weeks.ago")
	if got := runGit(t, dir, "show", "HEAD:notes/left.md"); got+"\n" != string(content) {
		t.Errorf("HEAD holds %q", got)
	}
}

// git gc's prune removes an empty folder of .git/objects, perhaps right
// after a write made it for its object: the write makes it again.
func TestAnObjectsFolderGoneIsMadeAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "objects", "b9")
	f, err := createIn(dir, tempObjectPrefix+"x-")
	if err != nil {
		t.Fatalf("createIn a folder gone: %v", err)
	}
	f.Close()
	if filepath.Dir(f.Name()) != dir {
		t.Errorf("made %s, not in %s", f.Name(), dir)
	}
}
