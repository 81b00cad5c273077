package teamsync

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// A grant pushed by one member reaches the other's server and is applied
// there, and that sync names it, with who made it: access and settings
// changes arriving by sync are accepted and made visible.
func TestAccessAndSettingsChangesArrivingBySyncAreAppliedAndNamed(t *testing.T) {
	a, b := team(t)
	edit(t, a, vault.AccessFile, func(s string) string {
		return strings.Replace(s, "    sam:\n", "    sam:\n        acme/launch: write\n", 1)
	})
	edit(t, a, vault.ConfigFile, func(s string) string { return s + "# a comment\n" })
	edit(t, a, cdn, func(s string) string { return s + "\nAn ordinary edit.\n" })
	if rep := sync(t, a); len(rep.Settings) != 0 || rep.UpToDate {
		t.Fatalf("a's own changes reported as arriving, or not pushed: %+v", rep)
	}
	rep := sync(t, b)
	want := []string{vault.AccessFile + ": ", vault.ConfigFile + ": "}
	if len(rep.Settings) != 2 || !strings.HasPrefix(rep.Settings[0], want[0]) || !strings.HasPrefix(rep.Settings[1], want[1]) {
		t.Fatalf("settings reported: %q", rep.Settings)
	}
	if !strings.Contains(rep.Settings[0], "agent <agent@cairn.local>: edit "+vault.AccessFile) {
		t.Fatalf("the report does not say who changed access: %q", rep.Settings[0])
	}
	acc, err := b.AccessConfig()
	if err != nil || acc.Members["sam"]["acme/launch"] != "write" {
		t.Fatalf("b's access after the sync: %+v %v", acc, err)
	}
	if !rep.UpToDate || gitT(t, b.Root(), "rev-parse", "HEAD") != gitT(t, a.Root(), "rev-parse", "HEAD") {
		t.Fatalf("a fast-forward needs no push: %+v", rep)
	}
	if rep := sync(t, b); len(rep.Settings) != 0 || !rep.UpToDate {
		t.Fatalf("a sync with nothing new: %+v", rep)
	}
}
