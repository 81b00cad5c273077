package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/host"
	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/oauth"
	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"
)

type serveOptions struct {
	vault    string
	http     string
	noAuth   bool
	toolsets []string
	token    string
	noWatch  bool
	quiet    time.Duration
	// syncEvery is --sync-every when given (nil: .cairn/config.yaml decides).
	syncEvery *time.Duration

	// maxReply bounds each tool's reply ("" is mcptools.DefaultMaxReply).
	maxReply string

	// HTTP limits (docs/mcp.md, "HTTP limits").
	maxBody      string
	sessionIdle  time.Duration
	maxSessions  int
	allowOrigins []string

	// publicURL is --public-url: with it, the OAuth authorization server
	// (package oauth) serves beside MCP.
	publicURL string
	// privateDocs is --allow-private-client-documents.
	privateDocs bool
	// tlsCert and tlsKey serve HTTPS (--tls-cert, --tls-key); trustProxy
	// reads the client's address from X-Forwarded-For (--trust-proxy).
	tlsCert, tlsKey string
	trustProxy      bool
	// oidcIssuer, oidcClientID and oidcSecretFile delegate sign-in to a
	// team's OpenID Connect provider (--oidc-*).
	oidcIssuer, oidcClientID, oidcSecretFile string
}

// httpOnlyFlags are the flags that mean nothing over stdio.
var httpOnlyFlags = []string{"max-body", "session-idle", "max-sessions", "allow-origin", "public-url", "allow-private-client-documents", "tls-cert", "tls-key", "trust-proxy", "oidc-issuer", "oidc-client-id", "oidc-client-secret-file"}

func serveCmd() *cobra.Command {
	var o serveOptions
	var syncEvery time.Duration
	c := &cobra.Command{
		Use:   "serve --vault DIR [--http ADDR]",
		Short: "Serve the vault over MCP: stdio as the local owner, or Streamable HTTP at /mcp with bearer tokens",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range httpOnlyFlags {
				if o.http == "" && cmd.Flags().Changed(f) {
					return fmt.Errorf("--%s applies to --http only", f)
				}
			}
			// Zero is "the default" for callers such as demo, not a value.
			if cmd.Flags().Changed("session-idle") && o.sessionIdle == 0 {
				return errors.New("--session-idle: 0s is under a second")
			}
			if cmd.Flags().Changed("max-sessions") && o.maxSessions == 0 {
				return errors.New("--max-sessions: 0 would refuse every session; at least 1")
			}
			if cmd.Flags().Changed("sync-every") {
				o.syncEvery = &syncEvery
			}
			// A write to a stderr (or stdout) whose reader is gone
			// fails instead of ending the process: a client may close
			// its end of the log before the server has stopped, and a
			// log line then must not cut the server's stop short.
			signal.Ignore(syscall.SIGPIPE)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, o, nil)
		},
	}
	vaultFlag(c, &o.vault)
	c.Flags().StringVar(&o.http, "http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8787) instead of stdio")
	c.Flags().BoolVar(&o.noAuth, "no-auth", false, "HTTP test mode: serve the local owner without a token (loopback addresses only)")
	c.Flags().StringSliceVar(&o.toolsets, "toolsets", nil, "stdio: narrow the owner's toolsets (gateway,treaisure,hindsight)")
	c.Flags().BoolVar(&o.noWatch, "no-watch", false, "do not watch the vault for edits people make in their editor")
	c.Flags().DurationVar(&o.quiet, "commit-after", 3*time.Second, "commit an edit made by hand once the file has been quiet this long; an agent reading or writing the note meanwhile waits for it")
	c.Flags().DurationVar(&syncEvery, "sync-every", 0, "sync the vault through its git remote this often (e.g. 30s; 0: off), and a few seconds after a write; default: sync.every in .cairn/config.yaml, else off")
	c.Flags().StringVar(&o.token, "token", os.Getenv("CAIRN_TOKEN"), "stdio: act as this token's principal, ceiling and toolsets instead of the owner (default $CAIRN_TOKEN)")
	c.Flags().StringVar(&o.maxReply, "max-reply", "1MiB", "the largest reply of a tool (bytes, or KiB/MiB/GiB): longer lists are cut with a count and a notice, a long note's content comes in parts")
	c.Flags().StringVar(&o.maxBody, "max-body", "16MiB", "HTTP: the largest request body (bytes, or KiB/MiB/GiB); larger ones get 413")
	c.Flags().DurationVar(&o.sessionIdle, "session-idle", mcptools.DefaultSessionIdle, "HTTP: end a session after this long without a request (its client then initializes again)")
	c.Flags().IntVar(&o.maxSessions, "max-sessions", mcptools.DefaultMaxSessions, "HTTP: live sessions per token; a new one ends the token's longest-idle")
	c.Flags().StringVar(&o.publicURL, "public-url", "", "HTTP: the address clients use (https://host): serve OAuth 2.1 sign-in for clients that cannot send a token (docs/oauth.md)")
	c.Flags().StringVar(&o.tlsCert, "tls-cert", "", "HTTP: serve HTTPS with this certificate (PEM, the chain after it), with --tls-key")
	c.Flags().StringVar(&o.tlsKey, "tls-key", "", "HTTP: the certificate's private key (PEM)")
	c.Flags().BoolVar(&o.trustProxy, "trust-proxy", false, "HTTP: behind a reverse proxy on this machine: take the client's address from X-Forwarded-For (sign-in rate limits); never set it when clients reach cairn directly")
	c.Flags().StringVar(&o.oidcIssuer, "oidc-issuer", "", "HTTP with --public-url: people sign in at this OpenID Connect provider instead of with passwords (docs/oauth.md)")
	c.Flags().StringVar(&o.oidcClientID, "oidc-client-id", "", "cairn's client id at the --oidc-issuer (its redirect: PUBLIC-URL/oauth/oidc/callback)")
	c.Flags().StringVar(&o.oidcSecretFile, "oidc-client-secret-file", "", "a file holding cairn's client secret at the --oidc-issuer (a file, so the secret is not in the process list)")
	c.Flags().BoolVar(&o.privateDocs, "allow-private-client-documents", false, "HTTP with --public-url: read OAuth clients' metadata documents from this machine and private networks too (clients on your own network)")
	c.Flags().StringArrayVar(&o.allowOrigins, "allow-origin", nil, "HTTP: a browser origin (scheme://host[:port]) allowed besides loopback, with CORS (repeatable)")
	return c
}

