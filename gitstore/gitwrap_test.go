package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// wrapGit puts a shell script in front of git for the rest of the test:
// script is its body, in which "$GIT" is the real git.
func wrapGit(t *testing.T, script string) {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nGIT=\""+bin+"\"\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	was := gitCommand
	gitCommand = wrapper
	t.Cleanup(func() { gitCommand = was })
}

// holdGit holds every git process whose arguments hold the word arg
// behind a wrapper until release is called; the others run at once.
func holdGit(t *testing.T, arg string) (release func()) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	wrapGit(t, "case \" $* \" in *\" "+arg+" \"*) read x < \""+fifo+"\";; esac\nexec \"$GIT\" \"$@\"\n")
	return func() {
		if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
