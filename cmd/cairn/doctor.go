package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/cairn-dev/cairn/host"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/doctor"
	"github.com/spf13/cobra"
)

func doctorCmd() *cobra.Command {
	var dir string
	var fix bool
	c := &cobra.Command{
		Use:   "doctor --vault DIR [--fix]",
		Short: "Check a vault's health; exits 1 when there is a problem. --fix repairs what is safe to repair",
		Long: `Check a vault's health and change nothing; exits 1 when there is a problem.

--fix first repairs what is safe to repair without a person: a commit a
crashed process left is finished or dropped, git locks and temporary files
known to be abandoned are removed (a lock a live git process may hold never
is), notes changed on disk are committed as the person's edits, and
writes of cairn's that a git operation left off the branch (a reset, a
rebase --abort, a write on another branch) are brought back.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needVault(dir); err != nil {
				return err
			}
			// Opened without repairing: the report shows what was left.
			v, err := vault.Open(dir, vault.Options{NoRepair: true})
			if err != nil {
				return err
			}
			defer v.Close()
			out := cmd.OutOrStdout()
			if fix {
				did, err := doctor.Repair(v)
				for _, d := range did {
					fmt.Fprintf(out, "%-8s %-12s %s\n", "fixed", "doctor", oneLine(d))
				}
				if err != nil {
					return fmt.Errorf("--fix: %w", err)
				}
				if len(did) == 0 {
					fmt.Fprintf(out, "%-8s %-12s %s\n", "fixed", "doctor", "nothing needed fixing")
				}
			}
			problems := 0
			for _, f := range doctor.Check(v) {
				fmt.Fprintf(out, "%-8s %-12s %s\n", f.Level, f.Check, oneLine(f.Message))
				if f.Level == "problem" {
					problems++
				}
			}
			fmt.Fprintf(out, "%s\n", inotifyLine())
			fmt.Fprintf(out, "%s\n", hostLine(dir))
			if problems > 0 {
				return fmt.Errorf("%d problem(s)", problems)
			}
			return nil
		},
	}
	vaultFlag(c, &dir)
	c.Flags().BoolVar(&fix, "fix", false, "repair what is safe to repair first (interrupted commits, abandoned locks and temporary files, notes changed on disk, writes left off the branch)")
	return c
}

// hostLine says which process hosts the vault, the one other servers on
// it attach to (docs/hosting.md, "The host and its front ends").
func hostLine(dir string) string {
	msg := "no process hosts the vault"
	if root, err := host.Canonical(dir); err == nil {
		if pid := host.Probe(root, version); pid != 0 {
			msg = fmt.Sprintf("process %d hosts the vault; other servers on it attach to it", pid)
		}
	}
	return fmt.Sprintf("%-8s %-12s %s", "info", "host", msg)
}

// inotifyLine reports the kernel's inotify limits, which the watcher needs.
func inotifyLine() string {
	read := func(name string) string {
		b, err := os.ReadFile("/proc/sys/fs/inotify/" + name)
		if err != nil {
			return "?"
		}
		return strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%-8s %-12s max_user_watches %s, max_user_instances %s", "info", "inotify", read("max_user_watches"), read("max_user_instances"))
}
