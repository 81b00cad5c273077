package teamsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
)

// TestMain is also the dying sync of TestASyncKilledAtEachStep: with
// CAIRN_TEST_SYNC_DIE_AT set, it syncs the vault at CAIRN_TEST_DIR and
// exits at that step (status 3), skipping every deferred cleanup as a
// SIGKILL would; status 1 says the step was never reached.
func TestMain(m *testing.M) {
	if step := os.Getenv("CAIRN_TEST_SYNC_DIE_AT"); step != "" {
		die := func(s string) {
			if s == step {
				os.Exit(3)
			}
		}
		crashPoint = die
		gitstore.SetCrashPoint(die)
		v, err := vault.Open(os.Getenv("CAIRN_TEST_DIR"), vault.Options{Exclusive: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		Sync(context.Background(), v, Options{})
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// syncSteps are the steps of a sync that merges, in order: teamsync's
// own and those of the commit that moves the vault (gitstore's).
var syncSteps = []string{"fetched", "committed hand edits", "merged", "staged", "locked", "placed", "moved", "pushing", "pushed"}

// TestASyncKilledAtEachStep kills a sync (a note edited by hand not yet
// committed, notes written on both sides, so it commits, merges and
// pushes) at each of its steps in turn. Each time the vault passes git
// fsck, the next sync finishes the work, both clones end at the same
// commit, and no note of either side, nor the edit made by hand, is lost.
func TestASyncKilledAtEachStep(t *testing.T) {
	for _, step := range syncSteps {
		t.Run(step, func(t *testing.T) {
			a, b := team(t)
			edit(t, a, cdn, func(s string) string { return s + "\nFrom a.\n" })
			sync(t, a)
			edit(t, b, "acme/launch/Pricing.md", func(s string) string { return s + "\nFrom b.\n" })
			byHand := filepath.Join(b.Root(), "acme", "launch", "Launch plan.md")
			old, _ := os.ReadFile(byHand)
			os.WriteFile(byHand, append(old, []byte("\nBy hand on b.\n")...), 0o644)
			dir := b.Root()
			b.Close()

			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CAIRN_TEST_SYNC_DIE_AT="+step, "CAIRN_TEST_DIR="+dir)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("the sync did not die at %q: %v\n%s", step, err, out)
			}
			gitT(t, dir, "fsck", "--strict", "--no-progress")

			b = open(t, dir)
			sync(t, b)
			sync(t, a)
			if ha, hb := gitT(t, a.Root(), "rev-parse", "HEAD"), gitT(t, dir, "rev-parse", "HEAD"); ha != hb {
				t.Fatalf("the clones differ: %s and %s", ha, hb)
			}
			for _, v := range []*vault.Vault{a, b} {
				for p, want := range map[string]string{cdn: "From a.", "acme/launch/Pricing.md": "From b.", "acme/launch/Launch plan.md": "By hand on b."} {
					if got := read(t, v, p); !strings.Contains(got, want) {
						t.Fatalf("%s lost %q of %s:\n%s", v.Root(), want, p, got)
					}
				}
				if st := gitT(t, v.Root(), "status", "--porcelain"); st != "" {
					t.Fatalf("%s not clean:\n%s", v.Root(), st)
				}
			}
		})
	}
}
