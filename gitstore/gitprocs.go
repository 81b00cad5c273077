package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A git pull reads HEAD, fetches (for as long as the network takes), then
// reads HEAD again; a commit of cairn's in between makes it take cairn's
// commit for one the fetch made and try to fast-forward the work tree
// over it ("fetch updated the current branch head ... Cannot fast-forward
// your working tree"). A rebase reads the branch before it writes
// .git/rebase-merge. No file in the repository says such a command has
// begun: only the process does. So cairn looks for one (on Linux, in
// /proc) before it takes git's locks, and again right before the branch
// moves, and when it finds one answers GitBusyError (putting back the
// files it wrote, the second time). Looking first also keeps cairn from
// taking index.lock in the middle of a person's command: git merge and
// git cherry-pick that meet it half-way leave their work half-staged.

// movingCommands are the git commands that read the branch and move it
// or the work tree later: a commit of cairn's landing while one runs
// breaks it. (git commit is left out: it reads HEAD before its editor
// opens, and would make agents wait for as long as a person writes a
// message; git refuses that commit then, and the person makes it again.)
var movingCommands = map[string]bool{
	"pull": true, "rebase": true, "merge": true, "checkout": true, "switch": true, "cherry-pick": true,
	"revert": true, "am": true, "reset": true, "stash": true, "bisect": true,
}

// procLooks remembers, between looks, the processes that were not a git
// command moving the vault: a look reads a process's name (procComm,
// three system calls) only when it is new, was first listed less than
// youngFor ago, or was last read more than rereadAfter ago. A shell's or
// a program's fork seen at a commit's first look still names its parent's
// program until it runs git; it is young, so the commit's second look,
// right before the branch moves, reads it again and sees git by then (the
// likely cause of a test's `git pull` breaking on cairn's commit on a
// loaded machine). A process listed for longer is read again at most once
// every rereadAfter: one that runs git in place of itself (a script's
// `exec git pull`) is seen within that time.
//
// Before, a commit's first look read every process's /proc/N/stat: 1.2–1.3
// ms a commit for 68 processes here, several times that on a desktop with
// hundreds, and about 2 ms of CPU a write in the profile of a served
// 100,000-note vault. A commit right after another now takes 0.13–0.14
// ms, one after a second without any 0.9–1.1 ms
// (BenchmarkCommitsLookingForGit, burst and cold).
type procLooks struct {
	mu    sync.Mutex
	known map[string]procSeen // by pid
}

// procSeen is what procLooks knows of a process that was not a git
// command moving the vault.
type procSeen struct {
	first, read time.Time // first listed; name last read
}

// youngFor and rereadAfter: a process first listed less than youngFor
// ago is read at every look; one listed for longer at most once every
// rereadAfter (variables for tests).
var (
	youngFor    = 2 * time.Second
	rereadAfter = time.Second
)

// runningGit is a person's git command moving the vault at dir, as
// "git pull" ("" when none runs, or where /proc cannot tell). /proc is
// listed again until a listing shows no process the last did not (at
// most five times): a command started while the first listing was read
// is seen too, so what remains is the microseconds between the last
// listing and what the caller does next.
func (l *procLooks) runningGit(dir string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.known == nil {
		l.known = map[string]procSeen{}
	}
	self := strconv.Itoa(os.Getpid())
	listed := map[string]bool{}
	var buf [64]byte
	for round := 0; round < 5; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return ""
		}
		now := time.Now()
		fresh := 0
		for _, e := range entries {
			name := e.Name()
			if name[0] < '0' || name[0] > '9' || name == self || listed[name] {
				continue
			}
			listed[name] = true
			seen, known := l.known[name]
			if !known {
				fresh++
				seen.first = now
			} else if now.Sub(seen.first) >= youngFor && now.Sub(seen.read) < rereadAfter {
				continue
			}
			comm, ok := procComm("/proc/"+name, buf[:])
			if !ok {
				continue // gone
			}
			if sub := movingGitIn("/proc/"+name, comm, dir); sub != "" {
				return "git " + sub // not remembered: it is read again
			}
			seen.read = now
			l.known[name] = seen
		}
		if round == 0 {
			for pid := range l.known {
				if !listed[pid] {
					delete(l.known, pid) // ended: its pid may come back as another process
				}
			}
		}
		if fresh == 0 {
			return ""
		}
	}
	return ""
}

// procComm reads the program name of the process whose /proc entry is
// base into buf: comm is the name when it begins with "git" ("git",
// "git-remote-http"), else ""; ok is false for a process gone.
func procComm(base string, buf []byte) (comm string, ok bool) {
	fd, err := unix.Open(base+"/comm", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 {
		return "", false
	}
	b := bytes.TrimSuffix(buf[:n], []byte("\n"))
	if !bytes.HasPrefix(b, []byte("git")) {
		return "", true
	}
	return string(b), true
}

// movingGitIn is the subcommand of the git process whose /proc entry is
// base and program comm, when it is one of movingCommands working in dir
// ("" otherwise).
func movingGitIn(base, comm, dir string) string {
	if !strings.HasPrefix(comm, "git") {
		return ""
	}
	args, err := os.ReadFile(base + "/cmdline")
	if err != nil {
		return ""
	}
	cwd, _ := os.Readlink(base + "/cwd")
	if sub, in := gitCommandIn(strings.Split(strings.TrimRight(string(args), "\x00"), "\x00"), cwd, dir); in && movingCommands[sub] {
		return sub
	}
	return ""
}

// gitCommandIn reads a git command line: its subcommand, and whether it
// works in dir (its working folder, or the one -C names, is dir or in it).
func gitCommandIn(args []string, cwd, dir string) (string, bool) {
	if len(args) == 0 || filepath.Base(args[0]) != "git" {
		return "", false
	}
	where := cwd
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" && i+1 < len(args):
			i++
			if filepath.IsAbs(args[i]) {
				where = args[i]
			} else {
				where = filepath.Join(where, args[i])
			}
		case a == "-c" && i+1 < len(args), a == "--git-dir" && i+1 < len(args), a == "--work-tree" && i+1 < len(args), a == "--namespace" && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, where == dir || strings.HasPrefix(where, dir+string(filepath.Separator))
		}
	}
	return "", false
}
