package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func numCPU() int { return runtime.NumCPU() }

// server is `cairn serve` over stdio.
type server struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

func startServe(bin, dir string) *server {
	cmd := exec.Command(bin, "serve", "--vault", dir)
	in, err := cmd.StdinPipe()
	must(err)
	outp, err := cmd.StdoutPipe()
	must(err)
	s := &server{cmd: cmd, in: in, out: bufio.NewReader(outp), stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	must(cmd.Start())
	s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pathobench","version":"1"}}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *server) call(msg string) string {
	fmt.Fprintln(s.in, msg)
	line, err := s.out.ReadString('\n')
	if err != nil {
		panic(fmt.Sprintf("no answer to %s: %v\n%s", msg, err, s.stderr))
	}
	return line
}

// wait waits for the process to exit, at most d.
func (s *server) wait(d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		s.cmd.Process.Kill()
		return fmt.Errorf("still running after %s (killed)", d)
	}
}

// sigterm starts the server on the vault with its search index deleted
// (a first build, seconds long) and pathological notes not indexed yet,
// sends SIGTERM after a while, and times the exit; then restarts it and
// times its first search answer.
func sigterm(dir string, notes map[string]string) {
	bin := filepath.Join(filepath.Dir(dir), "cairn")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/cairn").CombinedOutput(); err != nil {
		panic(fmt.Sprintf("build cairn: %v\n%s", err, out))
	}
	fmt.Println("`cairn serve` (stdio), its search index deleted, stopped by SIGTERM mid-build:")
	fmt.Println()
	fmt.Println("| SIGTERM after start | exit after SIGTERM | restart: first search answered after (results) | the long notes found after |")
	fmt.Println("|---|---|---|---|")
	for i, after := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second} {
		must(os.RemoveAll(filepath.Join(dir, ".cairn", "cache", "search")))
		for _, name := range names(notes) {
			write(dir, fmt.Sprintf("space/fresh%d/%s.md", i, name), notes[name])
		}
		s := startServe(bin, dir)
		time.Sleep(after)
		t := time.Now()
		must(s.cmd.Process.Signal(syscall.SIGTERM))
		err := s.wait(60 * time.Second)
		exit := time.Since(t)
		if err != nil {
			fmt.Fprintf(os.Stderr, "serve: %v\n%s\n", err, s.stderr)
		}
		r := startServe(bin, dir)
		t = time.Now()
		ans := r.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"Note 000123","mode":"lexical"}}}`)
		first := time.Since(t)
		long := "not in 60 s"
		for id := 3; time.Since(t) < time.Minute; id++ {
			q := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"%s","mode":"lexical","limit":50}}}`, id, marker("prose-1MiB"))
			if strings.Count(r.call(q), `\"path\"`) >= 2+i { // space/patho's copy and each fresh one so far
				long = ms(time.Since(t))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		r.in.Close()
		must(r.wait(60 * time.Second))
		fmt.Printf("| %s | %s | %s (%d) | %s |\n", ms(after), ms(exit), ms(first), strings.Count(ans, `\"path\"`), long)
	}
	fmt.Println()
	fmt.Println("The same over HTTP (`--http 127.0.0.1:0 --no-auth`, no client connected):")
	fmt.Println()
	fmt.Println("| SIGTERM after start | exit after SIGTERM |")
	fmt.Println("|---|---|")
	for _, after := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second} {
		must(os.RemoveAll(filepath.Join(dir, ".cairn", "cache", "search")))
		cmd := exec.Command(bin, "serve", "--vault", dir, "--http", "127.0.0.1:0", "--no-auth")
		errp, err := cmd.StderrPipe()
		must(err)
		must(cmd.Start())
		rd := bufio.NewReader(errp)
		for {
			line, err := rd.ReadString('\n')
			must(err)
			if strings.Contains(line, "serving") {
				break
			}
		}
		go io.Copy(io.Discard, rd)
		time.Sleep(after)
		t := time.Now()
		must(cmd.Process.Signal(syscall.SIGTERM))
		s := &server{cmd: cmd, stderr: &bytes.Buffer{}}
		if err := s.wait(60 * time.Second); err != nil {
			fmt.Fprintf(os.Stderr, "serve --http: %v\n", err)
		}
		fmt.Printf("| %s | %s |\n", ms(after), ms(time.Since(t)))
	}
}
