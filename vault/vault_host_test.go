package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestHostLockIsExclusiveAndRefusesAnOlderServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{Exclusive: true}); !errors.Is(err, ErrVaultBusy) {
		t.Fatalf("second exclusive open: %v", err)
	}
	v.Close()
	// A cairn from before hosting holds serve.lock for its lifetime.
	f, err := os.OpenFile(filepath.Join(dir, CacheDir, "serve.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("4242\n")
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{Exclusive: true})
	if err == nil || errors.Is(err, ErrVaultBusy) || !strings.Contains(err.Error(), "older cairn server (pid 4242)") {
		t.Fatalf("open beside an older server: %v", err)
	}
	f.Close()
	v, err = Open(dir, Options{Exclusive: true})
	if err != nil {
		t.Fatalf("open once the older server is gone: %v", err)
	}
	v.Close()
}