// maxReplyBytes is --max-reply in bytes (0 for the default).
func (o serveOptions) maxReplyBytes() (int, error) {
	if o.maxReply == "" {
		return 0, nil
	}
	n, err := parseBytes(o.maxReply)
	switch {
	case err != nil:
		return 0, fmt.Errorf("--max-reply: %w", err)
	case n < mcptools.MinMaxReply:
		return 0, fmt.Errorf("--max-reply: %s is under %d KiB; a note's metadata with a notice must fit", o.maxReply, mcptools.MinMaxReply>>10)
	case n > 1<<30:
		return 0, fmt.Errorf("--max-reply: %s is over 1 GiB", o.maxReply)
	}
	return int(n), nil
}

// httpOptions checks the HTTP limit flags, each error naming its flag.
func (o serveOptions) httpOptions() (mcptools.HTTPOptions, error) {
	ho := mcptools.HTTPOptions{Addr: o.http, SessionIdle: o.sessionIdle, MaxSessions: o.maxSessions}
	if o.maxBody == "" {
		o.maxBody = "16MiB"
	}
	n, err := parseBytes(o.maxBody)
	if err != nil {
		return ho, fmt.Errorf("--max-body: %w", err)
	}
	if n < 4096 {
		return ho, fmt.Errorf("--max-body: %s is under 4 KiB; an initialize request alone must fit", o.maxBody)
	}
	ho.MaxBody = n
	if o.sessionIdle == 0 {
		ho.SessionIdle = mcptools.DefaultSessionIdle
	} else if o.sessionIdle < time.Second {
		return ho, fmt.Errorf("--session-idle: %s is under a second", o.sessionIdle)
	}
	if o.maxSessions == 0 {
		ho.MaxSessions = mcptools.DefaultMaxSessions
	} else if o.maxSessions < 0 {
		return ho, fmt.Errorf("--max-sessions: %d is not a number of sessions; at least 1", o.maxSessions)
	}
	for _, s := range o.allowOrigins {
		origin, err := mcptools.ParseOrigin(s)
		if err != nil {
			return ho, fmt.Errorf("--allow-origin: %w", err)
		}
		ho.AllowOrigins = append(ho.AllowOrigins, origin)
	}
	return ho, nil
}

// parseBytes reads a size: a number of bytes, or one followed by KiB, MiB
// or GiB.
func parseBytes(s string) (int64, error) {
	num, mult := s, int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, suffix)), m
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (bytes, or a number followed by KiB, MiB or GiB)", s)
	}
	return n * mult, nil
}

