package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
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
}

func serveCmd() *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve --vault DIR [--http ADDR]",
		Short: "Serve the vault over MCP: stdio as the local owner, or Streamable HTTP at /mcp with bearer tokens",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	c.Flags().DurationVar(&o.quiet, "commit-after", 3*time.Second, "commit an edit made by hand once the file has been quiet this long")
	c.Flags().StringVar(&o.token, "token", os.Getenv("CAIRN_TOKEN"), "stdio: act as this token's principal, ceiling and toolsets instead of the owner (default $CAIRN_TOKEN)")
	return c
}

// serve runs until ctx ends. ready, when set, receives the HTTP address.
func serve(ctx context.Context, o serveOptions, ready func(addr string)) error {
	if err := needVault(o.vault); err != nil {
		return err
	}
	if o.noAuth && o.http == "" {
		return errors.New("--no-auth applies to --http only (stdio already serves the local owner)")
	}
	if o.token != "" && o.http != "" && os.Getenv("CAIRN_TOKEN") != o.token {
		return errors.New("--token applies to stdio only (over HTTP each client sends its own bearer token)")
	}
	for _, t := range o.toolsets {
		if !contains(mcptools.AllToolsets, t) {
			return fmt.Errorf("--toolsets: %q is not one of %s", t, strings.Join(mcptools.AllToolsets, ", "))
		}
	}
	var ln net.Listener
	if o.http != "" {
		if o.noAuth && !loopback(o.http) {
			return fmt.Errorf("--no-auth is refused on %s: it serves everything without a token, so it listens on loopback only (127.0.0.1, ::1, localhost)", o.http)
		}
		var err error
		if ln, err = net.Listen("tcp", o.http); err != nil {
			return fmt.Errorf("listen on %s: %w", o.http, err)
		}
		defer ln.Close()
	}
	v, err := vault.Open(o.vault, vault.Options{Exclusive: true})
	if err != nil {
		return err
	}
	defer closeWithin(v, closeBudget)
	srv := mcptools.NewServer(v, mcptools.NewRegistry(), version)
	report := func(err error) { fmt.Fprintln(os.Stderr, "cairn:", err) }
	go v.Maintain(ctx, 3*time.Second, 30*time.Second, report)
	go func() {
		// Open the search index now, so the first search does not wait.
		if _, err := v.SearchIndex(); err != nil {
			report(err)
		}
	}()
	if !o.noWatch {
		go func() {
			if err := v.Watch(ctx, vault.WatchOptions{Quiet: o.quiet, Report: report}); err != nil {
				report(fmt.Errorf("%w; edits made by hand are picked up every 3 s instead", err))
			}
		}()
	}
	owner := mcptools.OwnerIdentity(v.Owner(), o.toolsets)
	if ln == nil {
		who := func() (mcptools.Identity, error) { return owner, nil }
		if o.token != "" {
			tokens := mcptools.NewTokenStore(v.Root())
			rec, err := tokens.Verify(o.token)
			if err != nil {
				return fmt.Errorf("--token: %w", err)
			}
			owner = mcptools.IdentityOf(rec)
			who = func() (mcptools.Identity, error) {
				rec, err := tokens.Verify(o.token)
				return mcptools.IdentityOf(rec), err
			}
		}
		fmt.Fprintf(os.Stderr, "cairn: serving %s over stdio as %s\n", v.Root(), owner.Principal)
		return mcptools.ServeStdio(ctx, srv, who, os.Stdin, os.Stdout)
	}
	ho := mcptools.HTTPOptions{}
	if o.noAuth {
		ho.NoAuth = &owner
		fmt.Fprintf(os.Stderr, "cairn: WARNING: --no-auth: every request acts as %s without a token (test mode)\n", owner.Principal)
	}
	hs := &http.Server{Handler: mcptools.HTTPHandler(srv, mcptools.NewTokenStore(v.Root()), ho), ReadHeaderTimeout: 10 * time.Second}
	addr := ln.Addr().String()
	fmt.Fprintf(os.Stderr, "cairn: serving %s at http://%s/mcp\n", v.Root(), addr)
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

// closeBudget bounds the vault's Close when the server stops: SIGTERM
// must end it within 2 s, and HTTP requests in flight get 1 s of that.
// Close stops the index's work at its next step (a few hundred
// milliseconds at most) and waits at most search.DefaultCloseWait for
// Bleve's disk writes; past the budget the process exits anyway. Every
// file is written whole or not at all, and the search index, derived
// state, is checked against its manifest at the next start.
const closeBudget = 800 * time.Millisecond

func closeWithin(v *vault.Vault, d time.Duration) {
	done := make(chan error, 1)
	go func() { done <- v.Close() }()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintln(os.Stderr, "cairn: close:", err)
		}
	case <-time.After(d):
		fmt.Fprintf(os.Stderr, "cairn: still saving after %s; exiting (the search index is checked at the next start)\n", d)
	}
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
