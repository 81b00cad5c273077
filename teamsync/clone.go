package teamsync

import (
	"context"
	"fmt"
)

// Clone makes dir a clone of the repository at url, its remote named
// origin, through the same git command line as Sync (the same transports,
// credentials and refusal to prompt). branch "" checks out the remote's
// default branch. Making the clone a vault on this machine is vault.Init's.
func Clone(ctx context.Context, url, dir, branch string) error {
	args := []string{"clone", "--quiet", "--origin", "origin"}
	if branch != "" {
		args = append(args, "--branch", branch)
	}
	if err := gitIn(".").run(ctx, nil, append(args, "--", url, dir)...); err != nil {
		return fmt.Errorf("clone %s: %w", url, err)
	}
	return nil
}
