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

// $CAIRN_CPUPROFILE and $CAIRN_TRACE make any command write its CPU
// profile and its execution trace when it ends (bench/servebench
// -cpuprofile profiles a served process so); a file that cannot be made
// is an error naming the variable, before anything runs.
func TestProfilesFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	prof, tr := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "trace.out")
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "CAIRN_CPUPROFILE="+prof, "CAIRN_TRACE="+tr)
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
	if b, err := os.ReadFile(tr); err != nil || !strings.HasPrefix(string(b), "go 1.") {
		t.Fatalf("no execution trace written (%v): %.20q", err, b)
	}

	for _, env := range []string{"CAIRN_CPUPROFILE", "CAIRN_TRACE"} {
		cmd = exec.Command(bin, "version")
		cmd.Env = append(os.Environ(), env+"="+filepath.Join(dir, "missing", "out"))
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.HasPrefix(string(out), "cairn: $"+env+": ") || strings.Contains(string(out), "(go1.") {
			t.Fatalf("a %s that cannot be written: err %v, said %q; want an error naming it and nothing run", env, err, out)
		}
	}
}
