package teamsync

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// The access file changed on both sides merges entry by entry: each side's
// change stands, and where both changed one member's role the lesser one
// stays, so a revocation is never undone by a teammate's concurrent grant.
// No copy is made (an access file beside it would grant nothing), and the
// conflict is reported.
func TestAccessChangedOnBothSidesFailsClosed(t *testing.T) {
	a, b := team(t)
	change := func(v *vault.Vault, edit func(*access.Access)) {
		t.Helper()
		m, err := access.Parse([]byte(read(t, v, vault.AccessFile)))
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		out, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		commitFiles(t, v, map[string]string{vault.AccessFile: string(out)})
	}
	// a revokes sam; b lowers sam to read and gives camille more.
	change(a, func(m *access.Access) {
		if m.Members["sam"]["acme/platform"] != "write" {
			t.Fatalf("the sample access file changed: %v", m.Members)
		}
		delete(m.Members, "sam")
	})
	change(b, func(m *access.Access) {
		m.Members["sam"]["acme/platform"] = "read"
		m.Members["camille"]["acme/infra"] = "read"
	})
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != vault.AccessFile || rep.Conflicts[0].Copy != "" ||
		!strings.Contains(rep.Conflicts[0].Why, "sam on acme/platform: read here, none there; none kept") {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		m, err := access.Parse([]byte(read(t, v, vault.AccessFile)))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.Members["sam"]; ok {
			t.Errorf("%s: sam's revocation was undone: %v", v.Root(), m.Members["sam"])
		}
		if m.Members["camille"]["acme/infra"] != "read" || m.Members["camille"]["acme/launch"] != "write" {
			t.Errorf("%s: b's grant to camille was lost: %v", v.Root(), m.Members["camille"])
		}
	}
}
