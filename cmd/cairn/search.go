package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/host"
	"github.com/cairn-dev/cairn/vault"
	"github.com/spf13/cobra"
)

func searchCmd() *cobra.Command {
	var (
		dir  string
		a    vault.SearchArgs
		asJS bool
	)
	c := &cobra.Command{
		Use:   "search --vault DIR [--project P] [--mode M] [--limit N] [--json] QUERY...",
		Short: "Search the vault's notes as its owner (hybrid: words and meaning)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.Limit < 1 || a.Limit > vault.MaxSearchLimit {
				return fmt.Errorf("--limit must be between 1 and %d", vault.MaxSearchLimit) // 0 is not "the default"
			}
			a.Query = strings.Join(args, " ")
			var res *vault.SearchResult
			err := onVault(cmd.Context(), dir, vault.Options{},
				func(c *host.Client) (err error) {
					res, err = c.Search(cmd.Context(), a)
					return err
				},
				func(v *vault.Vault) error {
					// A short-lived process: let the notes over 64 KiB and
					// the vectors of notes changed since the last run be
					// indexed first (the builtin embedder makes thousands a
					// second), so the search sees every note and hybrid is
					// hybrid.
					ix, err := v.SearchIndex()
					if err != nil {
						return err
					}
					v.WaitIndexed(time.Minute)
					ix.WaitVectors(time.Minute)
					res, err = v.Search(cmd.Context(), humanCaller(v, "search"), a)
					return err
				})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJS {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			if res.Notice != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", res.Notice)
			}
			if len(res.Results) == 0 {
				fmt.Fprintf(out, "no results (%s)\n", res.Mode)
				return nil
			}
			for i, h := range res.Results {
				fmt.Fprintf(out, "%2d. %s  (%s)\n    %s\n", i+1, oneLine(h.Title), gitstore.QuotePath(h.Path), oneLine(h.Snippet))
			}
			fmt.Fprintf(out, "%d results, %s\n", len(res.Results), res.Mode)
			return nil
		},
	}
	vaultFlag(c, &dir)
	c.Flags().StringVar(&a.Project, "project", "", "only this project's notes")
	c.Flags().StringVar(&a.Mode, "mode", "", "hybrid (default), lexical or semantic")
	c.Flags().IntVar(&a.Limit, "limit", 10, "how many results (1-50)")
	c.Flags().StringSliceVar(&a.Tags, "tag", nil, "only notes with this tag (repeat for several)")
	c.Flags().StringVar(&a.Type, "type", "", "only notes of this type")
	c.Flags().StringVar(&a.Path, "path", "", "only notes under this folder")
	c.Flags().BoolVar(&a.Explain, "explain", false, "with --json: each hit's rank in each list (lexical, semantic)")
	c.Flags().StringVar(&a.After, "after", "", "only notes dated on or after this date")
	c.Flags().StringVar(&a.Before, "before", "", "only notes dated before this date")
	c.Flags().BoolVar(&asJS, "json", false, "print the results as JSON (as the search tool returns them)")
	return c
}
