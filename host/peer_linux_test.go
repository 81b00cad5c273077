package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets a test run this binary again as another user, to dial a
// host from there (CAIRN_TEST_DIAL names the socket).
func TestMain(m *testing.M) {
	if sock := os.Getenv("CAIRN_TEST_DIAL"); sock != "" {
		_, err := dial(sock, "test")
		fmt.Printf("dial: %v\n", err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A process of another user that reaches the socket (its mode opened up
// here on purpose) is refused before the host reads a byte.
func TestAPeerOfAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a process as another user (CI runs as root)")
	}
	base, err := os.MkdirTemp("", "cairn-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	root := newVault(t, filepath.Join(base, "v"))
	startNode(t, root)
	sock := SocketPath(root)
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	// A copy of this test binary that the other user may run.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(base, "host.test")
	if err := os.WriteFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	dialAs := func(uid uint32) string {
		cmd := exec.Command(self, "-test.run", "^$")
		cmd.Env = append(os.Environ(), "CAIRN_TEST_DIAL="+sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("dial as uid %d: %v: %s", uid, err, out)
		}
		return string(out)
	}
	if out := dialAs(0); !strings.Contains(out, "dial: <nil>") {
		t.Fatalf("the same user was refused: %s", out)
	}
	// Refused: the host closes the connection, so the greeting fails
	// (a broken pipe or EOF, whichever the other side meets first).
	if out := dialAs(65534); !strings.HasPrefix(out, "dial: ") || strings.Contains(out, "dial: <nil>") {
		t.Fatalf("another user's dial: %s", out)
	}
}
