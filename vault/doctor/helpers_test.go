package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/vaulttest"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/wikilinks"
)

// The tests' helpers, as package vault's tests have them, on the vault's
// exported API: those of the packages built on vault are
// internal/vaulttest's.

var (
	owner   = vaulttest.Owner
	camille = vaulttest.Camille
	sam     = vaulttest.Sam
)

const testQuiet = vaulttest.Quiet

func sampleVault(t testing.TB) (*vault.Vault, string) { return vaulttest.Sample(t) }

// openFrom makes a vault from the template folder from and opens it.
func openFrom(t testing.TB, from string) (*vault.Vault, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vault.Init(dir, vault.InitOptions{From: from}); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

var (
	gitOut        = vaulttest.Git
	cleanAndSound = vaulttest.CleanAndSound
	readFile      = vaulttest.ReadFile
)

func commitCount(t testing.TB, dir string) string {
	return gitOut(t, dir, "rev-list", "--count", "HEAD")
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// unchanged asserts HEAD and the work tree are exactly as before.
func unchanged(t testing.TB, dir, head string) {
	t.Helper()
	if now := gitOut(t, dir, "rev-parse", "HEAD"); now != head {
		t.Fatalf("HEAD moved from %s to %s", head, now)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("work tree changed:\n%s", st)
	}
}

func writeConfig(t *testing.T, root, content string) {
	t.Helper()
	p := filepath.Join(root, vault.ConfigFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeLocal(t *testing.T, root, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, vault.LocalFile), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func searchT(t testing.TB, v *vault.Vault, c access.Caller, a vault.SearchArgs) *vault.SearchResult {
	t.Helper()
	r, err := v.Search(context.Background(), c, a)
	if err != nil {
		t.Fatalf("search %+v: %v", a, err)
	}
	return r
}

// byHand writes files as a person would and commits them with git, then
// lets the vault notice the new head (Reconcile).
func byHand(t *testing.T, v *vault.Vault, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "by hand")
	if _, err := v.Reconcile(); err != nil {
		t.Fatal(err)
	}
}

// resolvedLinks maps "source id #i" → target id for every link that
// resolves, as the sample vault's principals see them together: each
// note's links as get_note lists them to one who may read it (the i-th
// link is the same in every view; a link to a note the reader may not
// see shows unresolved, so each principal adds what it sees resolve).
func resolvedLinks(v *vault.Vault) map[string]string {
	out := map[string]string{}
	for _, p := range v.NotePaths() {
		for _, c := range []access.Caller{owner, camille, sam} {
			n, err := v.GetNote(c, p, true, "")
			if err != nil || n.Links == nil {
				continue
			}
			for i, l := range n.Links.Outgoing {
				if l.Status != wikilinks.Resolved {
					continue
				}
				id := ""
				if l.To != nil {
					id = l.To.ID
				}
				out[fmt.Sprintf("%s #%d", n.ID, i)] = id
			}
		}
	}
	return out
}

func sameResolution(t *testing.T, before, after map[string]string, what string) {
	t.Helper()
	for k, id := range before {
		if after[k] != id {
			t.Fatalf("%s: link %s resolved to %s, now to %q", what, k, id, after[k])
		}
	}
}
