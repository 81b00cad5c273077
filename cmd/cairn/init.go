package main

import (
	"fmt"

	"github.com/cairn-dev/cairn/vault"
	"github.com/spf13/cobra"
)

func initCmd() *cobra.Command {
	var o vault.InitOptions
	c := &cobra.Command{
		Use:   "init [--from TEMPLATE] [--owner PRINCIPAL] DIR",
		Short: "Make DIR a vault: new (empty or from a template) or an existing git repository adopted",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := vault.Init(args[0], o)
			if err != nil {
				return err
			}
			what := "Initialised a new vault"
			if res.Adopted {
				what = "Adopted the git repository as a vault"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s in %s (%d notes, commit %.12s).\nNext: cairn serve --vault %s\n", what, args[0], res.Notes, res.Commit, args[0])
			return nil
		},
	}
	c.Flags().StringVar(&o.From, "from", "", "copy the notes of this folder (e.g. sample-vault) into the new vault")
	c.Flags().StringVar(&o.Owner, "owner", "", "the owner principal, who may do everything (default: owner)")
	return c
}
