package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/spf13/cobra"
)

// demoCmd is the README's first command: a fresh vault from the sample,
// a write token, and the server on HTTP, with what to paste into a client.
func demoCmd() *cobra.Command {
	var from, dir, addr string
	c := &cobra.Command{
		Use:   "demo [--from sample-vault] [--dir DIR] [--http 127.0.0.1:8787]",
		Short: "Make a fresh vault from the sample and serve it, printing how to connect",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			remove := dir
			if dir == "" {
				d, err := os.MkdirTemp("", "cairn-demo-")
				if err != nil {
					return err
				}
				dir, remove = filepath.Join(d, "vault"), d
			}
			res, err := vault.Init(dir, vault.InitOptions{From: from})
			if err != nil {
				return err
			}
			token, _, err := mcptools.NewTokenStore(dir).Create(mcptools.TokenRecord{Principal: res.Owner, Scope: "write", Toolsets: mcptools.AllToolsets, Name: "demo"})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			self, _ := os.Executable()
			if strings.Contains(self, "go-build") { // started by go run
				self = "go run ./cmd/cairn"
			}
			err = serve(ctx, serveOptions{vault: dir, http: addr}, func(a string) {
				fmt.Printf(`
cairn demo vault: %[1]s  (a git repository: try git -C %[1]s log)

MCP endpoint:  http://%[2]s/mcp
Bearer token:  %[3]s

Claude Code:   claude mcp add --transport http cairn http://%[2]s/mcp --header "Authorization: Bearer %[3]s"
Any client (JSON config):
  {"mcpServers": {"cairn": {"type": "http", "url": "http://%[2]s/mcp",
                            "headers": {"Authorization": "Bearer %[3]s"}}}}
Over stdio instead: %[4]s serve --vault %[1]s

Ctrl-C stops the server; the vault stays (rm -rf %[5]s removes it).
`, dir, a, token, self, remove)
			})
			if err == nil {
				// Each run makes a new vault: say where this one is kept.
				fmt.Printf("\nStopped. The demo vault is kept in %s (rm -rf %s removes it).\n", dir, remove)
			}
			return err
		},
	}
	c.Flags().StringVar(&from, "from", "sample-vault", "template folder")
	c.Flags().StringVar(&dir, "dir", "", "where to make the vault (default: a new temporary folder)")
	c.Flags().StringVar(&addr, "http", "127.0.0.1:8787", "address to serve on")
	return c
}
