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
// begun: only the process does. So right before the branch moves, cairn
// looks for one (on Linux, in /proc) and, when it finds one, puts the
// files back and answers GitBusyError.

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
// between the last listing and the branch's move.
func runningGit(dir string) string {
	seen := map[string]bool{strconv.Itoa(os.Getpid()): true}
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
			seen[name] = true
			fresh++
			if sub := movingGitIn("/proc/"+name, dir); sub != "" {
				return "git " + sub
			}
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
