package main

import (
	"fmt"
	"os"
	"time"

	"github.com/cairn-dev/cairn/host"
	"github.com/cairn-dev/cairn/vault"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func reindexCmd() *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "reindex --vault DIR",
		Short: "Rebuild the search index and the vectors from the notes (through the running server when there is one)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.ErrOrStderr()
			tty := false
			if f, ok := out.(*os.File); ok {
				tty = term.IsTerminal(int(f.Fd()))
			}
			start := time.Now()
			var bar *progressbar.ProgressBar
			stage := ""
			lastLine := time.Time{}
			progress := func(s string, done, total int) {
				if tty {
					if s != stage {
						if bar != nil {
							bar.Finish()
							fmt.Fprintln(out)
						}
						stage = s
						bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(out),
							progressbar.OptionSetDescription(map[string]string{"index": "indexing notes", "embed": "making vectors"}[s]),
							progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond))
					}
					bar.Set(done)
					return
				}
				// Not a terminal: a plain line per stage change, then at most
				// one every two seconds.
				if s != stage || done == total || time.Since(lastLine) >= 2*time.Second {
					stage, lastLine = s, time.Now()
					fmt.Fprintf(out, "%s: %d/%d\n", map[string]string{"index": "indexed", "embed": "embedded"}[s], done, total)
				}
			}
			notes := 0
			err := onVault(cmd.Context(), dir, vault.Options{},
				func(c *host.Client) (err error) {
					fmt.Fprintf(out, "rebuilding in the server that hosts the vault (pid %d); searches answer from the current index until the new one replaces it\n", c.HostPID())
					notes, err = c.Reindex(cmd.Context(), progress)
					return err
				},
				func(v *vault.Vault) error {
					if err := v.Reindex(progress); err != nil {
						return err
					}
					notes = v.NoteCount()
					return nil
				})
			if err != nil {
				return err
			}
			if bar != nil {
				bar.Finish()
				fmt.Fprintln(out)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "reindexed %d notes in %s\n", notes, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	vaultFlag(c, &dir)
	return c
}
