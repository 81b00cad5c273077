package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairn-dev/cairn/oauth"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// passwordCmd sets the password a principal signs in with on the OAuth
// consent page (cairn serve --http --public-url).
func passwordCmd() *cobra.Command {
	c := &cobra.Command{Use: "password", Short: "Set or remove the password a principal signs in with when an app connects by OAuth"}
	var dir string
	set := &cobra.Command{
		Use:   "set PRINCIPAL --vault DIR",
		Short: "Set a principal's sign-in password: typed twice on a terminal, or one line on standard input",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needVault(dir); err != nil {
				return err
			}
			pw, err := readPassword(cmd)
			if err != nil {
				return err
			}
			if err := oauth.SetPassword(dir, args[0], pw); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "password set for %s (stored as a bcrypt hash in %s)\n", args[0], oauth.PasswordsFile)
			return nil
		},
	}
	vaultFlag(set, &dir)
	var rmDir string
	remove := &cobra.Command{
		Use: "remove PRINCIPAL --vault DIR", Short: "Remove a principal's password: no new sign-ins (grants stay until revoked)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needVault(rmDir); err != nil {
				return err
			}
			return oauth.RemovePassword(rmDir, args[0])
		},
	}
	vaultFlag(remove, &rmDir)
	c.AddCommand(set, remove)
	return c
}

// readPassword reads it twice, unechoed, from a terminal; else the first
// line of standard input.
func readPassword(cmd *cobra.Command) (string, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line == "" {
			return "", fmt.Errorf("password: none on standard input (%v)", err)
		}
		return line, nil
	}
	fmt.Fprint(cmd.ErrOrStderr(), "Password: ")
	a, err := term.ReadPassword(fd)
	fmt.Fprintln(cmd.ErrOrStderr())
	if err != nil {
		return "", err
	}
	fmt.Fprint(cmd.ErrOrStderr(), "Again: ")
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(cmd.ErrOrStderr())
	if err != nil {
		return "", err
	}
	if string(a) != string(b) {
		return "", errors.New("password: the two do not match")
	}
	return string(a), nil
}
