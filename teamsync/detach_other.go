//go:build !unix

package teamsync

import "os/exec"

// detach: no sessions here; GIT_TERMINAL_PROMPT=0, no askpass program and
// ssh's BatchMode are what keep git from asking.
func detach(c *exec.Cmd) {}
