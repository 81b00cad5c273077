// Command historybench measures what a vault's git history costs at open
// (issue 16): the same notes as a deep history (one commit per note) and
// squashed into one commit, each opened from a fresh `git clone` (no
// .cairn caches), in a child process of its own so that its high-water
// mark (VmHWM) is its own.
//
//	go run ./bench/historybench -notes 10000
//	go run ./bench/historybench -notes 10000 -profile bench/out/hist
//
// Each child times gitstore.Open alone (the version map), then
// vault.Open (what `cairn serve` does before it serves: the host opens the
// vault, and starts the index in the background), then the search index
// built whole (Bleve and vectors), reading VmHWM after each step. With
// -profile it writes a CPU profile of the open and a heap profile taken
// right after it (<prefix>-deep.cpu, -deep.heap, -flat.cpu, -flat.heap).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
)

// result is what a child reports, as one JSON line on stdout. KiB
// figures are /proc/self/status's; CPU is user + system time.
type result struct {
	Commits   int           `json:"commits"`
	MapOnly   time.Duration `json:"mapOnly"`   // gitstore.Open and a first Version, no cache
	MapCPU    time.Duration `json:"mapCPU"`    // CPU of it
	Open      time.Duration `json:"open"`      // vault.Open, no cache
	OpenCPU   time.Duration `json:"openCPU"`   // CPU of it
	Versions  time.Duration `json:"versions"`  // from the open's start until a versionToken is answered
	HWMOpen   int64         `json:"hwmOpen"`   // VmHWM once versionTokens are answered
	HeapAlloc uint64        `json:"heapAlloc"` // bytes in use then, after a GC
	Index     time.Duration `json:"index"`     // the search index built whole
	HWMIndex  int64         `json:"hwmIndex"`
}

func main() {
	notes := flag.Int("notes", 10000, "notes (and commits of the deep history)")
	folders := flag.Int("folders", 100, "folders they are spread over")
	words := flag.Int("words", 300, "words per note")
	index := flag.Bool("index", true, "also build the search index after the open")
	profile := flag.String("profile", "", "write CPU and heap profiles of the open with this prefix")
	keep := flag.String("dir", "", "generate here and keep it (default: a temporary folder, removed)")
	measure := flag.String("measure", "", "(child) open this vault and report as JSON")
	flag.Parse()
	if *measure != "" {
		measureOpen(*measure, *index, *profile)
		return
	}
	dir := *keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "cairn-histbench-")
		must(err)
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	src := filepath.Join(dir, "src")
	if _, err := os.Stat(filepath.Join(src, ".git")); err == nil {
		fmt.Printf("reusing %s (generated before with its own -notes)\n", src)
	} else {
		t0 := time.Now()
		_, err := corpus.DeepHistory(src, *notes, *folders, *words, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
		must(err)
		// The same tree in one commit, on a branch of its own.
		flat := strings.TrimSpace(gitOut(src, "commit-tree", "main^{tree}", "-m", "all notes"))
		gitRun(src, "update-ref", "refs/heads/flat", flat)
		fmt.Printf("generated %d notes, %d commits, in %v\n", *notes, *notes, time.Since(t0).Round(time.Millisecond))
	}

	fmt.Printf("\n| history | commits | version map alone (CPU) | vault.Open (CPU) | first versionToken | VmHWM then | Go heap then | search index built | VmHWM after index |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, kind := range []string{"deep", "flat"} {
		clone := filepath.Join(dir, kind)
		branch := "main"
		if kind == "flat" {
			branch = "flat"
		}
		// A clone as from a server: one pack, no caches.
		must(os.RemoveAll(clone))
		gitRun(dir, "clone", "-q", "--no-local", "--single-branch", "-b", branch, src, clone)
		if branch != "main" {
			gitRun(clone, "branch", "-m", branch, "main")
		}
		args := []string{"-measure", clone, fmt.Sprintf("-index=%v", *index)}
		if *profile != "" {
			args = append(args, "-profile", *profile+"-"+kind)
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		must(err)
		var r result
		must(json.Unmarshal(out, &r))
		fmt.Printf("| %s | %d | %v (%v) | %v (%v) | %v | %s | %s | %v | %s |\n", kind, r.Commits,
			r.MapOnly.Round(time.Millisecond), r.MapCPU.Round(time.Millisecond), r.Open.Round(time.Millisecond), r.OpenCPU.Round(time.Millisecond),
			r.Versions.Round(time.Millisecond), mib(r.HWMOpen*1024), mib(int64(r.HeapAlloc)), r.Index.Round(time.Millisecond), mib(r.HWMIndex*1024))
	}
}

// measureOpen is the child: it opens dir as the host does and prints a
// result.
func measureOpen(dir string, index bool, profile string) {
	var r result
	r.Commits = strings.Count(gitOut(dir, "rev-list", "--first-parent", "HEAD"), "\n")
	if profile != "" {
		f, err := os.Create(profile + ".cpu")
		must(err)
		must(pprof.StartCPUProfile(f))
	}
	t0, c0 := time.Now(), cpu()
	gs, err := gitstore.Open(dir, gitstore.Options{})
	must(err)
	_, _, err = gs.Version(".gitignore")
	must(err)
	r.MapOnly, r.MapCPU = time.Since(t0), cpu()-c0
	must(gs.Close())
	gs = nil
	runtime.GC()
	t0, c0 = time.Now(), cpu()
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	r.Open, r.OpenCPU = time.Since(t0), cpu()-c0
	_, _, err = v.Store().Version(".gitignore")
	must(err)
	r.Versions = time.Since(t0)
	r.HWMOpen = status("VmHWM")
	if profile != "" {
		pprof.StopCPUProfile()
		f, err := os.Create(profile + ".heap")
		must(err)
		must(pprof.WriteHeapProfile(f))
		f.Close()
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.HeapAlloc = ms.HeapAlloc
	if index {
		t0 = time.Now()
		ix, err := v.SearchIndex()
		must(err)
		ix.WaitVectors(30 * time.Minute)
		r.Index = time.Since(t0)
		r.HWMIndex = status("VmHWM")
	}
	must(v.Close())
	must(json.NewEncoder(os.Stdout).Encode(r))
}

// cpu is the user and system time this process and the children it
// waited for (git) used so far.
func cpu() time.Duration {
	var t time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return t
}

// status reads one KiB figure of /proc/self/status (0 where there is none).
func status(key string) int64 {
	st, err := measure.Status(0)
	if err != nil {
		return 0
	}
	return int64(st[key] >> 10)
}

func mib(b int64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func gitRun(dir string, args ...string) { gitOut(dir, args...) }

func gitOut(dir string, args ...string) string {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@cairn.local", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@cairn.local")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		panic(fmt.Sprintf("git %v: %v\n%s", args, err, msg))
	}
	return string(out)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
