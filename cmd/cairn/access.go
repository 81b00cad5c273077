package main

import (
	"fmt"

	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/hindsight"
	"github.com/spf13/cobra"
)

func accessCmd() *cobra.Command {
	c := &cobra.Command{Use: "access", Short: "Grant and revoke project and memory-bank access (committed in .cairn/access.yaml)"}
	var dir, principal, project, role string
	grant := &cobra.Command{
		Use: "grant --vault DIR --principal P --project HANDLE --role read|write", Short: "Give a principal a role in a project", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := access.ParseRole(role)
			if err != nil {
				return fmt.Errorf("--role: %w", err)
			}
			return grantRole(cmd, dir, principal, project, r)
		},
	}
	vaultFlag(grant, &dir)
	grant.Flags().StringVar(&principal, "principal", "", "who")
	grant.Flags().StringVar(&project, "project", "", "project handle")
	grant.Flags().StringVar(&role, "role", "read", "read or write")
	grant.MarkFlagRequired("principal")
	grant.MarkFlagRequired("project")

	var rdir, rprincipal, rproject string
	revoke := &cobra.Command{
		Use: "revoke --vault DIR --principal P --project HANDLE", Short: "Remove a principal's role in a project", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return grantRole(cmd, rdir, rprincipal, rproject, access.RoleNone)
		},
	}
	vaultFlag(revoke, &rdir)
	revoke.Flags().StringVar(&rprincipal, "principal", "", "who")
	revoke.Flags().StringVar(&rproject, "project", "", "project handle")
	revoke.MarkFlagRequired("principal")
	revoke.MarkFlagRequired("project")
	c.AddCommand(grant, revoke, bankCmd("grant-bank", true), bankCmd("revoke-bank", false))
	return c
}

// bankCmd grants or revokes a principal's access to a memory bank (the
// hindsight toolset).
func bankCmd(name string, grant bool) *cobra.Command {
	var dir, principal, bank string
	short := "Let a principal reach a memory bank (hindsight)"
	if !grant {
		short = "Take back a principal's access to a memory bank"
	}
	c := &cobra.Command{
		Use: name + " --vault DIR --principal P --bank ID", Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := openVault(dir)
			if err != nil {
				return err
			}
			defer v.Close()
			if err := hindsight.Of(v).Grant(humanCaller(v, "access"), principal, bank, grant); err != nil {
				return err
			}
			state := "reaches"
			if !grant {
				state = "no longer reaches"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s bank %s\n", principal, state, bank)
			return nil
		},
	}
	vaultFlag(c, &dir)
	c.Flags().StringVar(&principal, "principal", "", "who")
	c.Flags().StringVar(&bank, "bank", "", "the bank id")
	c.MarkFlagRequired("principal")
	c.MarkFlagRequired("bank")
	return c
}

func grantRole(cmd *cobra.Command, dir, principal, project string, r access.Role) error {
	v, err := openVault(dir)
	if err != nil {
		return err
	}
	defer v.Close()
	if err := v.Grant(humanCaller(v, "access"), principal, project, r); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %s on %s\n", principal, r, project)
	return nil
}
