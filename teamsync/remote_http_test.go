//go:build unix

package teamsync

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/pem"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	stdsync "sync"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// gitHTTP is a smart-HTTP git server: git http-backend behind Go's
// net/http/cgi, behind a handler that wants basic auth as user and pass
// (reads may be anonymous, as on a public repository).
type gitHTTP struct {
	URL      string // scheme://host:port, without a repository
	Root     string // the bare repositories it serves
	CAFile   string // its certificate, for GIT_SSL_CAINFO (TLS only)
	user     string
	pass     string
	anonRead bool
	backend  string

	mu      stdsync.Mutex
	sawPass bool     // a request carried the password
	leaks   []string // command lines holding the password while a request was served
}

func serveGitHTTP(t testing.TB, addr, user, pass string, anonRead, tls bool) *gitHTTP {
	t.Helper()
	backend := filepath.Join(gitExecPath(t), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git http-backend is not installed at %s", backend)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	s := &gitHTTP{Root: t.TempDir(), user: user, pass: pass, anonRead: anonRead, backend: backend}
	srv := httptest.NewUnstartedServer(s)
	srv.Listener.Close()
	srv.Listener = ln
	if tls {
		srv.StartTLS()
		s.CAFile = filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(s.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	gitT(t, s.Root, "init", "-q", "--bare", "-b", "main", "team.git")
	return s
}

func (s *gitHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u, p, ok := r.BasicAuth()
	if ok && p == s.pass {
		// The git that sent this request is running now: its command
		// line, and its children's, must not hold the password.
		leaks := cmdlinesHolding(s.pass)
		s.mu.Lock()
		s.sawPass = true
		s.leaks = append(s.leaks, leaks...)
		s.mu.Unlock()
	}
	read := r.URL.Query().Get("service") == "git-upload-pack" || strings.HasSuffix(r.URL.Path, "/git-upload-pack")
	if !(s.anonRead && read) && (!ok || u != s.user || p != s.pass) {
		w.Header().Set("WWW-Authenticate", `Basic realm="cairn test"`)
		http.Error(w, "who are you?", http.StatusUnauthorized)
		return
	}
	env := []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1"}
	if ok {
		env = append(env, "REMOTE_USER="+u) // http-backend takes pushes from a known user only
	}
	h := &cgi.Handler{Path: s.backend, Env: env, Stderr: io.Discard}
	h.ServeHTTP(w, r)
}

// cmdlinesHolding lists the processes whose command line holds secret
// (Linux: /proc; elsewhere nothing is checked).
func cmdlinesHolding(secret string) []string {
	var found []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(secret)) {
			found = append(found, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// holding lists the files under dir whose content holds secret.
func holding(t testing.TB, dir, secret string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(secret)) {
				found = append(found, p)
			}
		}
		return nil
	})
	return found
}

func randomToken(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "tok-" + hex.EncodeToString(b)
}

// Two vaults sync through a smart-HTTP remote that wants a password: the
// token comes from CAIRN_GIT_TOKEN, and is never written to disk nor on
// any command line.
func TestHTTPRemoteWithTheTokenFromTheEnvironment(t *testing.T) {
	hermetic(t)
	tok := randomToken(t)
	srv := serveGitHTTP(t, "127.0.0.1:0", "alice", tok, false, false)
	t.Setenv(TokenEnv, tok)
	t.Setenv(UsernameEnv, "alice")
	base := t.TempDir()
	url := srv.URL + "/team.git"
	a := remoteVault(t, filepath.Join(base, "a"), url)
	// A helper of git's own with a stale password: the token wins.
	gitT(t, a.Root(), "config", "credential.helper", "!f() { echo username=alice; echo password=stale; }; f")
	sync(t, a)
	dirB := filepath.Join(base, "b")
	if err := Clone(context.Background(), url, dirB, ""); err != nil {
		t.Fatal(err)
	}
	b := open(t, dirB)
	edit(t, a, cdn, func(s string) string { return s + "\nAdded by Alice over HTTP.\n" })
	edit(t, b, cdn, func(s string) string {
		return strings.Replace(s, "# Decision CDN provider", "# Decision CDN provider\n\nBob's preface over HTTP.", 1)
	})
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if got := read(t, v, cdn); !strings.Contains(got, "Added by Alice over HTTP.") || !strings.Contains(got, "Bob's preface over HTTP.") {
			t.Fatalf("%s lacks a side:\n%s", v.Root(), got)
		}
	}
	if served := gitT(t, srv.Root, "--git-dir=team.git", "rev-parse", "main"); served != gitT(t, a.Root(), "rev-parse", "HEAD") {
		t.Fatalf("the served repository has %s, the vaults another commit", served)
	}
	if files := holding(t, base, tok); len(files) > 0 {
		t.Fatalf("the token was written to disk: %v", files)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !srv.sawPass || len(srv.leaks) > 0 {
		t.Fatalf("token seen by the server: %v; command lines holding it: %v", srv.sawPass, srv.leaks)
	}
}

func TestHTTPRemoteRefusingTheCredentials(t *testing.T) {
	hermetic(t)
	tok := randomToken(t)
	srv := serveGitHTTP(t, "127.0.0.1:0", "alice", tok, false, false)
	url := srv.URL + "/team.git"
	a := remoteVault(t, filepath.Join(t.TempDir(), "a"), url)
	t.Setenv(TokenEnv, tok)
	t.Setenv(UsernameEnv, "alice")
	sync(t, a)
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)

	t.Setenv(TokenEnv, tok+"-wrong")
	_, err := Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, AuthFailed, "origin", url, "nothing changed here")
	if !strings.Contains(err.Error(), "the server refused "+TokenEnv) {
		t.Fatalf("the error does not say which credentials failed: %v", err)
	}
	unchanged(t, a, head, edited)

	os.Unsetenv(TokenEnv)
	_, err = Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, AuthFailed, "origin", url, "nothing changed here")
	if !strings.Contains(err.Error(), "set "+TokenEnv) {
		t.Fatalf("the error does not say how to give credentials: %v", err)
	}
	unchanged(t, a, head, edited)

	// A repository the server does not have.
	t.Setenv(TokenEnv, tok)
	gitT(t, a.Root(), "remote", "set-url", "origin", srv.URL+"/nosuch.git")
	_, err = Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, NotFound, "origin", srv.URL+"/nosuch.git", "nothing changed here")
	unchanged(t, a, head, edited)
	if served := gitT(t, srv.Root, "--git-dir=team.git", "rev-parse", "main"); served != head {
		t.Fatalf("the remote moved to %s", served)
	}
}

