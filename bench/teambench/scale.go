package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
)

// scaleRow is what one remote measured: its size and how long cloning
// it takes.
type scaleRow struct {
	label               string
	notes, commits      int
	tree, pack          int64 // bytes of the notes checked out; of the remote's pack
	gen                 time.Duration
	file, http, shallow time.Duration // git clone over file://, over smart HTTP, --depth 1 over file://
	clonedGit           int64         // bytes of a full clone's .git
}

// runScale measures, for each size of -notes (and that size again with
// -history more commits when given), the repository size and git clone
// times; then cairn clone and the first cairn serve at -serve-notes.
func runScale(c config, tmp, bin string) error {
	sents, err := corpus.Sentences(c.data)
	if err != nil {
		return err
	}
	srv, err := serveHTTP(tmp)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Printf("%d CPUs, load average %s; notes of ~%d words (bench/corpus) in one commit; remotes packed by a full clone (what a push to a git host makes)\n\n",
		runtime.NumCPU(), measure.LoadAvg(), c.words)
	var rows []scaleRow
	for _, n := range c.notes {
		fmt.Fprintf(errOut, "teambench: generating %d notes\n", n)
		gen := filepath.Join(tmp, fmt.Sprintf("gen%d", n))
		t0 := time.Now()
		if err := corpus.Generate(gen, n, c.words, sents, rand.New(rand.NewSource(1))); err != nil {
			return err
		}
		if _, err := vault.Init(gen, vault.InitOptions{}); err != nil {
			return fmt.Errorf("init %s: %w", gen, err)
		}
		r, err := measureRemote(tmp, gen, srv.url, fmt.Sprintf("remote-%d.git", n), fmt.Sprintf("%d notes", n), n, time.Since(t0))
		if err != nil {
			return err
		}
		rows = append(rows, r)
		if c.history > 0 && n == c.notes[0] {
			fmt.Fprintf(errOut, "teambench: adding %d commits\n", c.history)
			t0 := time.Now()
			if err := addHistory(gen, c.history, rand.New(rand.NewSource(2))); err != nil {
				return err
			}
			r, err := measureRemote(tmp, gen, srv.url, fmt.Sprintf("remote-%d-h%d.git", n, c.history), fmt.Sprintf("%d notes, +%d commits", n, c.history), n, time.Since(t0))
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
		if n == c.serveNotes {
			if err := cloneAndServe(c, tmp, bin, filepath.Join(tmp, fmt.Sprintf("remote-%d.git", n)), n); err != nil {
				return err
			}
		}
		if err := os.RemoveAll(gen); err != nil {
			return err
		}
	}
	fmt.Println()
	fmt.Println("| remote | commits | notes checked out | remote's pack | git clone file:// | git clone http:// (loopback) | git clone --depth 1 file:// | full clone's .git |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", r.label, r.commits, mibf(r.tree), mibf(r.pack),
			secs(r.file), secs(r.http), secs(r.shallow), mibf(r.clonedGit))
	}
	fmt.Printf("\nload average at the end: %s\n", measure.LoadAvg())
	return nil
}

// measureRemote packs gen into a bare remote (as a first push to a git
// host would) and times cloning it three ways.
func measureRemote(tmp, gen, url, name, label string, notes int, took time.Duration) (scaleRow, error) {
	r := scaleRow{label: label, notes: notes, gen: took}
	remote := filepath.Join(tmp, name)
	os.RemoveAll(remote)
	if err := git(tmp, "clone", "-q", "--bare", "--no-local", gen, remote); err != nil {
		return r, err
	}
	n, err := gitOut(remote, "rev-list", "--count", "HEAD")
	if err != nil {
		return r, err
	}
	fmt.Sscan(n, &r.commits)
	if r.pack, err = du(filepath.Join(remote, "objects")); err != nil {
		return r, err
	}
	dst := filepath.Join(tmp, "clone")
	timed := func(d *time.Duration, args ...string) error {
		os.RemoveAll(dst)
		t0 := time.Now()
		if err := git(tmp, append(append([]string{"clone", "-q"}, args...), dst)...); err != nil {
			return err
		}
		*d = time.Since(t0)
		return nil
	}
	fmt.Fprintf(errOut, "teambench: %s: cloning\n", label)
	if err := timed(&r.shallow, "--depth", "1", "file://"+remote); err != nil {
		return r, err
	}
	if err := timed(&r.http, url+"/"+name); err != nil {
		return r, err
	}
	if err := timed(&r.file, "file://"+remote); err != nil {
		return r, err
	}
	if r.clonedGit, err = du(filepath.Join(dst, ".git")); err != nil {
		return r, err
	}
	r.tree, err = notesSize(dst)
	os.RemoveAll(dst)
	return r, err
}

// addHistory adds commits to gen's main, each appending a line to one
// note, with git fast-import (fast, and the same objects as a commit per
// write would make).
func addHistory(gen string, commits int, rng *rand.Rand) error {
	paths, err := gitOut(gen, "ls-files", "*.md")
	if err != nil {
		return err
	}
	files := strings.Split(paths, "\n")
	content := map[string][]byte{}
	var in bytes.Buffer
	when := time.Now().Unix()
	for i := 0; i < commits; i++ {
		p := files[rng.Intn(len(files))]
		if content[p] == nil {
			b, err := os.ReadFile(filepath.Join(gen, filepath.FromSlash(p)))
			if err != nil {
				return fmt.Errorf("history: %w", err)
			}
			content[p] = b
		}
		content[p] = fmt.Appendf(content[p], "\nEdit %d: one more line of the team's history.\n", i)
		msg := fmt.Sprintf("Edit %s", p)
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter bench <bench@cairn.local> %d +0000\ndata %d\n%s\n", when+int64(i), len(msg), msg)
		if i == 0 {
			in.WriteString("from refs/heads/main^0\n")
		}
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", quotePath(p), len(content[p]), content[p])
	}
	cmd := exec.Command("git", "-C", gen, "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("history: git fast-import: %w\n%s", err, out)
	}
	return nil
}

// quotePath quotes a path for fast-import (the generated ones hold
// spaces, no quotes or newlines).
func quotePath(p string) string { return `"` + p + `"` }

// httpServer is git http-backend behind Go's net/http/cgi on 127.0.0.1,
// serving the bare repositories in a folder (clone only).
type httpServer struct {
	url string
	srv *http.Server
}

func serveHTTP(root string) (*httpServer, error) {
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("git --exec-path: %w", err)
	}
	h := &cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for git http-backend: %w", err)
	}
	s := &httpServer{url: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h}}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *httpServer) Close() { s.srv.Close() }

// du is the bytes of the regular files under dir.
func du(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return n, nil
}

// notesSize is the bytes of dir's .md files (outside .git).
func notesSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".md") && d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	return n, err
}

func mibf(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
