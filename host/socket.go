package host

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/cairn-dev/cairn/vault"
)

// maxSocketPath is the longest Unix socket path every platform takes
// (sun_path is 108 bytes on Linux, 104 on macOS, counting the NUL).
const maxSocketPath = 100

// SocketPath is where the host of the vault at root listens:
// .cairn/cache/host.sock, or, when that path is too long for a Unix socket,
// a name derived from the vault's path in a folder of the user's own under
// the temporary directory.
func SocketPath(root string) string {
	p := filepath.Join(root, vault.CacheDir, "host.sock")
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(privateTempDir(), hex.EncodeToString(sum[:12])+".sock")
}

func privateTempDir() string {
	return filepath.Join(os.TempDir(), "cairn-"+strconv.Itoa(os.Getuid()))
}

// listen makes the host's socket: any file left at its path by a host
// that was killed is removed first (the caller holds the host lock, so no
// live host uses it), and the socket is made owner-only before it is used.
func listen(path string) (*net.UnixListener, error) {
	if dir := filepath.Dir(path); dir == privateTempDir() {
		if err := ensurePrivateDir(dir); err != nil {
			return nil, err
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the socket a previous host left: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// Between bind and chmod another user could connect: checkPeer refuses
	// them anyway.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("make %s owner-only: %w", path, err)
	}
	return ln, nil
}

// ensurePrivateDir makes dir, or checks the one there: a real folder (not
// a link someone else planted), owned by this user, closed to others.
func ensurePrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("socket folder %s is not a folder of this user's closed to others; remove it", dir)
	}
	return nil
}

// errPeer refuses a connection from another user.
var errPeer = errors.New("the connecting process belongs to another user")

// HolderPID is the pid the host lock names (0 when none): the process
// hosting the vault, or a command holding it.
func HolderPID(root string) int {
	b, err := os.ReadFile(filepath.Join(root, vault.HostLockFile))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// describePID names a process for a message: its pid and command line.
func describePID(pid int) string {
	if pid == 0 {
		return "another process"
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return fmt.Sprintf("process %d", pid)
	}
	cmd := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(cmd) > 80 {
		cmd = cmd[:80] + "…"
	}
	return fmt.Sprintf("process %d (%s)", pid, cmd)
}

// Canonical is the vault's path as every process names it (absolute,
// links resolved), so that all of them find the same socket.
func Canonical(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("vault %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("open vault %s: %w", root, err)
	}
	return real, nil
}
