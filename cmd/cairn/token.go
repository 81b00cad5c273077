package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/hindsight"
	"github.com/spf13/cobra"
)

func tokenCmd() *cobra.Command {
	c := &cobra.Command{Use: "token", Short: "Create, list and revoke personal access tokens"}
	var dir, principal, scope, name string
	var toolsets, projects, banks []string
	create := &cobra.Command{
		Use:   "create --vault DIR --principal P --scope read|write",
		Short: "Create a token; it is printed once, alone on stdout, and stored only as a hash",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needVault(dir); err != nil {
				return err
			}
			if cmd.Flags().Changed("banks") {
				// An empty list would be stored as none, which means all.
				if len(banks) == 0 {
					return fmt.Errorf("--banks: give at least one bank id (leave the flag out for every bank the principal reaches)")
				}
				for _, b := range banks {
					if err := hindsight.ValidBankID(b); err != nil {
						return fmt.Errorf("--banks: %w", err)
					}
				}
			}
			v, err := vault.Open(dir, vault.Options{})
			if err != nil {
				return err
			}
			defer v.Close()
			token, rec, err := mcptools.NewTokenStore(v.Root()).Create(mcptools.TokenRecord{
				Principal: principal, Scope: scope, Toolsets: toolsets, Projects: projects, Banks: banks, Name: name})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), token)
			fmt.Fprintf(cmd.ErrOrStderr(), "token %s for %s (%s, toolsets %s): keep it now, it is not shown again\n", rec.ID, rec.Principal, rec.Scope, strings.Join(rec.Toolsets, ","))
			warnIfBlind(cmd.ErrOrStderr(), v, rec)
			return nil
		},
	}
	vaultFlag(create, &dir)
	create.Flags().StringVar(&principal, "principal", "", "who the token acts for")
	create.Flags().StringVar(&scope, "scope", "read", "ceiling: read or write")
	create.Flags().StringSliceVar(&toolsets, "toolsets", nil, "toolsets it sees: gateway,treaisure,hindsight (default gateway)")
	create.Flags().StringSliceVar(&projects, "projects", nil, "narrow it to these project handles (default: all the principal's)")
	create.Flags().StringSliceVar(&banks, "banks", nil, "memory banks it reaches (hindsight)")
	create.Flags().StringVar(&name, "name", "", "a note for yourself (e.g. laptop)")
	create.MarkFlagRequired("principal")

	var listDir string
	list := &cobra.Command{
		Use: "list --vault DIR", Short: "List tokens (never the tokens themselves)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needVault(listDir); err != nil {
				return err
			}
			recs, err := mcptools.NewTokenStore(listDir).List()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tPRINCIPAL\tSCOPE\tTOOLSETS\tPROJECTS\tCREATED\tEXPIRES\tLAST USED\tNAME")
			for _, r := range recs {
				p := strings.Join(r.Projects, ",")
				if p == "" {
					p = "all"
				}
				name := r.Name
				if r.Kind == mcptools.KindOAuth {
					// A grant to an OAuth client: named by the client.
					name = "oauth: " + oneLine(r.ClientName)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Principal, r.Scope, strings.Join(r.Toolsets, ","), p,
					r.Created.Format("2006-01-02 15:04"), stamp(r.Expires, "never"), stamp(r.LastUsed, "-"), name)
			}
			return w.Flush()
		},
	}
	vaultFlag(list, &listDir)

	var revDir string
	revoke := &cobra.Command{
		Use: "revoke --vault DIR ID", Short: "Revoke a token at once (a running server stops accepting it)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needVault(revDir); err != nil {
				return err
			}
			if err := mcptools.NewTokenStore(revDir).Revoke(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
			return nil
		},
	}
	vaultFlag(revoke, &revDir)
	c.AddCommand(create, list, revoke)
	return c
}

// warnIfBlind warns, when a token is made, that its agent will see
// nothing (a principal nobody granted a project), or will see but not
// write (a read ceiling with write tools in mind is the common slip).
func warnIfBlind(w io.Writer, v *vault.Vault, rec mcptools.TokenRecord) {
	c := access.Caller{Principal: rec.Principal, Ceiling: access.RoleRead, Projects: rec.Projects}
	if why, err := v.WhyNothing(c); err == nil && why != "" {
		fmt.Fprintf(w, "warning: its agent will see nothing: %s\n", why)
	}
	if rec.Scope == "read" {
		fmt.Fprintln(w, "note: a read token; its agent can search and read but not write (--scope write for one that writes)")
	}
}

// stamp is a time as token list shows it, or none when it is unset.
func stamp(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return t.Local().Format("2006-01-02 15:04")
}
