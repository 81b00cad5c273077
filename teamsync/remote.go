package teamsync

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
)

// The environment variables that give Sync and Clone a token for an HTTPS
// remote. They are read by git's credential helper protocol through an
// inline helper (tokenHelper) that names the variable, so the token is
// never on a command line, in a URL, in .git/config or anywhere on disk.
const (
	TokenEnv    = "CAIRN_GIT_TOKEN"
	UsernameEnv = "CAIRN_GIT_USERNAME" // default "cairn": most hosts ignore it for tokens
)

// tokenHelper answers git's credential "get" with $CAIRN_GIT_TOKEN, over
// https only, or plain http to this machine's loopback names (a token sent
// over plain http to another host is readable on the way), and only for
// the hosts of the remote being synced ($CAIRN_GIT_TOKEN_HOSTS, set by
// Sync and Clone from the remote's URLs): a redirect, or a committed file
// pointing a git extension (git-lfs's .lfsconfig) at another host, never
// gets it. It ignores "store" and "erase": the token is the caller's, not
// git's to keep or forget. Run by git with sh, as any "!" helper.
const tokenHelper = `!f() { test "$1" = get || exit 0; p=; h=; ` +
	`while IFS= read -r l; do case "$l" in protocol=*) p="${l#protocol=}";; host=*) h="${l#host=}";; esac; done; ` +
	`ok=; for a in $` + tokenHostsEnv + `; do test "$a" = "$h" && ok=1; done; test -n "$ok" || exit 0; ` +
	`case "$p" in https) ;; http) case "$h" in "localhost"|"localhost:"*|"127.0.0.1"|"127.0.0.1:"*|"[::1]"|"[::1]:"*) ;; *) exit 0;; esac;; *) exit 0;; esac; ` +
	`printf 'username=%s\npassword=%s\n' "${` + UsernameEnv + `:-cairn}" "$` + TokenEnv + `"; }; f`

// tokenHostsEnv names the hosts tokenHelper answers for, space-separated,
// as git's credential protocol gives them (host[:port]).
const tokenHostsEnv = "CAIRN_GIT_TOKEN_HOSTS"

// tokenHosts are the host[:port] of the http(s) URLs among urls.
func tokenHosts(urls ...string) string {
	var hosts []string
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(u.Host, " \t\n") {
			continue
		}
		if !slices.Contains(hosts, u.Host) {
			hosts = append(hosts, u.Host)
		}
	}
	return strings.Join(hosts, " ")
}

// batchSSH is the ssh git runs when the user chose none (GIT_SSH_COMMAND,
// GIT_SSH, core.sshCommand): the user's keys, agent and ~/.ssh/config as
// always, but never a question (passphrase, password, unknown host key).
// It gives up on a host that does not answer within 30 s, or stops
// answering for a minute (ServerAlive: 4 probes 15 s apart): a sync never
// hangs on a dead connection.
const batchSSH = "ssh -o BatchMode=yes -o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=4"

// lowSpeed is git's http.lowSpeedLimit and http.lowSpeedTime when the user
// set neither: a transfer under 1,000 bytes/s for 60 s is given up (a
// server that accepts the connection and never answers would otherwise
// hold the sync, and every sync after it, forever). GIT_HTTP_LOW_SPEED_*
// in the environment still win.
var lowSpeed = []string{"-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=60"}

// ErrorKind says why a remote failed, so the message can say what to do.
type ErrorKind int

// The kinds of remote failure Sync and Clone tell apart.
const (
	Failed      ErrorKind = iota // anything else: git's own words say why
	NoRemote                     // the vault's repository has no remote of that name
	Unreachable                  // connection refused, no route, a name that does not resolve
	AuthFailed                   // HTTP 401/403, no credentials, SSH permission denied
	NotFound                     // no repository at that address (or not visible to this account)
	Untrusted                    // unknown or changed SSH host key, TLS certificate not trusted
	Stalled                      // connected, then no answer (too slow, or cut)
)

func (k ErrorKind) String() string {
	return [...]string{"failed", "no such remote", "remote unreachable", "authentication failed",
		"repository not found", "server not trusted", "remote stopped answering"}[k]
}

// RemoteError is a fetch, push or clone that failed at the remote. Its
// message names the remote and its URL (any password in the URL hidden),
// says what went wrong and what to do, and what happened to the vault.
type RemoteError struct {
	Op     string // fetch, push or clone
	Remote string // the remote's name ("" for a clone)
	URL    string // the remote's URL, password hidden ("" when unknown)
	Kind   ErrorKind
	Here   string // what happened locally: "nothing changed here", ...
	Err    error  // git's own words
}

