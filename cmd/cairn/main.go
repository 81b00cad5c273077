// Command cairn serves a git vault of Markdown notes to people and agents
// over MCP. One file per command; each builds on the vault and mcptools
// packages and holds no domain logic of its own.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/cairn-dev/cairn/host"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/vault"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	root := &cobra.Command{
		Use:           "cairn",
		Short:         "A git vault of Markdown notes, shared by people and agents over MCP",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetOut(terminalSafe{os.Stdout})
	root.SetErr(terminalSafe{os.Stderr})
	root.AddCommand(initCmd(), serveCmd(), tokenCmd(), projectCmd(), accessCmd(), trashCmd(), doctorCmd(), demoCmd(), searchCmd(), reindexCmd(), syncCmd(), cloneCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "cairn:", oneLine(err.Error()))
		os.Exit(1)
	}
}

// vaultFlag adds --vault, defaulting to $CAIRN_VAULT.
func vaultFlag(c *cobra.Command, dst *string) {
	c.Flags().StringVar(dst, "vault", os.Getenv("CAIRN_VAULT"), "the vault folder (default $CAIRN_VAULT)")
}

func needVault(dir string) error {
	if dir == "" {
		return errors.New("--vault is required (or set CAIRN_VAULT)")
	}
	if _, err := os.Stat(filepath.Join(dir, vault.CairnDir)); err != nil {
		return fmt.Errorf("%s is not a cairn vault (no %s folder; cairn init makes one)", dir, vault.CairnDir)
	}
	return nil
}

// openVault opens a vault for a short command-line operation.
func openVault(dir string) (*vault.Vault, error) {
	if err := needVault(dir); err != nil {
		return nil, err
	}
	return vault.Open(dir, vault.Options{})
}

// humanCaller is the vault owner acting by hand through the command line.
func humanCaller(v *vault.Vault, cmd string) vault.Caller {
	return vault.Caller{Principal: v.Owner(), Ceiling: vault.RoleWrite, Actor: "human", Tool: "cairn " + cmd}
}

// onVault runs a command where the vault is: in the process hosting it
// (remote), or here with the vault opened exclusively (local) when no
// process hosts it. A request the host could not finish because it handed
// over is made again to the next host.
func onVault(ctx context.Context, dir string, opts vault.Options, remote func(*host.Client) error, local func(*vault.Vault) error) error {
	if err := needVault(dir); err != nil {
		return err
	}
	root, err := host.Canonical(dir)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		c, v, err := host.Acquire(ctx, root, version, opts, host.DefaultWait)
		if err != nil {
			return err
		}
		if v != nil {
			err := local(v)
			if cerr := v.Close(); err == nil {
				err = cerr
			}
			return err
		}
		err = remote(c)
		c.Close()
		if !host.IsHandover(err) || attempt == 3 {
			return err
		}
	}
}
