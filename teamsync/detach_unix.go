//go:build unix

package teamsync

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// detach runs c in a session of its own. With no controlling terminal,
// neither ssh nor a credential helper can open /dev/tty to ask for a
// passphrase, a password or a host key: a sync never waits on a question
// nobody sees (a background sync has no one to answer it). Cancelling c
// kills its whole process group: git and the ssh or git-remote-https it
// started, which would otherwise outlive it.
func detach(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	c.Cancel = func() error {
		err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