// serve runs until ctx ends. ready, when set, receives the HTTP address.
// The process hosts the vault, or attaches to the process that does
// (package host); either way its client sees the same tools.
func serve(ctx context.Context, o serveOptions, ready func(addr string)) error {
	if err := o.check(); err != nil {
		return err
	}
	root, err := host.Canonical(o.vault)
	if err != nil {
		return err
	}
	if err := vault.Check(root); err != nil {
		return err
	}
	owner, err := vault.ReadOwner(root)
	if err != nil {
		return fmt.Errorf("open vault: %w", err)
	}
	var ln net.Listener
	ho, err := o.httpOptions()
	tc, tlsErr := o.tlsConfig()
	if o.http != "" {
		if err != nil {
			return err
		}
		if tlsErr != nil {
			return tlsErr
		}
		if ln, err = net.Listen("tcp", o.http); err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("--http %s: the address is in use (another cairn serve or another program listens there); give another port, like --http 127.0.0.1:8788", o.http)
			}
			return fmt.Errorf("--http %s: %w", o.http, err)
		}
		defer ln.Close()
	}
	reg := mcptools.NewRegistry()
	if reg.MaxReply, err = o.maxReplyBytes(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	node := host.Start(ctx, reg, host.Options{Root: root, Version: version, Quiet: o.quiet, NoWatch: o.noWatch, SyncEvery: o.syncEvery,
		Report: func(err error) { fmt.Fprintln(os.Stderr, "cairn:", oneLine(err.Error())) }})
	defer func() {
		cancel()
		<-node.Done()
	}()
	srv := mcptools.NewFrontServer(node, reg, version)
	id := mcptools.OwnerCaller(owner, o.toolsets)
	if ln == nil {
		return serveStdio(ctx, root, srv, o, id)
	}
	if o.noAuth {
		ho.NoAuth = &id
		fmt.Fprintf(os.Stderr, "cairn: WARNING: --no-auth: every request acts as %s without a token (test mode)\n", id.Principal)
	}
	tokens := mcptools.NewTokenStore(root)
	as, err := o.oauthServer(root, tokens)
	if err != nil {
		return err
	}
	if as != nil {
		ho.OAuth, ho.PublicURL = as, o.publicURL
	}
	svc := mcptools.NewHTTPService(srv, tokens, ho)
	if as != nil {
		as.Register(svc.Mux())
	}
	return serveHTTP(ctx, ln, root, svc, tc, ready)
}

// check refuses flags that contradict each other, naming them.
func (o serveOptions) check() error {
	if err := needVault(o.vault); err != nil {
		return err
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together: the certificate and its key")
	}
	if (o.oidcIssuer != "" || o.oidcClientID != "" || o.oidcSecretFile != "") && (o.oidcIssuer == "" || o.oidcClientID == "" || o.publicURL == "") {
		return errors.New("--oidc-issuer and --oidc-client-id go together, with --public-url (and --oidc-client-secret-file unless the provider takes public clients)")
	}
	if o.privateDocs && o.publicURL == "" {
		return errors.New("--allow-private-client-documents applies to --public-url only (OAuth sign-in)")
	}
	if o.noAuth && o.publicURL != "" {
		return errors.New("--no-auth and --public-url contradict each other: one serves without sign-in, the other signs clients in")
	}
	if o.noAuth && o.http == "" {
		return errors.New("--no-auth applies to --http only (stdio already serves the local owner)")
	}
	if o.noAuth && !loopback(o.http) {
		return fmt.Errorf("--no-auth is refused on %s: it serves everything without a token, so it listens on loopback only (127.0.0.1, ::1, localhost)", o.http)
	}
	if o.token != "" && o.http != "" && os.Getenv("CAIRN_TOKEN") != o.token {
		return errors.New("--token applies to stdio only (over HTTP each client sends its own bearer token)")
	}
	if o.quiet != 0 && o.quiet < minQuiet {
		return fmt.Errorf("--commit-after: %s is under %s; a save in progress must be told from a finished one", o.quiet, minQuiet)
	}
	if e := o.syncEvery; e != nil && *e < 0 {
		return fmt.Errorf("--sync-every: %s is negative (0 turns background sync off)", *e)
	}
	if e := o.syncEvery; e != nil && *e > 0 && *e < vault.MinSyncEvery {
		return fmt.Errorf("--sync-every: %s is under %s", *e, vault.MinSyncEvery)
	}
	for _, t := range o.toolsets {
		if !contains(mcptools.AllToolsets, t) {
			return fmt.Errorf("--toolsets: %q is not one of %s", t, strings.Join(mcptools.AllToolsets, ", "))
		}
	}
	return nil
}

