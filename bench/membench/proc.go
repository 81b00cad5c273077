package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/bench/measure"
)

// statusFields are the lines of /proc/self/status kept (kB there, bytes
// here).
var statusFields = map[string]bool{"VmRSS": true, "VmHWM": true, "RssAnon": true, "RssFile": true, "RssShmem": true, "VmSize": true}

func readStatus() (map[string]uint64, error) {
	all, err := measure.Status(0)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for k := range statusFields {
		out[k] = all[k]
	}
	return out, nil
}

// mapping is the process's mappings of one kind, summed from
// /proc/self/smaps: Size is the address space, Rss what is resident.
type mapping struct {
	Kind  string `json:"kind"`
	Size  uint64 `json:"size"`
	Rss   uint64 `json:"rss"`
	Count int    `json:"count"`
}

// Kinds of mapping.
const (
	mapBleve  = "Bleve segment files (mmapped)"
	mapIndex  = "other files of the search index (mmapped)"
	mapGit    = "git pack files (mmapped)"
	mapBinary = "the executable (code, rodata: the embedded word table)"
	mapLibs   = "shared libraries"
	mapAnon   = "anonymous (Go heap, stacks, runtime)"
	mapOther  = "other files"
)

// readMaps sums /proc/self/smaps by kind; vault is the hosted vault, whose
// index and git files are told apart from the rest.
func readMaps(vault string) ([]mapping, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	search := filepath.Join(vault, ".cairn", "cache", "search") + "/"
	gitDir := filepath.Join(vault, ".git") + "/"
	sums := map[string]*mapping{}
	var cur *mapping
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's header line
			path := ""
			if len(fields) >= 6 {
				path = strings.Join(fields[5:], " ")
			}
			kind := mapKind(path, self, search, gitDir)
			if sums[kind] == nil {
				sums[kind] = &mapping{Kind: kind}
			}
			cur = sums[kind]
			cur.Count++
			continue
		}
		if cur == nil || len(fields) < 2 || (fields[0] != "Size:" && fields[0] != "Rss:") {
			continue
		}
		n, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("/proc/self/smaps: %q: %w", line, err)
		}
		if fields[0] == "Size:" {
			cur.Size += n << 10
		} else {
			cur.Rss += n << 10
		}
	}
	var out []mapping
	for _, m := range sums {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rss > out[j].Rss })
	return out, sc.Err()
}

func mapKind(path, self, search, gitDir string) string {
	switch {
	case path == "" || strings.HasPrefix(path, "["):
		return mapAnon
	case path == self:
		return mapBinary
	case strings.HasPrefix(path, search) && strings.HasSuffix(path, ".zap"):
		return mapBleve
	case strings.HasPrefix(path, search):
		return mapIndex
	case strings.HasPrefix(path, gitDir):
		return mapGit
	case strings.Contains(path, ".so"):
		return mapLibs
	}
	return mapOther
}
