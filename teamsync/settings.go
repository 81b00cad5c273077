package teamsync

import (
	"context"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/vault"
)

// guarded are the committed files that decide what a server lets each
// principal do (.cairn/access.yaml) and how it runs (.cairn/config.yaml;
// where it sends data and which secret it sends are per machine, in
// .cairn/local.yaml: docs/security.md). A change to them that arrives by sync is
// applied like any other change (whoever can push can already read and
// rewrite every file; docs/security.md, "Syncing through a shared repository"), and named
// in the report with who made it, so the people running a server see it.
var guarded = []string{vault.AccessFile, vault.ConfigFile}

// settingsChanged lists the commits between before and HEAD that changed
// a guarded file, when one is among the paths that came in: "path: hash
// author <email>: subject".
func settingsChanged(ctx context.Context, g git, before string, incoming []string) []string {
	var out []string
	for _, p := range guarded {
		if !slices.Contains(incoming, p) {
			continue
		}
		log, err := g.out(ctx, "log", "--no-merges", "--format=%h %an <%ae>: %s", before+"..HEAD", "--", p)
		if err != nil || log == "" {
			out = append(out, p+": changed")
			continue
		}
		for _, l := range strings.Split(log, "\n") {
			out = append(out, p+": "+l)
		}
	}
	return out
}
