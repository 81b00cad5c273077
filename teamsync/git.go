package teamsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// git runs the git command line in a vault.
type git struct {
	dir    string
	env    []string
	pre    []string // options before the command ("-c key=value")
	detach bool     // in a session of its own (forRemote)
}

func gitIn(dir string) git { return git{dir: dir} }

func (g git) cmd(ctx context.Context, env []string, stdin []byte, args ...string) *exec.Cmd {
	all := append([]string(nil), g.pre...)
	if g.dir != "" {
		all = append(all, "-C", g.dir)
	}
	c := exec.CommandContext(ctx, "git", append(all, args...)...)
	c.Env = append(append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0"), g.env...), env...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	if g.detach {
		detach(c)
	}
	return c
}

// gitError is a git command that failed, with what it said.
type gitError struct {
	cmd    string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	// git's advice after every remote failure says nothing the RemoteError
	// does not say better.
	said := strings.TrimSpace(strings.Replace(e.stderr, "\n\nPlease make sure you have the correct access rights\nand the repository exists.", "", 1))
	return redact(fmt.Sprintf("git %s: %v: %s", e.cmd, e.err, said))
}

func (e *gitError) Unwrap() error { return e.err }

func (g git) outEnv(ctx context.Context, env []string, stdin []byte, args ...string) (string, error) {
	c := g.cmd(ctx, env, stdin, args...)
	var out, stderr bytes.Buffer
	c.Stdout, c.Stderr = &out, &stderr
	if err := c.Run(); err != nil {
		return out.String(), &gitError{cmd: args[0], err: err, stderr: strings.TrimSpace(stderr.String() + " " + out.String())}
	}
	return strings.TrimSpace(out.String()), nil
}

func (g git) out(ctx context.Context, args ...string) (string, error) {
	return g.outEnv(ctx, nil, nil, args...)
}

func (g git) run(ctx context.Context, stdin []byte, args ...string) error {
	_, err := g.outEnv(ctx, nil, stdin, args...)
	return err
}

// outAllowing is out, accepting exit status ok as a success too.
func (g git) outAllowing(ctx context.Context, ok int, args ...string) (string, error) {
	c := g.cmd(ctx, nil, nil, args...)
	var out, stderr bytes.Buffer
	c.Stdout, c.Stderr = &out, &stderr
	err := c.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == ok) {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

func (g git) isAncestor(ctx context.Context, a, b string) bool {
	return g.run(ctx, nil, "merge-base", "--is-ancestor", a, b) == nil
}

// blob is a file's content at a commit, and whether it is there.
func (g git) blob(ctx context.Context, commit, p string) ([]byte, bool) {
	if commit == "" {
		return nil, false
	}
	c := g.cmd(ctx, nil, nil, "cat-file", "blob", commit+":"+p)
	out, err := c.Output()
	if err != nil {
		return nil, false
	}
	return out, true
}

// stage writes content as a blob and puts it at p in the index g uses.
func (g git) stage(ctx context.Context, p string, content []byte) error {
	h, err := g.outEnv(ctx, nil, content, "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	return g.run(ctx, nil, "update-index", "--add", "--cacheinfo", "100644,"+h+","+p)
}
