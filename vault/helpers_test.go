package vault

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/access"
)

var (
	owner   = access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	camille = access.Caller{Principal: "camille", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	sam     = access.Caller{Principal: "sam", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
)

// sampleVault makes a fresh vault from sample-vault/ in a temp dir.
func sampleVault(t testing.TB) (*Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

func gitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func commitCount(t testing.TB, dir string) string {
	return gitOut(t, dir, "rev-list", "--count", "HEAD")
}

// unchanged asserts HEAD and the work tree are exactly as before.
func unchanged(t testing.TB, dir, head string) {
	t.Helper()
	if now := gitOut(t, dir, "rev-parse", "HEAD"); now != head {
		t.Fatalf("HEAD moved from %s to %s", head, now)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("work tree changed:\n%s", st)
	}
}

// cleanAndSound asserts the work tree is clean and git fsck is happy.
func cleanAndSound(t testing.TB, dir string) {
	t.Helper()
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status not clean:\n%s", st)
	}
	fsck(t, dir)
}

func fsck(t testing.TB, dir string) {
	t.Helper()
	gitOut(t, dir, "fsck", "--strict", "--no-progress")
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testQuiet is the quiet period of the tests' vaults: a note written by a
// test is read back at once rather than after the default 3 s.
const testQuiet = 100 * time.Millisecond