func (e *RemoteError) Error() string {
	var where string
	switch {
	case e.Remote != "" && e.URL != "":
		where = fmt.Sprintf("remote %q (%s)", e.Remote, e.URL)
	case e.Remote != "":
		where = fmt.Sprintf("remote %q", e.Remote)
	default:
		where = e.URL
	}
	msg := fmt.Sprintf("sync: %s %s: %s", map[string]string{"fetch": "fetch from", "push": "push to", "clone": "clone from"}[e.Op], where, e.Kind)
	if h := e.hint(); h != "" {
		msg += " (" + h + ")"
	}
	msg += "; " + e.Here
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *RemoteError) Unwrap() error { return e.Err }

// hint is what to do about it.
func (e *RemoteError) hint() string {
	switch e.Kind {
	case NoRemote:
		return "`git remote -v` lists the remotes of the vault's repository; `git remote add NAME URL` adds one"
	case Unreachable:
		return "the host refused the connection, or could not be reached or its name resolved: check the URL and the network"
	case AuthFailed:
		switch transportOf(e.URL) {
		case "ssh":
			return "the SSH server refused the keys offered (ssh-agent, ~/.ssh, GIT_SSH_COMMAND); `ssh -T` to the host shows why"
		case "http":
			if os.Getenv(TokenEnv) != "" && !loopbackURL(e.URL) {
				return TokenEnv + " is given only over https, or plain http to localhost"
			}
		}
		if os.Getenv(TokenEnv) != "" {
			return "the server refused " + TokenEnv + " (and " + UsernameEnv + ", when the host wants a particular user name)"
		}
		return "no credentials were accepted: set " + TokenEnv + ", or store them with git's credential helper"
	case NotFound:
		return "no repository at that address, or this account may not see it"
	case Stalled:
		return "the connection was made but the server stopped answering, or it was cut; nothing is half-done: the next sync starts again"
	case Untrusted:
		return "the server's SSH host key is unknown or changed, or its TLS certificate is not trusted: connect once with ssh or git to check and accept it; cairn never accepts one itself"
	}
	return ""
}

// kinds are git's, ssh's and curl's words for each kind, lower case, in
// the order they are tried: "Could not read from remote repository"
// follows every ssh failure, so only the line before it tells.
var kinds = []struct {
	kind  ErrorKind
	words []string
}{
	{Untrusted, []string{"host key verification failed", "remote host identification has changed",
		"ssl certificate problem", "server certificate verification failed", "certificate verify failed"}},
	{AuthFailed, []string{"authentication failed", "could not read username", "could not read password",
		"permission denied (", "returned error: 401", "returned error: 403", "invalid username or password"}},
	{NotFound, []string{"repository not found", "does not appear to be a git repository",
		"repository not exported", "returned error: 404", "could not be found"}},
	{Stalled, []string{"operation too slow", "timeout, server", "connection timed out during banner exchange",
		"broken pipe", "connection reset by peer"}},
	{Unreachable, []string{"could not resolve host", "unable to look up", "name or service not known",
		"temporary failure in name resolution", "connection refused", "failed to connect", "couldn't connect",
		"unable to connect", "connection timed out", "operation timed out", "no route to host", "network is unreachable"}},
}

// repoNotFound is git's message for an HTTP 404 ("repository 'URL' not
// found") and for a clone of a path that is not there.
var repoNotFound = regexp.MustCompile(`repository '[^']*' (not found|does not exist)`)

// classify reads git's stderr.
func classify(stderr string) ErrorKind {
	s := strings.ToLower(stderr)
	for _, k := range kinds {
		for _, w := range k.words {
			if strings.Contains(s, w) {
				return k.kind
			}
		}
		if k.kind == NotFound && repoNotFound.MatchString(s) {
			return NotFound
		}
	}
	return Failed
}

// userinfo is a password in a URL ("scheme://user:password@host").
var userinfo = regexp.MustCompile(`(://[^/@\s:']*):[^/@\s']*@`)

// redact hides any password a URL in s holds: errors end up in logs.
func redact(s string) string { return userinfo.ReplaceAllString(s, "$1:***@") }

