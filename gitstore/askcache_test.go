package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTheAsksCacheStaysWithinItsBounds(t *testing.T) {
	for _, c := range []struct {
		bytes, want int64
	}{
		{-1, askCacheCeiling},
		{0, askCacheFloor},
		{45_000, askCacheFloor},
		{200_000, 200_000 * askCachePerTreeByte},
		{840_000, 840_000 * askCachePerTreeByte},
		{4_000_000, askCacheCeiling},
	} {
		if got := askDeltaCache(c.bytes); got != c.want {
			t.Errorf("askDeltaCache(%d) = %d, want %d", c.bytes, got, c.want)
		}
	}
}

// A read's ask of git during the version map's build gets a delta base
// cache as large as the trees on its path's way call for: the floor for a
// note in a small folder, more for one in a folder of thousands
// (askcache.go).
func TestTheAsksCacheFollowsTheTreesOnItsWay(t *testing.T) {
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	const flat = 3000
	for _, p := range []string{"flat", "small"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range flat {
		if err := os.WriteFile(filepath.Join(dir, "flat", fmt.Sprintf("Note %06d.md", i)), []byte(fmt.Sprint("note ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "small", "a.md"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "notes")
	// What git stores: the root tree and the folder's, the estimate counts
	// a byte more for each of the root's two folders (a mode of 5 digits).
	size := func(rev string) int64 {
		n, err := strconv.ParseInt(runGit(t, dir, "cat-file", "-s", rev), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	flatWay := size("HEAD^{tree}") + size("HEAD:flat") + 2
	smallWay := size("HEAD^{tree}") + size("HEAD:small") + 2
	if askDeltaCache(flatWay) <= askCacheFloor || askDeltaCache(smallWay) != askCacheFloor {
		t.Fatalf("the folders do not tell the two apart: %d and %d bytes on the way", flatWay, smallWay)
	}

	calls := filepath.Join(t.TempDir(), "calls")
	wrapGit(t, "echo \"$*\" >> \""+calls+"\"\nexec \"$GIT\" \"$@\"\n")
	s, _ := openBuilding(t, dir)

	want := map[string]int64{"flat/Note 000000.md": askDeltaCache(flatWay), "small/a.md": askCacheFloor}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		for p := range want {
			if _, ok, err := s.Version(p); err != nil || !ok {
				t.Errorf("Version(%q) during the build: %v %v", p, ok, err)
			}
		}
	}()
	select {
	case <-answered:
	case <-time.After(time.Minute): // bounds a failure only
		t.Fatal("a read waited for the version map's build")
	}
	logged, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	limit := regexp.MustCompile(`core\.deltaBaseCacheLimit=(\d+) --literal-pathspecs log .* -- (.*)$`)
	got := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		if m := limit.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			got[m[2]] = n
		}
	}
	for p, n := range want {
		if got[p] != n {
			t.Errorf("the ask for %s had a cache of %d bytes, want %d (git's calls:\n%s)", p, got[p], n, logged)
		}
	}
}
