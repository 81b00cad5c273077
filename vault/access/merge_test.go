package access

import (
	"slices"
	"strings"
	"testing"
)

func TestMergeAccessEntryByEntryFailingClosed(t *testing.T) {
	base := []byte("owner: alice\nmembers:\n  sam:\n    acme/platform: write\n  camille:\n    acme: read\nbanks:\n  sam: [ops]\n")
	ours := []byte("owner: alice\nmembers:\n  camille:\n    acme: read\n    acme/launch: write\nbanks:\n  sam: [ops, sales]\n")                                           // sam revoked; camille granted launch; sam gets the sales bank
	theirs := []byte("owner: alice\nmembers:\n  sam:\n    acme/platform: write\n    acme/infra: read\n  camille:\n    acme: write\n  dana:\n    acme: read\nbanks: {}\n") // sam gets infra; camille raised; dana added; sam's ops bank removed
	out, said, err := Merge(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]map[string]string{
		"sam":     {"acme/infra": "read"},                    // the revocation of platform stands; infra came in
		"camille": {"acme": "write", "acme/launch": "write"}, // each side's change
		"dana":    {"acme": "read"},
	}
	for who, projects := range want {
		for p, role := range projects {
			if m.Members[who][p] != role {
				t.Errorf("%s on %s: %q, want %q\n%s", who, p, m.Members[who][p], role, out)
			}
		}
		if len(m.Members[who]) != len(projects) {
			t.Errorf("%s: %v, want %v", who, m.Members[who], projects)
		}
	}
	if !slices.Equal(m.Banks["sam"], []string{"sales"}) {
		t.Errorf("sam's banks %v, want [sales] (ops removed there, sales added here)", m.Banks["sam"])
	}
	if len(said) != 0 {
		t.Errorf("nothing changed both ways, yet: %v", said)
	}

	// The same entry changed both ways: the lesser role stays, and it is said.
	ours = []byte("owner: alice\nmembers:\n  sam:\n    acme/platform: read\n  camille:\n    acme: read\n")
	theirs = []byte("owner: bob\nmembers:\n  camille:\n    acme: write\n  sam:\n    acme/infra: write\n")
	if out, _, err = Merge([]byte("owner: [alice"), ours, theirs); err == nil {
		t.Fatalf("a base that is not an access file merged: %s", out)
	}
	out, said, err = Merge(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	m, _ = Parse(out)
	if _, ok := m.Members["sam"]["acme/platform"]; ok || m.Members["sam"]["acme/infra"] != "write" || m.Owner != "bob" {
		t.Fatalf("merged:\n%s", out)
	}
	if len(said) != 1 || !strings.Contains(said[0], "sam on acme/platform: read here, none there; none kept") {
		t.Fatalf("said %q", said)
	}
	// A revocation against a raise: revoked.
	ours = []byte("owner: alice\nmembers:\n  camille:\n    acme: read\n")
	theirs = []byte("owner: alice\nmembers:\n  sam:\n    acme/platform: write\n    acme/infra: read\n  camille:\n    acme: read\n")
	out, said, err = Merge([]byte("owner: alice\nmembers:\n  sam:\n    acme/platform: read\n  camille:\n    acme: read\n"), ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	m, _ = Parse(out)
	if _, ok := m.Members["sam"]["acme/platform"]; ok || m.Members["sam"]["acme/infra"] != "read" || len(said) != 1 {
		t.Fatalf("a revocation against a raise:\n%s\n%v", out, said)
	}
}

// The sign-in map merges entry by entry too: a mapping added or changed on
// one side is taken; one changed differently on both is dropped and said
// (nobody signs in as either); the claim follows the side that changed it.
func TestMergeAccessSignInMap(t *testing.T) {
	base := []byte("owner: me\nsignin:\n  principals:\n    ann@example.com: ann\n    bob@example.com: bob\n")
	ours := []byte("owner: me\nsignin:\n  principals:\n    ann@example.com: ann\n    bob@example.com: robert\n    cat@example.com: cat\n")
	theirs := []byte("owner: me\nsignin:\n  claim: preferred_username\n  principals:\n    ann@example.com: ann\n    bob@example.com: bobby\n    dan@example.com: dan\n")
	out, said, err := Merge(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ann@example.com": "ann", "cat@example.com": "cat", "dan@example.com": "dan"}
	if a.SignInClaim() != "preferred_username" || len(a.SignIn.Principals) != len(want) {
		t.Fatalf("merged: %s", out)
	}
	for k, v := range want {
		if a.PrincipalFor(k) != v {
			t.Errorf("%s: %q, want %q", k, a.PrincipalFor(k), v)
		}
	}
	if a.PrincipalFor("bob@example.com") != "" || len(said) != 1 || !strings.Contains(said[0], "bob@example.com") {
		t.Errorf("the conflicting entry: %q, said %q", a.PrincipalFor("bob@example.com"), said)
	}
	if _, err := Parse([]byte("owner: me\nsignin:\n  principals:\n    x@example.com: ../evil\n")); err == nil {
		t.Error("a sign-in mapped to a name that is not a principal was accepted")
	}
}
