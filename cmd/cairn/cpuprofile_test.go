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

// $CAIRN_CPUPROFILE, $CAIRN_TRACE and $CAIRN_MEMPROFILE make any command
// write its CPU profile, its execution trace and its heap profile when it
// ends (bench/servebench
// -cpuprofile profiles a served process so); a file that cannot be made
// is an error naming the variable, before anything runs.
func TestProfilesFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	prof, tr, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "trace.out"), filepath.Join(dir, "mem.pprof")
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "CAIRN_CPUPROFILE="+prof, "CAIRN_TRACE="+tr, "CAIRN_MEMPROFILE="+mem)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cairn version with a profile: %v\n%s", err, out)
	}
	for _, p := range []string{prof, mem} {
		isProfile(t, p)
	}
	if b, err := os.ReadFile(tr); err != nil || !strings.HasPrefix(string(b), "go 1.") {
		t.Fatalf("no execution trace written (%v): %.20q", err, b)
	}

	for _, env := range []string{"CAIRN_CPUPROFILE", "CAIRN_TRACE", "CAIRN_MEMPROFILE"} {
		cmd = exec.Command(bin, "version")
		cmd.Env = append(os.Environ(), env+"="+filepath.Join(dir, "missing", "out"))
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.HasPrefix(string(out), "cairn: $"+env+": ") || strings.Contains(string(out), "(go1.") {
			t.Fatalf("a %s that cannot be written: err %v, said %q; want an error naming it and nothing run", env, err, out)
		}
	}
}

// isProfile fails t unless the file p holds a pprof profile, not empty.
func isProfile(t *testing.T, p string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatalf("no profile written: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // a pprof profile is a gzipped protocol buffer
	if err != nil {
		t.Fatalf("%s is not a profile: %v", p, err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Fatalf("the profile %s is empty or cut: %d bytes, %v", p, len(b), err)
	}
}
