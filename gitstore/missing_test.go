package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A file is missing when it does not exist or when a folder on its path is
// now a file; any other failure to read it is not a deletion.
func TestMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "specs"), []byte("a file where a folder was\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, gone := os.ReadFile(filepath.Join(dir, "nothing.md"))
	_, under := os.ReadFile(filepath.Join(dir, "specs", "Billing.md"))
	for what, err := range map[string]error{"no such file": gone, "a file where its folder was": under} {
		if err == nil || !Missing(err) {
			t.Errorf("%s: %v, want it missing", what, err)
		}
	}
	for _, err := range []error{nil, os.ErrPermission, errors.New("read: input/output error")} {
		if Missing(err) {
			t.Errorf("%v taken for a missing file", err)
		}
	}
}
