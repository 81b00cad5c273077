//go:build unix

package teamsync

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	stdsync "sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault"
)

// Tests of the remotes a vault syncs through and of the errors a remote
// gives. The servers are real: git daemon here, git http-backend in
// remote_http_test.go, sshd in remote_ssh_test.go, all on 127.0.0.1.

// hermetic keeps the machine's git configuration (a credential helper, an
// ssh command) and the caller's token out of a test.
func hermetic(t testing.TB) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{TokenEnv, UsernameEnv, "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// remoteVault makes a vault from the sample vault at dir whose origin is
// url, nothing pushed yet.
func remoteVault(t testing.TB, dir, url string) *vault.Vault {
	t.Helper()
	if _, err := vault.Init(dir, vault.InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "remote", "add", "origin", url)
	return open(t, dir)
}

// handEdit changes a note on disk as a person would, long enough ago that
// a sync commits it first; a sync that fails before it starts must not.
func handEdit(t testing.TB, v *vault.Vault) string {
	t.Helper()
	p := filepath.Join(v.Root(), cdn)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(b, "\nA hand edit, not yet committed.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	return cdn
}

// unchanged checks a failed sync changed nothing in v: HEAD still head,
// and the hand edit still uncommitted.
func unchanged(t testing.TB, v *vault.Vault, head, edited string) {
	t.Helper()
	if now := gitT(t, v.Root(), "rev-parse", "HEAD"); now != head {
		t.Fatalf("a failed sync moved HEAD from %s to %s", head, now)
	}
	if st := gitT(t, v.Root(), "status", "--porcelain"); st != "M "+edited && st != "M \""+edited+"\"" {
		t.Fatalf("the hand edit of %s should still be uncommitted; git status:\n%s", edited, st)
	}
}

// wantRemoteErr checks err is a RemoteError of kind whose message names
// the remote and url, says what happened here, and hides no git message.
func wantRemoteErr(t testing.TB, err error, kind ErrorKind, remote, url, here string) *RemoteError {
	t.Helper()
	var re *RemoteError
	if !errors.As(err, &re) {
		t.Fatalf("want a RemoteError (%s), got %v", kind, err)
	}
	msg := err.Error()
	if re.Kind != kind {
		t.Fatalf("want %s, got %s: %s", kind, re.Kind, msg)
	}
	for _, w := range []string{fmt.Sprintf("%q", remote), url, kind.String(), here} {
		if !strings.Contains(msg, w) {
			t.Fatalf("the error does not say %q:\n%s", w, msg)
		}
	}
	return re
}

// closedPort is a port on 127.0.0.1 that refuses connections: bound by a
// socket that never listens, so no other process can take it meanwhile.
func closedPort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}

// serveGitDaemon serves the repositories under root with git daemon on
// 127.0.0.1, pushes allowed, and returns its git:// URL. Each connection
// gets a `git daemon --inetd` of its own, so no port has to be guessed.
func serveGitDaemon(t testing.TB, root string) string {
	t.Helper()
	if err := exec.Command("git", "daemon", "--help").Run(); err != nil {
		if _, err := os.Stat(filepath.Join(gitExecPath(t), "git-daemon")); err != nil {
			t.Skip("git daemon is not installed (Debian: it is part of the git package)")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg stdsync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				inetd(c, "git", "daemon", "--inetd", "--log-destination=none", "--export-all", "--enable=receive-pack", "--base-path="+root)
			}()
		}
	}()
	return "git://" + ln.Addr().String()
}

// inetd runs a server command with the connection as its stdin and stdout.
func inetd(c net.Conn, name string, args ...string) {
	defer c.Close()
	f, err := c.(*net.TCPConn).File()
	if err != nil {
		return
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout = f, f
	cmd.Run()
}

func gitExecPath(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func TestGitDaemonRemote(t *testing.T) {
	hermetic(t)
	base := t.TempDir()
	root := filepath.Join(base, "served")
	gitT(t, base, "init", "-q", "--bare", "-b", "main", filepath.Join(root, "team.git"))
	url := serveGitDaemon(t, root) + "/team.git"
	a := remoteVault(t, filepath.Join(base, "a"), url)
	sync(t, a)
	dirB := filepath.Join(base, "b")
	if err := Clone(context.Background(), url, dirB, ""); err != nil {
		t.Fatal(err)
	}
	b := open(t, dirB)
	edit(t, a, cdn, func(s string) string { return s + "\nAdded by Alice over git://.\n" })
	edit(t, b, cdn, func(s string) string {
		return strings.Replace(s, "# Decision CDN provider", "# Decision CDN provider\n\nBob's preface over git://.", 1)
	})
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if got := read(t, v, cdn); !strings.Contains(got, "Added by Alice over git://.") || !strings.Contains(got, "Bob's preface over git://.") {
			t.Fatalf("%s lacks a side:\n%s", v.Root(), got)
		}
	}
	if served := gitT(t, root, "--git-dir=team.git", "rev-parse", "main"); served != gitT(t, a.Root(), "rev-parse", "HEAD") {
		t.Fatalf("the daemon's repository has %s, the vaults another commit", served)
	}

	// A repository the daemon does not have.
	gitT(t, a.Root(), "remote", "set-url", "origin", serveGitDaemon(t, root)+"/nosuch.git")
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)
	_, err := Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, NotFound, "origin", "/nosuch.git", "nothing changed here")
	unchanged(t, a, head, edited)
}

