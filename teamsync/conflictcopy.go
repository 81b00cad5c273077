package teamsync

import (
	"context"

	"github.com/cairn-dev/cairn/vault"
)

// freeCopyName is the first vault.ConflictCopyName of p neither in the merged tree (a
// copy an earlier sync made in the same second, on either side) nor
// already given in this merge (taken), which it records.
func freeCopyName(ctx context.Context, g git, tree, p, stamp string, taken map[string]bool) string {
	for n := 1; ; n++ {
		name := vault.ConflictCopyName(p, stamp, n)
		if taken[name] || g.run(ctx, nil, "cat-file", "-e", tree+":"+name) == nil {
			continue
		}
		taken[name] = true
		return name
	}
}
