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
// before its branch moves.
func runningGit(dir string, seen map[string]bool) string {
	seen[strconv.Itoa(os.Getpid())] = true
	for round := 0; round < 5; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return ""
		}
		fresh := 0
		for _, e := range entries {
			name := e.Name()
			if name[0] < '0' || name[0] > '9' || seen[name] {
				continue
			}
			fresh++
			if sub := movingGitIn("/proc/"+name, dir); sub != "" {
				return "git " + sub // not marked seen: it is looked at again
			}
			seen[name] = true
		}
		if fresh == 0 {
			return ""
		}
	}
	return ""
}

// movingGitIn is the subcommand of the git process whose /proc entry is
// base, when it is one of movingCommands working in dir ("" otherwise).
func movingGitIn(base, dir string) string {
	comm, err := os.ReadFile(base + "/comm")
	if err != nil || !bytes.HasPrefix(comm, []byte("git")) {
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
