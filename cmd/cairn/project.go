package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/spf13/cobra"
)

func projectCmd() *cobra.Command {
	c := &cobra.Command{Use: "project", Short: "Create and list projects (people make projects; agents use them)"}
	var dir, name, folder string
	create := &cobra.Command{
		Use: "create --vault DIR HANDLE [--name NAME] [--folder PATH]", Short: "Create a project: a folder with a marker file holding its handle", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := openVault(dir)
			if err != nil {
				return err
			}
			defer v.Close()
			p, err := v.CreateProject(humanCaller(v, "project create"), args[0], name, folder)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "project %s (%s) in %s\n", p.Handle, oneLine(p.Name), folderName(p.Dir))
			return nil
		},
	}
	vaultFlag(create, &dir)
	create.Flags().StringVar(&name, "name", "", "display name")
	create.Flags().StringVar(&folder, "folder", "", "folder (default: the handle as a path; . for the whole vault)")

	var listDir string
	list := &cobra.Command{
		Use: "list --vault DIR", Short: "List projects", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := openVault(listDir)
			if err != nil {
				return err
			}
			defer v.Close()
			ps, problems, err := v.ProjectList()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "HANDLE\tNAME\tFOLDER\tALIASES")
			for _, p := range ps {
				fmt.Fprintf(w, "%s\t%s\t%s\t%v\n", oneLine(p.Handle), oneLine(p.Name), folderName(p.Dir), oneLine(fmt.Sprint(p.Aliases)))
			}
			w.Flush()
			for _, pr := range problems {
				fmt.Fprintln(os.Stderr, "warning:", oneLine(pr))
			}
			return nil
		},
	}
	vaultFlag(list, &listDir)
	c.AddCommand(create, list)
	return c
}

// folderName is a project's folder as printed: ./ for the vault's root.
func folderName(dir string) string {
	if dir == "" {
		return "./"
	}
	return gitstore.QuotePath(dir) + "/"
}
