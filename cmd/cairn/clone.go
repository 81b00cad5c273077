package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/spf13/cobra"
)

func cloneCmd() *cobra.Command {
	var owner, branch string
	c := &cobra.Command{
		Use:   "clone [--owner PRINCIPAL] [--branch BRANCH] URL DIR",
		Short: "Join a team: clone a vault's git repository into DIR and set it up on this machine (nothing committed)",
		Long: `Clone the git repository of a team's vault with git (any remote git
reaches: a path, file://, SSH, HTTP(S)), its remote named origin, and set
the clone up on this machine as cairn init does on a clone: .cairn/cache and
.cairn/secrets, which git never carries; this machine's owner principal in
.cairn/local.yaml (--owner; without it the access file's owner); the ignore
lines the shared .gitignore lacks in .git/info/exclude. Nothing is committed,
so the members' settings never collide. A repository that is not a vault
(or is empty) is refused and DIR left as it was: the first member makes the
vault with cairn init and pushes it with cairn sync.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			url, dir := args[0], args[1]
			if strings.TrimSpace(url) == "" {
				return errors.New("URL: empty; give the team vault's git URL or path")
			}
			if owner != "" {
				if err := access.ValidPrincipal(owner); err != nil {
					return fmt.Errorf("--owner: %w", err)
				}
			}
			created, err := cloneTarget(dir)
			if err != nil {
				return err
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			if err := teamsync.Clone(ctx, url, dir, branch); err != nil {
				undoClone(dir, created)
				return fmt.Errorf("%w (nothing was kept in %s)", err, dir)
			}
			if err := clonedVault(url, dir); err != nil {
				undoClone(dir, created)
				return err
			}
			res, err := vault.Init(dir, vault.InitOptions{Owner: owner})
			if err != nil {
				undoClone(dir, created)
				return fmt.Errorf("set up the clone (nothing was kept in %s): %w", dir, err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Cloned %s into %s: a vault of %d notes, its remote named origin.\n", url, dir, res.Notes)
			printSetup(out, dir, res)
			fmt.Fprintf(out, "Next: cairn serve --vault %s (cairn sync --vault %s fetches and pushes)\n", dir, dir)
			return nil
		},
	}
	c.Flags().StringVar(&owner, "owner", "", "this machine's owner principal, kept in .cairn/local.yaml (default: the access file's owner)")
	c.Flags().StringVar(&branch, "branch", "", "the branch to check out (default: the remote's default branch)")
	return c
}

// cloneTarget checks that dir is absent or an empty folder, as git clone
// needs, and says whether the clone will create it.
func cloneTarget(dir string) (created bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("DIR: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("DIR: %s is a file, not a folder", dir)
	}
	items, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("DIR: %w", err)
	}
	if len(items) > 0 {
		return false, fmt.Errorf("DIR: %s is not empty; clone into a new or empty folder (cairn init sets up a clone made with git)", dir)
	}
	return false, nil
}

// undoClone leaves dir as it was before a clone that is refused: gone when
// the clone made it, empty when it was an empty folder.
func undoClone(dir string, created bool) {
	if created {
		os.RemoveAll(dir)
		return
	}
	items, _ := os.ReadDir(dir)
	for _, it := range items {
		os.RemoveAll(filepath.Join(dir, it.Name()))
	}
}

// clonedVault refuses a clone that is not a vault: cairn init would adopt
// it in a commit of its own, and two members adopting the same repository
// would each commit an access file of their own that then collide.
func clonedVault(url, dir string) error {
	_, aerr := os.Stat(filepath.Join(dir, vault.AccessFile))
	_, cerr := os.Stat(filepath.Join(dir, vault.ConfigFile))
	if aerr == nil && cerr == nil {
		return nil
	}
	if items, _ := os.ReadDir(dir); len(items) <= 1 { // only .git
		return fmt.Errorf("URL: %s is an empty repository, not a vault yet: the first member runs cairn init DIR, git -C DIR remote add origin %s and cairn sync --vault DIR (nothing was kept in %s)", url, url, dir)
	}
	return fmt.Errorf("URL: %s is not a cairn vault (no %s and %s): one member runs cairn init on a clone of it and pushes (nothing was kept in %s)", url, vault.AccessFile, vault.ConfigFile, dir)
}
