package host

import (
	"net"
	"os"
	"syscall"
)

// checkPeer admits only processes of this user (SO_PEERCRED): they could
// read and write the vault's files anyway.
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var uid uint32
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		var cred *syscall.Ucred
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if cred != nil {
			uid = cred.Uid
		}
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(uid) != os.Getuid() {
		return errPeer
	}
	return nil
}
