// Command cairn serves a git vault of Markdown notes to people and agents
// over MCP. One file per command; each builds on the vault and mcptools
// packages and holds no domain logic of its own.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"

	"github.com/cairn-dev/cairn/host"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "cairn",
		Short:         "A git vault of Markdown notes, shared by people and agents over MCP",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		// Every command finds its vault the same way.
		PersistentPreRunE: defaultVault,
	}
	root.SetOut(terminalSafe{os.Stdout})
	root.SetErr(terminalSafe{os.Stderr})
	root.AddCommand(initCmd(), serveCmd(), tokenCmd(), passwordCmd(), projectCmd(), accessCmd(), trashCmd(), doctorCmd(), demoCmd(), searchCmd(), reindexCmd(), syncCmd(), cloneCmd(), versionCmd())
	markUsageErrors(root)
	stopProfile, err := profile(os.Getenv("CAIRN_CPUPROFILE"), os.Getenv("CAIRN_TRACE"), os.Getenv("CAIRN_MEMPROFILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn:", err)
		os.Exit(1)
	}
	cmd, err := root.ExecuteC()
	stopProfile() // before os.Exit, which runs no deferred call
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn:", oneLine(err.Error()))
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(os.Stderr, "usage: %s\n(cairn %s --help says more)\n", cmd.UseLine(), strings.TrimSpace(strings.TrimPrefix(cmd.CommandPath(), "cairn")))
		}
		os.Exit(1)
	}
}

// profile writes the process's CPU profile to cpuFile ($CAIRN_CPUPROFILE)
// and its execution trace to traceFile ($CAIRN_TRACE) until stop is
// called: how a served process spends its time, and where a call waits,
// are measured from outside, as a client drives it (bench/servebench
// -cpuprofile), where the in-process benchmarks do not see the watcher,
// the upkeep and the transport. memFile ($CAIRN_MEMPROFILE) gets the heap
// profile when stop is called, after a collection: what stays live once
// a build is done. An empty name is none.
func profile(cpuFile, traceFile, memFile string) (stop func(), err error) {
	var files []*os.File
	var heap io.Writer
	stop = func() {
		if cpuFile != "" {
			pprof.StopCPUProfile()
		}
		if traceFile != "" {
			trace.Stop()
		}
		if heap != nil {
			runtime.GC() // the profile's in-use figures are those of the last collection
			if err := pprof.WriteHeapProfile(heap); err != nil {
				fmt.Fprintln(os.Stderr, "cairn: profile:", err)
			}
		}
		for _, f := range files {
			if err := f.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "cairn: profile:", err)
			}
		}
	}
	for _, p := range []struct {
		env, file string
		start     func(io.Writer) error
	}{
		{"$CAIRN_CPUPROFILE", cpuFile, pprof.StartCPUProfile},
		{"$CAIRN_TRACE", traceFile, trace.Start},
		{"$CAIRN_MEMPROFILE", memFile, func(w io.Writer) error { heap = w; return nil }},
	} {
		if p.file == "" {
			continue
		}
		f, err := os.Create(p.file)
		if err == nil {
			files = append(files, f)
			err = p.start(f)
		}
		if err != nil {
			stop()
			return nil, fmt.Errorf("%s: %w", p.env, err)
		}
	}
	return stop, nil
}

// usageError is a command line cairn could not take as written (a wrong
// number of arguments, an unknown flag): main shows the command's usage
// beside it.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// markUsageErrors makes every argument and flag error of c and its
// subcommands a usageError.
func markUsageErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markUsageErrors(sub)
	}
}

// vaultFlag adds --vault. Left out, it is $CAIRN_VAULT, else the vault
// the working folder is in (findVault, run before every command).
func vaultFlag(c *cobra.Command, dst *string) {
	c.Flags().StringVar(dst, "vault", "", "the vault folder (default: $CAIRN_VAULT, else the vault the current folder is in)")
}

// defaultVault fills a command's --vault when it was not given: with
// $CAIRN_VAULT, else with the vault the working folder is in or below, as
// git finds its repository.
func defaultVault(cmd *cobra.Command, _ []string) error {
	f := cmd.Flags().Lookup("vault")
	if f == nil || f.Changed {
		return nil
	}
	dir := os.Getenv("CAIRN_VAULT")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil
		}
		dir = findVault(wd)
	}
	if dir == "" {
		return nil
	}
	return f.Value.Set(dir)
}

// findVault is the nearest folder from dir up that holds a vault (a .cairn
// folder beside a .git), or "".
func findVault(dir string) string {
	for {
		if isDir(filepath.Join(dir, vault.CairnDir)) && exists(filepath.Join(dir, ".git")) {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func needVault(dir string) error {
	if dir == "" {
		return errors.New("--vault is required here: run it inside a vault, or give --vault DIR (or set CAIRN_VAULT)")
	}
	if _, err := os.Stat(filepath.Join(dir, vault.CairnDir)); err != nil {
		return fmt.Errorf("%s is not a cairn vault (no %s folder; cairn init makes one)", dir, vault.CairnDir)
	}
	return nil
}

// openVault opens a vault for a short command-line operation.
func openVault(dir string) (*vault.Vault, error) {
	if err := needVault(dir); err != nil {
		return nil, err
	}
	return vault.Open(dir, vault.Options{})
}

// humanCaller is the vault owner acting by hand through the command line.
func humanCaller(v *vault.Vault, cmd string) access.Caller {
	return access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn " + cmd}
}

// onVault runs a command where the vault is: in the process hosting it
// (remote), or here with the vault opened exclusively (local) when no
// process hosts it. A request the host could not finish because it handed
// over is made again to the next host.
func onVault(ctx context.Context, dir string, opts vault.Options, remote func(*host.Client) error, local func(*vault.Vault) error) error {
	if err := needVault(dir); err != nil {
		return err
	}
	root, err := host.Canonical(dir)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		c, v, err := host.Acquire(ctx, root, version, opts, host.DefaultWait)
		if err != nil {
			return err
		}
		if v != nil {
			err := local(v)
			if cerr := v.Close(); err == nil {
				err = cerr
			}
			return err
		}
		err = remote(c)
		c.Close()
		if !host.IsHandover(err) || attempt == 3 {
			return err
		}
	}
}
