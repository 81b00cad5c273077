package mcptools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// TestAWriteDuringAPersonsMergeIsUnavailable: while a merge a person runs
// in the vault waits for its conflicts to be resolved, create_note waits
// (vault.GitWait), then answers unavailable with mayHaveRun false and what
// to do, and nothing is written; once the merge is aborted the same call
// succeeds.
func TestAWriteDuringAPersonsMergeIsUnavailable(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write"))
	head := gitHead(t, ts.dir)
	if err := os.WriteFile(filepath.Join(ts.dir, ".git", "MERGE_HEAD"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"project": "acme/launch", "body": "# During a merge\n"}
	res := failing(t, c, "create_note", args, "merge")
	sc, _ := res.StructuredContent.(map[string]any)
	if sc["error"] != "unavailable" || sc["mayHaveRun"] != false || !strings.Contains(sc["message"].(string), "git merge --abort") {
		t.Fatalf("structured content: %v", res.StructuredContent)
	}
	if gitHead(t, ts.dir) != head {
		t.Fatal("HEAD moved")
	}
	if _, err := os.Stat(filepath.Join(ts.dir, "acme/launch/During a merge.md")); err == nil {
		t.Fatal("the note was written")
	}
	os.Remove(filepath.Join(ts.dir, ".git", "MERGE_HEAD"))
	var w vault.Written
	ok(t, c, "create_note", args, &w)
}

func gitHead(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