// A public repository: anyone fetches, pushing needs the token. Without
// it, what came in stays and nothing is pushed.
func TestHTTPRemoteThatOnlyReadsWithoutATokenRefusesThePush(t *testing.T) {
	hermetic(t)
	tok := randomToken(t)
	srv := serveGitHTTP(t, "127.0.0.1:0", "alice", tok, true, false)
	url := srv.URL + "/team.git"
	base := t.TempDir()
	a := remoteVault(t, filepath.Join(base, "a"), url)
	t.Setenv(TokenEnv, tok)
	t.Setenv(UsernameEnv, "alice")
	sync(t, a)
	os.Unsetenv(TokenEnv)
	dirB := filepath.Join(base, "b")
	if err := Clone(context.Background(), url, dirB, ""); err != nil {
		t.Fatalf("an anonymous clone: %v", err)
	}
	b := open(t, dirB)
	edit(t, b, cdn, func(s string) string { return s + "\nBob's line, not pushed.\n" })
	rep, err := Sync(context.Background(), b, Options{})
	wantRemoteErr(t, err, AuthFailed, "origin", url, "nothing was pushed")
	if rep == nil || rep.Pushed {
		t.Fatalf("report: %+v", rep)
	}
	if served := gitT(t, srv.Root, "--git-dir=team.git", "rev-parse", "main"); served != gitT(t, a.Root(), "rev-parse", "HEAD") {
		t.Fatalf("the remote moved to %s", served)
	}
}

