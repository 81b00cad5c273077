package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// processView is what the processes running now say about a repository,
// read from /proc (Linux) once, when first needed: the files they hold
// open and whether a git process works in it.
type processView struct {
	dir    string
	loaded bool
	ok     bool            // /proc could be read
	open   map[string]bool // files some process holds open
	git    bool            // a git process's working folder is in dir
}

// newProcessView looks at dir as /proc names it: symbolic links resolved.
func newProcessView(dir string) *processView {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return &processView{dir: dir}
}

// abandoned says whether a file no cairn mark identifies (a git lock, a
// temporary object) is safe to remove, and why.
func (v *processView) abandoned(p string, age, minAge time.Duration) (bool, string) {
	if age < minAge {
		return false, fmt.Sprintf("younger than %s: it may belong to a git command running now", minAge)
	}
	v.load()
	switch {
	case !v.ok:
		return false, "cannot tell whether a git process holds it (no /proc here); remove it by hand once no git command runs"
	case v.git:
		return false, "a git process is running in this repository"
	case v.open[resolved(p)]:
		return false, "a process has it open"
	}
	return true, fmt.Sprintf("no process has it open, no git process runs here, and it is older than %s", minAge)
}

func (v *processView) load() {
	if v.loaded {
		return
	}
	v.loaded = true
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	v.ok, v.open = true, map[string]bool{}
	var buf [64]byte
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		base := filepath.Join("/proc", e.Name())
		if comm, _ := procComm(base, buf[:]); comm != "" { // a git process (gitprocs.go)
			if cwd, err := os.Readlink(filepath.Join(base, "cwd")); err == nil && (cwd == v.dir || strings.HasPrefix(cwd, v.dir+string(filepath.Separator))) {
				v.git = true
			}
		}
		fds, _ := os.ReadDir(filepath.Join(base, "fd"))
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(base, "fd", fd.Name())); err == nil {
				v.open[target] = true
			}
		}
	}
}

func resolved(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
