package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/host"
	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
	"github.com/spf13/cobra"
)

func syncCmd() *cobra.Command {
	var (
		dir  string
		o    teamsync.Options
		asJS bool
	)
	c := &cobra.Command{
		Use:   "sync --vault DIR [--remote origin] [--branch BRANCH]",
		Short: "Fetch, integrate and push once, through a git remote; never leaves a conflict marker",
		Long: `Fetch the remote branch, integrate it (a fast-forward, or a three-way
merge: a note changed in different places merges; the same lines changed on
both sides keep this side in place and the other whole as a conflict copy
note beside it; an edit against a deletion keeps the edit; tags and aliases
merge as unions), then push. Edits not yet committed are committed first.
Runs in the server hosting the vault when there is one.

The remote and branch are the flags', else the sync section of
.cairn/config.yaml's (remote, branch), else origin and the branch the
vault has checked out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := syncDefaults(cmd, dir, &o); err != nil {
				return err
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			var rep *teamsync.Report
			err := onVault(ctx, dir, vault.Options{},
				func(c *host.Client) (err error) {
					fmt.Fprintf(cmd.ErrOrStderr(), "syncing in the server that hosts the vault (pid %d)\n", c.HostPID())
					rep, err = c.Sync(ctx, o)
					return err
				},
				func(v *vault.Vault) (err error) {
					rep, err = teamsync.Sync(ctx, v, o)
					return err
				})
			if rep != nil {
				if asJS {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					enc.Encode(rep)
				} else {
					printSync(cmd.OutOrStdout(), rep)
				}
			}
			return err
		},
	}
	vaultFlag(c, &dir)
	c.Flags().StringVar(&o.Remote, "remote", "", "the git remote (default: sync.remote in .cairn/config.yaml, else origin)")
	c.Flags().StringVar(&o.Branch, "branch", "", "the remote branch (default: sync.branch in .cairn/config.yaml, else the checked-out branch)")
	c.Flags().BoolVar(&asJS, "json", false, "print the report as JSON")
	return c
}

// interruptible is ctx ended by Ctrl-C or SIGTERM: git's processes run in
// sessions of their own (no terminal can prompt), so the terminal's signal
// never reaches them; ending the context kills them with their process
// group instead of leaving a fetch or push running after cairn is gone.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// syncDefaults fills the remote and branch the flags left out from the
// sync section of .cairn/config.yaml, the one background syncing uses, so
// cairn sync and cairn serve --sync-every sync with the same remote.
func syncDefaults(cmd *cobra.Command, dir string, o *teamsync.Options) error {
	if o.Remote != "" && o.Branch != "" {
		return nil
	}
	if err := needVault(dir); err != nil {
		return err
	}
	cfg, err := vault.LoadConfig(dir)
	if err != nil {
		return fmt.Errorf("sync: %w (or give --remote and --branch); nothing changed", err)
	}
	s, err := cfg.Sync.Settings()
	if err != nil {
		return fmt.Errorf("sync: %w (or give --remote and --branch); nothing changed", err)
	}
	if o.Remote == "" {
		o.Remote = s.Remote
	}
	if o.Branch == "" {
		o.Branch = s.Branch
	}
	return nil
}

// printSync prints what a sync did, each path quoted when it holds what
// a terminal would act on (gitstore.QuotePath).
func printSync(out io.Writer, rep *teamsync.Report) {
	q := gitstore.QuotePath
	switch {
	case rep.Merge != "":
		fmt.Fprintf(out, "in:   merged %s (%d files changed here)\n", short(rep.Fetched), len(rep.Incoming))
	case len(rep.Incoming) > 0:
		fmt.Fprintf(out, "in:   fast-forward to %s (%d files changed here)\n", short(rep.Fetched), len(rep.Incoming))
	default:
		fmt.Fprintln(out, "in:   nothing new")
	}
	for _, p := range rep.Incoming {
		fmt.Fprintf(out, "      %s\n", q(p))
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(out, "conflict: %s: %s", q(c.Path), oneLine(c.Why))
		if c.Copy != "" {
			fmt.Fprintf(out, "; the other version is kept in %s", q(c.Copy))
		}
		fmt.Fprintln(out)
	}
	for _, s := range rep.Settings {
		fmt.Fprintf(out, "settings changed by the sync (applied): %s\n", oneLine(s))
	}
	for _, p := range rep.Settling {
		fmt.Fprintf(out, "wait: %s is still being saved; the next sync takes it\n", q(p))
	}
	for _, p := range rep.Skipped {
		fmt.Fprintf(out, "kept here, not shared: %s\n", oneLine(p))
	}
	for _, p := range rep.Refused {
		fmt.Fprintf(out, "refused: %s came from the remote but belongs to the machine that committed it; left out (and out of the shared branch)\n", q(p))
	}
	for _, c := range rep.IDs {
		if c.Repaired {
			fmt.Fprintf(out, "id:   %s repeated the id %s of %s; it has its own now, %s\n", q(c.Path), oneLine(c.ID), q(c.Kept), oneLine(c.NewID))
		} else {
			fmt.Fprintf(out, "id:   %s repeats the id %s of %s; left for now: %s\n", q(c.Path), oneLine(c.ID), q(c.Kept), oneLine(c.Left))
		}
	}
	switch {
	case rep.UpToDate:
		fmt.Fprintln(out, "out:  nothing to push")
	case rep.Pushed:
		fmt.Fprintf(out, "out:  pushed (%d files changed there)\n", len(rep.Outgoing))
		for i, p := range rep.Outgoing {
			if i == 20 {
				fmt.Fprintf(out, "      and %d more\n", len(rep.Outgoing)-i)
				break
			}
			fmt.Fprintf(out, "      %s\n", q(p))
		}
	}
}

func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}
