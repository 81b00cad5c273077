package main

import (
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// $CAIRN_CPUPROFILE makes any command write its CPU profile when it ends
// (bench/servebench -cpuprofile profiles a served process so); a file
// that cannot be made is an error naming the variable, before anything
// runs.
func TestCPUProfileFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "CAIRN_CPUPROFILE="+prof)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cairn version with a profile: %v\n%s", err, out)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatalf("no profile written: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // a pprof profile is a gzipped protocol buffer
	if err != nil {
		t.Fatalf("the profile is not one: %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Fatalf("the profile is empty or cut: %d bytes, %v", len(b), err)
	}

	cmd = exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "CAIRN_CPUPROFILE="+filepath.Join(dir, "missing", "cpu.pprof"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.HasPrefix(string(out), "cairn: $CAIRN_CPUPROFILE: ") || strings.Contains(string(out), "(go1.") {
		t.Fatalf("a profile that cannot be written: err %v, said %q; want an error naming $CAIRN_CPUPROFILE and nothing run", err, out)
	}
}
