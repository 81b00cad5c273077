package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/vault"
	"github.com/spf13/cobra"
)

func initCmd() *cobra.Command {
	var o vault.InitOptions
	var noProject bool
	c := &cobra.Command{
		Use:   "init [--from TEMPLATE] [--owner PRINCIPAL] [--project HANDLE | --no-project] DIR",
		Short: "Make DIR a vault: new (empty or from a template), an existing git repository adopted, or a clone of a vault set up on this machine",
		Long: `Make DIR a vault, in one commit: a new git repository (empty, a copy of
--from, or a folder of notes such as an Obsidian vault), or an existing git
repository adopted. The files already there are committed as they are and
never rewritten: no id is added, nothing is reformatted. A folder that holds
no project yet becomes one project, whole (its marker, .cairn-project.yaml,
at the root; --project names it, --no-project leaves it out), so the
owner's agents can write in it at once. The vault's
.gitignore gains cairn's local files and the files each device writes for
itself (Obsidian's window layout, .obsidian/workspace*.json; Obsidian's trash,
.trash/; .DS_Store). A symbolic link or a file over 50 MiB is left out of a
new vault's first commit, and named.

On a repository that is a vault already (a clone of a team's vault, or cairn
clone's), init sets this machine up and commits nothing: .cairn/cache and
.cairn/secrets, --owner as this machine's owner in .cairn/local.yaml (never
committed), and the ignore lines the shared .gitignore lacks in
.git/info/exclude.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.RootProject = !noProject
			res, err := vault.Init(args[0], o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case res.Joined:
				fmt.Fprintf(out, "Set up this clone of a vault in %s (%d notes).\n", args[0], res.Notes)
			case res.Adopted:
				fmt.Fprintf(out, "Adopted the git repository as a vault in %s (%d notes, commit %.12s).\n", args[0], res.Notes, res.Commit)
			default:
				fmt.Fprintf(out, "Initialised a new vault in %s (%d notes, commit %.12s).\n", args[0], res.Notes, res.Commit)
			}
			printSetup(out, args[0], res)
			if res.Project != nil {
				fmt.Fprintf(out, "The whole vault is project %s: an agent of the owner writes in it at once (cairn project create HANDLE --folder F makes sub-projects; cairn access grant shares one).\n", res.Project.Handle)
			}
			fmt.Fprintf(out, "Next: cairn serve --vault %s\n", args[0])
			return nil
		},
	}
	c.Flags().StringVar(&o.From, "from", "", "copy the notes of this folder (e.g. sample-vault) into the new vault")
	c.Flags().StringVar(&o.Project, "project", "", "the handle of the project the whole vault becomes when the folder has none (default: the folder's name, lower-cased)")
	c.Flags().BoolVar(&noProject, "no-project", false, "make no project: the owner reads every note, and no agent writes until cairn project create makes one")
	c.MarkFlagsMutuallyExclusive("project", "no-project")
	c.Flags().StringVar(&o.Owner, "owner", "", "the owner principal, who may do everything (default: owner); on a clone of a vault, this machine's owner, kept in .cairn/local.yaml")
	return c
}

// printSetup says what cairn init or clone set up on this machine.
func printSetup(out io.Writer, dir string, res *vault.InitResult) {
	if res.Joined {
		fmt.Fprintf(out, "This machine: .cairn/cache and .cairn/secrets are local; the owner here is %s (kept in %s, never committed; cairn init --owner NAME %s changes it). Nothing was committed.\n",
			res.Owner, vault.LocalFile, dir)
		if len(res.Ignored) > 0 {
			fmt.Fprintf(out, "Ignored on this machine only (.git/info/exclude; the shared .gitignore lacks them): %s\n", strings.Join(res.Ignored, ", "))
		}
	} else if len(res.Ignored) > 0 {
		fmt.Fprintf(out, "Ignored in .gitignore (committed, so every clone ignores them): %s\n", strings.Join(res.Ignored, ", "))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(out, "Not committed (left on disk, untracked): %s\n", oneLine(s))
	}
	for _, a := range res.Advice {
		fmt.Fprintf(out, "Advice: %s\n", a)
	}
}