// minQuiet is the shortest --commit-after: an editor's save dance (write a
// temporary file, rename, write again) takes tens of milliseconds.
const minQuiet = 100 * time.Millisecond

// serveStdio serves one client over stdin and stdout, as the owner or as
// --token's principal (checked again at every call: a revocation stops it).
func serveStdio(ctx context.Context, root string, srv *server.MCPServer, o serveOptions, owner mcptools.Caller) error {
	who := func() (mcptools.Caller, error) { return owner, nil }
	if o.token != "" {
		tokens := mcptools.NewTokenStore(root)
		rec, err := tokens.Verify(o.token)
		if err != nil {
			return fmt.Errorf("--token: %w", err)
		}
		owner = mcptools.CallerOf(rec)
		who = func() (mcptools.Caller, error) {
			rec, err := tokens.Verify(o.token)
			return mcptools.CallerOf(rec), err
		}
	}
	fmt.Fprintf(os.Stderr, "cairn: serving %s over stdio as %s\n", root, owner.Principal)
	return mcptools.ServeStdio(ctx, srv, who, os.Stdin, os.Stdout)
}

// serveHTTP serves Streamable HTTP on ln until ctx ends.
func serveHTTP(ctx context.Context, ln net.Listener, root string, svc *mcptools.HTTPService, tc *tls.Config, ready func(addr string)) error {
	hs := &http.Server{
		Handler: svc,
		// A client has 10 s to send its headers (64 KiB at most), and a
		// keep-alive connection is closed after 2 min without a request.
		// No ReadTimeout or WriteTimeout: net/http cancels a request's
		// context when ReadTimeout passes and cuts its writes after
		// WriteTimeout, which would end event streams and long tool calls;
		// a body's read has its own deadline (mcptools.BodyReadTimeout).
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		TLSConfig:         tc,
	}
	// Shutdown ends the sessions first, so open event streams do not hold
	// it up.
	hs.RegisterOnShutdown(svc.Close)
	defer svc.Close()
	addr := ln.Addr().String()
	scheme := "http"
	if tc != nil {
		scheme = "https"
		ln = tls.NewListener(ln, tc)
	}
	fmt.Fprintf(os.Stderr, "cairn: serving %s at %s://%s/mcp\n", root, scheme, addr)
	if ready != nil {
		ready(addr)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Requests in flight (a write is one commit, milliseconds) finish; an
	// idle event stream a client keeps open does not hold the exit up.
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if hs.Shutdown(shut) != nil {
		hs.Close()
	}
	return nil
}

// oauthServer is the authorization server --public-url asks for (nil
// without it).
func (o serveOptions) oauthServer(root string, tokens *mcptools.TokenStore) (*oauth.Server, error) {
	if o.publicURL == "" {
		return nil, nil
	}
	oidc, err := o.oidcOptions()
	if err != nil {
		return nil, err
	}
	return oauth.New(oauth.Options{Root: root, PublicURL: o.publicURL, Resources: mcptools.Paths(), Tokens: tokens,
		AllowPrivateDocuments: o.privateDocs, TrustProxy: o.trustProxy, OIDC: oidc})
}

// oidcOptions are the --oidc-* flags (nil without them), the secret read
// from its file.
func (o serveOptions) oidcOptions() (*oauth.OIDCOptions, error) {
	if o.oidcIssuer == "" {
		return nil, nil
	}
	oo := &oauth.OIDCOptions{Issuer: o.oidcIssuer, ClientID: o.oidcClientID}
	if o.oidcSecretFile != "" {
		b, err := os.ReadFile(o.oidcSecretFile)
		if err != nil {
			return nil, fmt.Errorf("--oidc-client-secret-file: %w", err)
		}
		oo.ClientSecret = strings.TrimSpace(string(b))
	}
	return oo, nil
}

// tlsConfig is --tls-cert and --tls-key loaded (nil without them): read
// at start, so a wrong file is an error naming the flag, not a failed
// handshake later.
func (o serveOptions) tlsConfig() (*tls.Config, error) {
	if o.tlsCert == "" {
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", o.tlsCert, o.tlsKey, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