// Over plain HTTP the token goes to this machine's loopback names only: a
// server elsewhere would have it read on the way.
func TestHTTPTokenIsNotSentInTheClearToAnotherHost(t *testing.T) {
	hermetic(t)
	tok := randomToken(t)
	srv := serveGitHTTP(t, "127.0.0.2:0", "alice", tok, false, false) // not a name the helper trusts
	url := srv.URL + "/team.git"
	a := remoteVault(t, filepath.Join(t.TempDir(), "a"), url)
	t.Setenv(TokenEnv, tok)
	_, err := Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, AuthFailed, "origin", url, "nothing changed here")
	if !strings.Contains(err.Error(), "only over https") {
		t.Fatalf("the error does not say why the token was withheld: %v", err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.sawPass {
		t.Fatal("the token was sent over plain http to 127.0.0.2")
	}
}

// HTTPS: a certificate git does not trust is a clear error; trusted
// (GIT_SSL_CAINFO, as a user would configure git), the token goes.
func TestHTTPSRemote(t *testing.T) {
	hermetic(t)
	tok := randomToken(t)
	srv := serveGitHTTP(t, "127.0.0.1:0", "alice", tok, false, true)
	url := srv.URL + "/team.git"
	a := remoteVault(t, filepath.Join(t.TempDir(), "a"), url)
	t.Setenv(TokenEnv, tok)
	t.Setenv(UsernameEnv, "alice")
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)
	_, err := Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, Untrusted, "origin", url, "nothing changed here")
	unchanged(t, a, head, edited)
	srv.mu.Lock()
	if srv.sawPass {
		t.Fatal("the token was sent to a server whose certificate is not trusted")
	}
	srv.mu.Unlock()

	t.Setenv("GIT_SSL_CAINFO", srv.CAFile)
	sync(t, a)
	if served := gitT(t, srv.Root, "--git-dir=team.git", "rev-parse", "main"); served != gitT(t, a.Root(), "rev-parse", "HEAD") {
		t.Fatalf("the remote has %s", served)
	}
}

// The token goes to the remote's own hosts only: a redirect or a git
// extension pointed at another host (git-lfs's committed .lfsconfig) asks
// git's credential helpers for that host and gets nothing from cairn's.
func TestTheTokenHelperAnswersForTheRemotesHostsOnly(t *testing.T) {
	tok := randomToken(t)
	fill := func(hosts, protocol, host string) string {
		cmd := exec.Command("git", "-c", "credential.helper=", "-c", "credential.helper="+tokenHelper, "credential", "fill")
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", TokenEnv+"="+tok, tokenHostsEnv+"="+hosts)
		cmd.Stdin = strings.NewReader("protocol=" + protocol + "\nhost=" + host + "\n\n")
		out, _ := cmd.Output()
		return string(out)
	}
	hosts := tokenHosts("https://git.example.com/team/vault.git", "https://push.example.com:8443/team/vault.git", "ssh://git@git.example.com/x", "/srv/git/vault.git")
	if hosts != "git.example.com push.example.com:8443" {
		t.Fatalf("hosts %q", hosts)
	}
	for _, host := range []string{"git.example.com", "push.example.com:8443"} {
		if got := fill(hosts, "https", host); !strings.Contains(got, "password="+tok) {
			t.Fatalf("the remote's host %s got no token: %q", host, got)
		}
	}
	for _, host := range []string{"lfs.example.net", "git.example.com:444", "push.example.com", "evil.example.com"} {
		if got := fill(hosts, "https", host); strings.Contains(got, tok) {
			t.Fatalf("another host %s got the token", host)
		}
	}
	if got := fill("", "https", "git.example.com"); strings.Contains(got, tok) {
		t.Fatal("with no remote hosts named, the token went out")
	}
}