// A remote that cannot be reached, by every transport: a closed port, and
// a host name that does not resolve (.invalid never does).
func TestUnreachableRemotes(t *testing.T) {
	hermetic(t)
	a, _ := team(t)
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)
	port := closedPort(t)
	for _, url := range []string{
		fmt.Sprintf("http://127.0.0.1:%d/team.git", port),
		fmt.Sprintf("git://127.0.0.1:%d/team.git", port),
		fmt.Sprintf("ssh://127.0.0.1:%d/team.git", port),
		"https://nosuch.invalid/team.git",
		"git://nosuch.invalid/team.git",
		"git@nosuch.invalid:team.git",
	} {
		gitT(t, a.Root(), "remote", "set-url", "origin", url)
		_, err := Sync(context.Background(), a, Options{})
		wantRemoteErr(t, err, Unreachable, "origin", url, "nothing changed here")
		unchanged(t, a, head, edited)
	}
}

func TestMissingRepositoryAndBadArguments(t *testing.T) {
	hermetic(t)
	a, _ := team(t)
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)
	ctx := context.Background()

	gone := filepath.Join(t.TempDir(), "gone.git")
	gitT(t, a.Root(), "remote", "add", "moved", gone)
	_, err := Sync(ctx, a, Options{Remote: "moved"})
	wantRemoteErr(t, err, NotFound, "moved", gone, "nothing changed here")
	unchanged(t, a, head, edited)

	_, err = Sync(ctx, a, Options{Remote: "upstream"})
	wantRemoteErr(t, err, NoRemote, "upstream", "", "nothing changed here")
	unchanged(t, a, head, edited)

	marker := filepath.Join(t.TempDir(), "ran")
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Remote: "--upload-pack=touch " + marker}, `remote "--upload-pack=touch`},
		{Options{Remote: "origin\nx"}, `remote "origin\nx"`},
		{Options{Branch: "a..b"}, `branch "a..b"`},
		{Options{Branch: "--upload-pack=touch " + marker}, `branch "--upload-pack=touch`},
		{Options{Branch: "main lock"}, `branch "main lock"`},
	} {
		_, err := Sync(ctx, a, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing changed here") {
			t.Fatalf("Sync(%+v): want an error naming %s, got %v", c.o, c.want, err)
		}
		unchanged(t, a, head, edited)
	}
	t.Setenv(TokenEnv, "two\nlines")
	if _, err := Sync(ctx, a, Options{}); err == nil || !strings.Contains(err.Error(), TokenEnv) {
		t.Fatalf("a token with a line break: %v", err)
	}
	unchanged(t, a, head, edited)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an option smuggled in as a remote or branch name ran")
	}

	// The same vault syncs once the arguments are right, committing the
	// hand edit first.
	os.Unsetenv(TokenEnv)
	sync(t, a)
	if st := gitT(t, a.Root(), "status", "--porcelain"); st != "" {
		t.Fatalf("after a good sync: %s", st)
	}
}

func TestCloneRefusesAPasswordInTheURL(t *testing.T) {
	hermetic(t)
	dir := filepath.Join(t.TempDir(), "clone")
	for _, url := range []string{"https://alice:hunter2@127.0.0.1/team.git", "--upload-pack=touch /tmp/x"} {
		err := Clone(context.Background(), url, dir, "")
		if err == nil || !strings.Contains(err.Error(), "url") || strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("Clone(%q): %v", url, err)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("Clone(%q) made %s", url, dir)
		}
	}
	err := Clone(context.Background(), filepath.Join(t.TempDir(), "nothing-here.git"), dir, "")
	var re *RemoteError
	if !errors.As(err, &re) || re.Kind != NotFound || !strings.Contains(err.Error(), "nothing was cloned") {
		t.Fatalf("a clone of nothing: %v", err)
	}
}

func TestClassifyKeepsTheMostTellingLine(t *testing.T) {
	// Messages of hosts this machine cannot run (GitHub, GitLab); the
	// transports it can run are tested for real above and beside.
	for stderr, want := range map[string]ErrorKind{
		"ERROR: Repository not found.\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.": NotFound,
		"remote: Repository not found.\nfatal: repository 'https://github.com/a/b.git/' not found":                                                                       NotFound,
		"remote: The project you were looking for could not be found or you don't have permission to view it.":                                                           NotFound,
		"git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.":                                                                  AuthFailed,
		"remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'https://gitlab.com/a/b.git/'":                                                              AuthFailed,
		"fatal: unable to access 'https://h/x.git/': The requested URL returned error: 403":                                                                              AuthFailed,
		"@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.":                                                           Untrusted,
		"fatal: unable to access 'https://h/': SSL certificate problem: self-signed certificate":                                                                         Untrusted,
		"ssh: connect to host h port 22: Connection timed out\nfatal: Could not read from remote repository.":                                                            Unreachable,
		"error: RPC failed; HTTP 500 curl 22 The requested URL returned error: 500":                                                                                      Failed,
	} {
		if got := classify(stderr); got != want {
			t.Errorf("classify(%q) = %s, want %s", stderr, got, want)
		}
	}
}
