package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/spf13/cobra"
)

func trashCmd() *cobra.Command {
	c := &cobra.Command{Use: "trash", Short: "The human side of the trash: list, restore, empty (no agent tool does these)"}
	var dir string
	list := &cobra.Command{
		Use: "list --vault DIR", Short: "List deleted notes, newest first", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := openVault(dir)
			if err != nil {
				return err
			}
			defer v.Close()
			es, err := v.TrashList()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "TRASH ID\tPATH\tDELETED BY\tWHEN")
			for _, e := range es {
				fmt.Fprintf(w, "%s\t%s\t%s (%s)\t%s\n", oneLine(e.TrashID), gitstore.QuotePath(e.Path), oneLine(e.DeletedBy), oneLine(e.Actor), e.DeletedAt.Format("2006-01-02 15:04"))
			}
			return w.Flush()
		},
	}
	vaultFlag(list, &dir)

	var rdir, to string
	restore := &cobra.Command{
		Use: "restore --vault DIR TRASH_ID [--to FOLDER]", Short: "Put a deleted note back where it was (or in FOLDER)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := openVault(rdir)
			if err != nil {
				return err
			}
			defer v.Close()
			w, err := v.TrashRestore(humanCaller(v, "trash restore"), args[0], to)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restored %s (id %s)\n", gitstore.QuotePath(w.Path), w.ID)
			return nil
		},
	}
	vaultFlag(restore, &rdir)
	restore.Flags().StringVar(&to, "to", "", "restore into this folder instead")

	var edir string
	empty := &cobra.Command{
		Use: "empty --vault DIR [TRASH_ID...]", Short: "Remove trashed notes from the vault (they stay in git history)",
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := openVault(edir)
			if err != nil {
				return err
			}
			defer v.Close()
			n, err := v.TrashEmpty(humanCaller(v, "trash empty"), args)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "emptied %d notes from the trash\n", n)
			return nil
		},
	}
	vaultFlag(empty, &edir)
	c.AddCommand(list, restore, empty)
	return c
}
