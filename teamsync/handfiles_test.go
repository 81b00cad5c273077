package teamsync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault"
)

// writeByHand writes a file as an editor or a file manager would, saved
// a while ago (past the quiet period, so the sync need not wait).
func writeByHand(t *testing.T, v *vault.Vault, p string, data []byte) {
	t.Helper()
	abs := filepath.Join(v.Root(), p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(abs, old, old); err != nil {
		t.Fatal(err)
	}
}

// Files other than notes changed by hand (an attachment pasted in, one
// replaced, Obsidian's settings) travel with the sync; one changed by hand
// on both sides keeps both versions instead of stopping the sync; a file
// too big for a git host, or a symbolic link, stays here and is named.
func TestFilesChangedByHandTravelAndNeverBlock(t *testing.T) {
	a, b := team(t)
	commitFiles(t, a, map[string]string{"pics/diagram.svg": "<svg>first</svg>"})
	sync(t, a)
	sync(t, b)

	writeByHand(t, a, "pics/diagram.svg", []byte("<svg>alice</svg>"))
	writeByHand(t, b, "pics/diagram.svg", []byte("<svg>bob</svg>"))
	writeByHand(t, b, ".obsidian/app.json", []byte(`{"newLinkFormat":"shortest"}`))
	writeByHand(t, b, "pics/photo.png", []byte("\x89PNG\r\n\x1a\nnot really"))
	big := make([]byte, vault.MaxSharedFileBytes+1)
	writeByHand(t, b, "video/talk.mp4", big)
	if err := os.Symlink("/etc/passwd", filepath.Join(b.Root(), "pics", "link.txt")); err != nil {
		t.Fatal(err)
	}
	sync(t, a)
	rep := sync(t, b)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "pics/diagram.svg" || rep.Conflicts[0].Copy == "" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	skipped := strings.Join(rep.Skipped, "\n")
	if !strings.Contains(skipped, "video/talk.mp4: 50 MiB, over the 50 MiB") || !strings.Contains(skipped, "pics/link.txt: not a regular file") {
		t.Fatalf("skipped: %q", rep.Skipped)
	}
	if got := read(t, b, "pics/diagram.svg"); got != "<svg>bob</svg>" {
		t.Fatalf("b's own version is not in place: %q", got)
	}
	if got := read(t, b, rep.Conflicts[0].Copy); got != "<svg>alice</svg>" {
		t.Fatalf("a's version is not kept beside it: %q", got)
	}
	sync(t, a)
	for p, want := range map[string]string{".obsidian/app.json": `{"newLinkFormat":"shortest"}`, "pics/photo.png": "\x89PNG\r\n\x1a\nnot really", "pics/diagram.svg": "<svg>bob</svg>"} {
		if got := read(t, a, p); got != want {
			t.Fatalf("%s on a: %q", p, got)
		}
	}
	for _, p := range []string{"video/talk.mp4", "pics/link.txt"} {
		if _, err := os.Lstat(filepath.Join(a.Root(), p)); err == nil {
			t.Fatalf("%s was shared", p)
		}
	}
	if st := gitT(t, b.Root(), "status", "--porcelain"); st != "?? pics/link.txt\n?? video/" && st != "?? pics/link.txt\n?? video/talk.mp4" {
		t.Fatalf("b's status: %q", st)
	}
}