// transportOf is how git reaches url: "ssh", "http", "https", "git",
// "file" or another scheme, by git's own rules (url_is_local_not_ssh: a
// colon before any slash is scp-like ssh, "host:path").
func transportOf(url string) string {
	if i := strings.Index(url, "://"); i > 0 {
		switch s := strings.ToLower(url[:i]); s {
		case "ssh", "git+ssh", "ssh+git":
			return "ssh"
		default:
			return s
		}
	}
	if strings.Contains(url, "::") {
		return "helper" // transport::address
	}
	if c := strings.IndexByte(url, ':'); c > 0 && !strings.Contains(url[:c], "/") && !(c == 1 && isLetter(url[0])) {
		return "ssh"
	}
	return "file"
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// loopbackURL says url's host is one tokenHelper gives a token to over
// plain http.
func loopbackURL(url string) bool {
	rest := url[strings.Index(url, "://")+3:]
	if at := strings.IndexByte(rest, '@'); at >= 0 && at < strings.IndexAny(rest+"/", "/") {
		rest = rest[at+1:]
	}
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
		if rest == h || strings.HasPrefix(rest, h+":") || strings.HasPrefix(rest, h+"/") {
			return true
		}
	}
	return false
}

// checkEnv refuses a token or user name git's credential protocol cannot
// carry: a line break would end the answer early or add to it.
func checkEnv() error {
	for _, name := range []string{TokenEnv, UsernameEnv} {
		if strings.ContainsAny(os.Getenv(name), "\n\r\x00") {
			return fmt.Errorf("sync: %s holds a line break or NUL; nothing changed here", name)
		}
	}
	return nil
}

// forRemote returns g set up to talk to remotes: no prompt of any kind
// (GIT_TERMINAL_PROMPT=0, no askpass program, ssh in batch mode, each git
// in a session of its own with no terminal to ask on), and the token of
// TokenEnv when it is set, as the only credential (git's configured
// helpers are cleared then: an explicit token must not lose to a stale
// stored password).
func (g git) forRemote(ctx context.Context) (git, error) {
	if err := checkEnv(); err != nil {
		return g, err
	}
	g.detach = true
	g.env = append(g.env[:len(g.env):len(g.env)], "GIT_ASKPASS=", "SSH_ASKPASS_REQUIRE=never", "GCM_INTERACTIVE=never")
	if os.Getenv("GIT_SSH_COMMAND") == "" && os.Getenv("GIT_SSH") == "" {
		if own, _ := g.out(ctx, "config", "--get", "core.sshCommand"); own == "" {
			g.env = append(g.env, "GIT_SSH_COMMAND="+batchSSH)
		}
	}
	if os.Getenv(TokenEnv) != "" {
		g.pre = append(g.pre[:len(g.pre):len(g.pre)], "-c", "credential.helper=", "-c", "credential.helper="+tokenHelper)
	}
	if own, _ := g.out(ctx, "config", "--get-regexp", `^http\.lowspeed`); own == "" {
		g.pre = append(g.pre[:len(g.pre):len(g.pre)], lowSpeed...)
	}
	return g, nil
}

// dial checks the remote, the branch and the environment before anything
// is done, so a bad one changes nothing, and returns the git that talks
// to the remote.
func dial(ctx context.Context, root string, o Options) (git, error) {
	g, err := gitIn(root).forRemote(ctx)
	if err != nil {
		return g, err
	}
	if _, err := g.remoteURL(ctx, o.Remote, false); err != nil {
		return g, err
	}
	fetchURL, _ := g.out(ctx, "remote", "get-url", o.Remote)
	pushURL, _ := g.out(ctx, "remote", "get-url", "--push", o.Remote)
	g.env = append(g.env[:len(g.env):len(g.env)], tokenHostsEnv+"="+tokenHosts(fetchURL, pushURL))
	return g, g.checkBranch(ctx, o.Branch)
}

// remoteURL checks name is a remote of the vault's repository and returns
// its URL (push says which: a remote may push elsewhere), password hidden.
func (g git) remoteURL(ctx context.Context, name string, push bool) (string, error) {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", fmt.Errorf("sync: remote %q: not a remote name; nothing changed here", name)
	}
	args := []string{"remote", "get-url"}
	if push {
		args = append(args, "--push")
	}
	url, err := g.out(ctx, append(args, name)...)
	if err != nil {
		if strings.Contains(err.Error(), "No such remote") {
			return "", &RemoteError{Op: "fetch", Remote: name, Kind: NoRemote, Here: "nothing changed here"}
		}
		return "", fmt.Errorf("sync: remote %q: %w", name, err)
	}
	return redact(url), nil
}

