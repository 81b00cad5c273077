package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func doctorCmd() *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "doctor --vault DIR",
		Short: "Check a vault's health (changes nothing); exits 1 when there is a problem",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := openVault(dir)
			if err != nil {
				return err
			}
			defer v.Close()
			problems := 0
			for _, f := range v.Doctor() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-8s %-12s %s\n", f.Level, f.Check, f.Message)
				if f.Level == "problem" {
					problems++
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", inotifyLine())
			if problems > 0 {
				return fmt.Errorf("%d problem(s)", problems)
			}
			return nil
		},
	}
	vaultFlag(c, &dir)
	return c
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
