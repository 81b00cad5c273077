// Package vaulttest opens a vault for the tests of the packages built on
// package vault (the memory families, vault/hindsight and vault/treaisure,
// and vault's own external tests, where the kernel and the families meet):
// a fresh copy of sample-vault/, the callers the tests act as, and the
// git checks they end with. Package vault's internal tests have the same
// helpers of their own (vault/helpers_test.go): they cannot import a
// package that imports vault. Tests only.
package vaulttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// The principals the tests act as: the sample vault's owner, and two
// members.
var (
	Owner   = access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	Camille = access.Caller{Principal: "camille", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	Sam     = access.Caller{Principal: "sam", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	// Human is the owner at the command line (`cairn access`), who grants.
	Human = access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
)

// Quiet is the quiet period of the tests' vaults: a note written by a
// test is read back at once rather than after the default 3 s.
const Quiet = 100 * time.Millisecond

// SampleDir is the repository's sample-vault/ folder.
func SampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "sample-vault")
}

// Sample makes a fresh vault from sample-vault/ in a temporary folder and
// opens it (closed when the test ends); it returns the vault and its
// folder.
func Sample(t testing.TB) (*vault.Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vault.Init(dir, vault.InitOptions{From: SampleDir()}); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{Quiet: Quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

// ReadFile is the file at path, or the test fails.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Git runs git in dir and returns its output, trimmed; a failure fails
// the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// CleanAndSound asserts the work tree is clean and git fsck is happy.
func CleanAndSound(t testing.TB, dir string) {
	t.Helper()
	if st := Git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status not clean:\n%s", st)
	}
	Git(t, dir, "fsck", "--strict", "--no-progress")
}