// checkBranch refuses a branch name git would refuse, or read as an option.
func (g git) checkBranch(ctx context.Context, branch string) error {
	if strings.HasPrefix(branch, "-") || g.run(ctx, nil, "check-ref-format", "refs/heads/"+branch) != nil {
		return fmt.Errorf("sync: branch %q: not a valid branch name; nothing changed here", branch)
	}
	return nil
}

// remoteErr turns a failed fetch or push into a RemoteError naming the
// remote, or returns err as it is when the remote was not the problem.
func (g git) remoteErr(ctx context.Context, op, remote string, push bool, here string, err error) error {
	var ge *gitError
	if !errors.As(err, &ge) {
		return fmt.Errorf("sync: %s %s: %w", op, remote, err)
	}
	url, _ := g.remoteURL(ctx, remote, push)
	return &RemoteError{Op: op, Remote: remote, URL: url, Kind: classify(ge.stderr), Here: here, Err: err}
}

// Clone clones url into dir with the transport Sync uses: TokenEnv or
// git's credential helpers, the user's SSH keys and agent, never a prompt,
// and the same errors. A URL holding a password is refused: git would
// write it into the clone's .git/config. The remote is named origin;
// branch "" checks out the remote's default branch. git's checkout
// refuses what a sync refuses of a fetched tree, and writes no symbolic
// link. Making the clone a vault on this machine is vault.Init's.
func Clone(ctx context.Context, url, dir, branch string) error {
	if strings.HasPrefix(url, "-") || userinfo.MatchString(url) {
		return fmt.Errorf("clone: url %q: %s; nothing was cloned", redact(url),
			"holds a password or starts with '-' (give a token with "+TokenEnv+" or git's credential helper instead)")
	}
	g, err := git{}.forRemote(ctx) // in the working directory, as git clone would be
	if err != nil {
		return err
	}
	g.env = append(g.env[:len(g.env):len(g.env)], tokenHostsEnv+"="+tokenHosts(url))
	// git's checkout refuses the paths Advance refuses (verify_path), with
	// the protections of every member's file system on, and writes a
	// symbolic link of the remote's as a plain file holding its target:
	// cairn shares files, not links (these settings stay in the clone's
	// .git/config, for the person's own git commands too).
	args := []string{"clone", "--quiet", "--origin", "origin",
		"-c", "core.protectNTFS=true", "-c", "core.protectHFS=true", "-c", "core.symlinks=false"}
	if branch != "" {
		if err := g.checkBranch(ctx, branch); err != nil {
			return fmt.Errorf("clone: %w", err)
		}
		args = append(args, "--branch", branch)
	}
	if err := g.run(ctx, nil, append(args, "--", url, dir)...); err != nil {
		var ge *gitError
		kind := Failed
		if errors.As(err, &ge) {
			kind = classify(ge.stderr)
		}
		return &RemoteError{Op: "clone", URL: redact(url), Kind: kind, Here: "nothing was cloned", Err: err}
	}
	if branch == "" {
		return checkoutWhenHeadless(ctx, dir)
	}
	return nil
}

// checkoutWhenHeadless checks a branch out of a clone whose remote HEAD
// names a branch the remote does not have, which git clones with nothing
// checked out: a bare repository made by plain git init --bare has HEAD
// at master, and a first cairn sync pushes main. The branch is main when
// the remote has it, else the remote's only branch; with several and none
// named main, the error lists them for --branch. A clone of an empty
// repository is left as it is (the caller says what to do with one).
func checkoutWhenHeadless(ctx context.Context, dir string) error {
	g := gitIn(dir)
	if _, err := g.out(ctx, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		return nil
	}
	out, err := g.out(ctx, "for-each-ref", "--format=%(refname:strip=3)", "refs/remotes/origin")
	if err != nil {
		return fmt.Errorf("clone: list the remote's branches: %w", err)
	}
	var branches []string
	for _, b := range strings.Fields(out) {
		if b != "HEAD" {
			branches = append(branches, b)
		}
	}
	pick := ""
	switch {
	case slices.Contains(branches, "main"):
		pick = "main"
	case len(branches) == 1:
		pick = branches[0]
	case len(branches) == 0:
		return nil
	default:
		return fmt.Errorf("clone: the remote's HEAD names a branch it does not have, and it has %s: give --branch one of them", strings.Join(branches, ", "))
	}
	if err := g.run(ctx, nil, "checkout", "--quiet", "-b", pick, "--track", "origin/"+pick); err != nil {
		return fmt.Errorf("clone: check out %s: %w", pick, err)
	}
	return nil
}
