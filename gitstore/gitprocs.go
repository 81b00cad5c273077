package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// runningGit is a person's git command moving the vault at dir, as
// "git pull" ("" when none runs, or where /proc cannot tell). /proc is
// listed again until a listing shows no process the last did not (at
// most five times): a command started while the first listing was read
// (about 1.5 ms here) is seen too, so what remains is the microseconds
// between the last listing and what the caller does next. seen holds the
// processes already looked at, which a later call skips: a commit looks
// before it takes git's locks and again, at the new ones only, right
// before its branch moves. A process that is not git and started less
// than youngProc ago is looked at again by a later call (seen false): it
// may be a shell's or a program's fork that has not run git yet, whose
// /proc entry still names its parent's program (the likely cause of a
// test's `git pull` breaking on cairn's commit on a loaded machine).
func runningGit(dir string, seen map[string]bool) string {
	seen[strconv.Itoa(os.Getpid())] = true
	now, clock := uptimeTicks()
	for round := 0; round < 5; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return ""
		}
		fresh := 0
		for _, e := range entries {
			name := e.Name()
			looked, known := seen[name]
			if name[0] < '0' || name[0] > '9' || looked {
				continue
			}
			if !known {
				fresh++
			}
			comm, start, ok := procStat("/proc/" + name)
			if !ok {
				seen[name] = true // gone
				continue
			}
			if sub := movingGitIn("/proc/"+name, comm, dir); sub != "" {
				return "git " + sub // not marked seen: it is looked at again
			}
			seen[name] = strings.HasPrefix(comm, "git") || !clock || start+youngProc < now
		}
		if fresh == 0 {
			return ""
		}
	}
	return ""
}

// youngProc is how recently, in clock ticks (USER_HZ, 100 a second on
// Linux), a process must have started to be looked at again: far longer
// than a fork takes to exec, even on a loaded machine.
const youngProc = 200

// uptimeTicks is the time since boot in clock ticks, as /proc/*/stat
// gives a process's start; ok is false where /proc cannot tell.
func uptimeTicks() (ticks uint64, ok bool) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	secs, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, false
	}
	return uint64(secs * 100), true
}

// procStat reads the program name and the start (in clock ticks since
// boot) of the process whose /proc entry is base, from its stat line:
// "pid (comm) state ppid ...", starttime the 22nd field, the 20th after
// the last ')'. ok is false for a process gone, or a line it cannot read.
func procStat(base string) (comm string, start uint64, ok bool) {
	b, err := os.ReadFile(base + "/stat")
	if err != nil {
		return "", 0, false
	}
	open, shut := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || shut < open {
		return "", 0, false
	}
	f := strings.Fields(string(b[shut+1:]))
	if len(f) < 20 {
		return "", 0, false
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	return string(b[open+1 : shut]), start, err == nil
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
