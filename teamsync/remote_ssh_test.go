//go:build unix

package teamsync

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	stdsync "sync"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// sshServer is OpenSSH's sshd on 127.0.0.1, one `sshd -i` per connection
// (so no port has to be guessed), letting in one key.
type sshServer struct {
	Addr      string // 127.0.0.1:port
	Root      string // the bare repositories
	Key       string // the private key it lets in
	Other     string // a private key it refuses
	KnownHost string // a known_hosts file holding its host key
}

// serveSSH starts sshd, or skips the test saying what is missing.
func serveSSH(t testing.TB) *sshServer {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if p, err := exec.LookPath("sshd"); err == nil {
		sshd = p
	}
	for _, need := range []string{sshd, "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(need); err != nil {
			t.Skipf("SSH remote not tested: %s is missing (Debian: apt-get install openssh-server openssh-client; .ci/run installs them)", need)
		}
	}
	if os.Geteuid() == 0 {
		if _, err := os.Stat("/run/sshd"); err != nil {
			t.Skip("SSH remote not tested: sshd run as root needs its privilege separation directory /run/sshd (.ci/run makes it)")
		}
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &sshServer{Root: filepath.Join(dir, "served"), Key: filepath.Join(dir, "key"), Other: filepath.Join(dir, "other"), KnownHost: filepath.Join(dir, "known_hosts")}
	for _, k := range []string{filepath.Join(dir, "hostkey"), s.Key, s.Other} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "cairn-test", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(s.Key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sshd_config")
	writePrivate(t, filepath.Join(dir, "authorized_keys"), string(pub))
	writePrivate(t, cfg, strings.Join([]string{
		"HostKey " + filepath.Join(dir, "hostkey"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"AllowUsers " + me.Username,
		"StrictModes no", "UsePAM no", "PidFile none", "LogLevel QUIET",
		"PasswordAuthentication no", "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password",
	}, "\n")+"\n")
	if out, err := exec.Command(sshd, "-t", "-f", cfg).CombinedOutput(); err != nil {
		t.Skipf("SSH remote not tested: sshd refuses to start here: %v\n%s", err, out)
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
			go func() { defer wg.Done(); inetd(c, sshd, "-i", "-f", cfg) }()
		}
	}()
	s.Addr = ln.Addr().String()
	host, err := os.ReadFile(filepath.Join(dir, "hostkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	writePrivate(t, s.KnownHost, fmt.Sprintf("[127.0.0.1]:%s %s", port, host))
	gitT(t, dir, "init", "-q", "--bare", "-b", "main", filepath.Join(s.Root, "team.git"))
	return s
}

func writePrivate(t testing.TB, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// url is the ssh:// URL of a repository under Root.
func (s *sshServer) url(repo string) string {
	me, _ := user.Current()
	return "ssh://" + me.Username + "@" + s.Addr + filepath.Join(s.Root, repo)
}

// sshCommand is a user's own GIT_SSH_COMMAND: this key, these known
// hosts, and nothing of the machine's ssh configuration or agent.
func (s *sshServer) sshCommand(key string) string {
	return fmt.Sprintf("ssh -F /dev/null -o IdentitiesOnly=yes -o IdentityAgent=none -i '%s' -o UserKnownHostsFile='%s'", key, s.KnownHost)
}

// Two vaults sync through an SSH remote with the user's own ssh command.
func TestSSHRemote(t *testing.T) {
	hermetic(t)
	s := serveSSH(t)
	t.Setenv("GIT_SSH_COMMAND", s.sshCommand(s.Key))
	base := t.TempDir()
	url := s.url("team.git")
	a := remoteVault(t, filepath.Join(base, "a"), url)
	sync(t, a)
	dirB := filepath.Join(base, "b")
	if err := Clone(context.Background(), url, dirB, ""); err != nil {
		t.Fatal(err)
	}
	b := open(t, dirB)
	edit(t, a, cdn, func(s string) string { return s + "\nAdded by Alice over SSH.\n" })
	edit(t, b, cdn, func(s string) string {
		return strings.Replace(s, "# Decision CDN provider", "# Decision CDN provider\n\nBob's preface over SSH.", 1)
	})
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if got := read(t, v, cdn); !strings.Contains(got, "Added by Alice over SSH.") || !strings.Contains(got, "Bob's preface over SSH.") {
			t.Fatalf("%s lacks a side:\n%s", v.Root(), got)
		}
	}
	if served := gitT(t, s.Root, "--git-dir=team.git", "rev-parse", "main"); served != gitT(t, a.Root(), "rev-parse", "HEAD") {
		t.Fatalf("the served repository has %s, the vaults another commit", served)
	}
}

func TestSSHRemoteErrors(t *testing.T) {
	hermetic(t)
	s := serveSSH(t)
	a := remoteVault(t, filepath.Join(t.TempDir(), "a"), s.url("team.git"))
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)
	ctx := context.Background()

	t.Setenv("GIT_SSH_COMMAND", s.sshCommand(s.Other))
	_, err := Sync(ctx, a, Options{})
	wantRemoteErr(t, err, AuthFailed, "origin", s.url("team.git"), "nothing changed here")
	if !strings.Contains(err.Error(), "SSH server refused the keys") {
		t.Fatalf("the error does not say what to check: %v", err)
	}
	unchanged(t, a, head, edited)

	t.Setenv("GIT_SSH_COMMAND", s.sshCommand(s.Key))
	gitT(t, a.Root(), "remote", "set-url", "origin", s.url("nosuch.git"))
	_, err = Sync(ctx, a, Options{})
	wantRemoteErr(t, err, NotFound, "origin", s.url("nosuch.git"), "nothing changed here")
	unchanged(t, a, head, edited)
}

// With no ssh command of the user's, git runs ssh in batch mode: a host
// whose key is not known is refused at once, never asked about.
func TestSSHUnknownHostIsRefusedNotAsked(t *testing.T) {
	hermetic(t)
	s := serveSSH(t)
	host, port, _ := net.SplitHostPort(s.Addr)
	out, err := exec.Command("ssh", "-G", "-p", port, host).Output()
	if err != nil {
		t.Fatal(err)
	}
	if cfg := string(out); !strings.Contains(cfg, "\nstricthostkeychecking ask\n") && !strings.Contains(cfg, "\nstricthostkeychecking true\n") {
		t.Skip("this machine's ssh configuration accepts unknown host keys (StrictHostKeyChecking): the refusal cannot be seen here")
	}
	a := remoteVault(t, filepath.Join(t.TempDir(), "a"), s.url("team.git"))
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)
	_, err = Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, Untrusted, "origin", s.url("team.git"), "nothing changed here")
	unchanged(t, a, head, edited)
}
