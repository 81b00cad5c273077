package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot is every file of dir but .git and .cairn: its bytes and the
// file itself (written back, even with the same bytes, it is another one).
func snapshot(t *testing.T, dir string) map[string][2]any {
	t.Helper()
	out := map[string][2]any{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".git" || rel == ".cairn" {
				return filepath.SkipDir
			}
			return nil
		}
		data, _ := os.ReadFile(p)
		fi, _ := os.Lstat(p)
		out[filepath.ToSlash(rel)] = [2]any{string(data), fi}
		return nil
	})
	return out
}

func sameAsBefore(t *testing.T, dir string, before map[string][2]any, except ...string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, b := range before {
		skip := false
		for _, e := range except {
			skip = skip || p == e
		}
		a, ok := after[p]
		switch {
		case skip:
		case !ok || a[0] != b[0]:
			t.Fatalf("%s changed or is gone", p)
		case !os.SameFile(a[1].(os.FileInfo), b[1].(os.FileInfo)):
			t.Fatalf("%s was written again", p)
		}
	}
}

// A person's Obsidian vault, adopted with the binary and served: init and
// the server's reads change no file, Obsidian's device files and trash stay
// out of git, and the trash commands see cairn's deletions only.
func TestAnObsidianVaultAdoptedAndServedThroughTheBinary(t *testing.T) {
	v := filepath.Join(t.TempDir(), "My vault")
	if out, err := exec.Command("cp", "-R", "../../vault/testdata/obsidian-vault", v).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	before := snapshot(t, v)
	out, _ := run(t, true, "init", v)
	if !strings.Contains(out, "Initialised a new vault") || !strings.Contains(out, "7 notes") ||
		!strings.Contains(out, ".obsidian/workspace.json") || !strings.Contains(out, ".trash/") {
		t.Fatalf("init said: %s", out)
	}
	sameAsBefore(t, v, before)

	srv := startStdio(t, v)
	srv.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`, `"principal"`)
	srv.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"ref":"Project X"}}}`, `No frontmatter and no heading.\r\n`)
	srv.call(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":"trashed","mode":"lexical"}}}`, `"results":[]`)
	srv.call(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"delete_note","arguments":{"ref":"[[Zettel]]"}}}`, `"trashId"`)
	srv.stop()
	sameAsBefore(t, v, before, "Projects/Zettel.md")

	os.WriteFile(filepath.Join(v, ".obsidian/workspace.json"), []byte(`{"lastOpenFiles":[]}`), 0o644)
	if st := git(t, v, "status", "--porcelain"); st != "" {
		t.Fatalf("status after Obsidian rewrote its layout: %q", st)
	}
	list, _ := run(t, true, "trash", "list", "--vault", v)
	if lines := strings.Split(strings.TrimSpace(list), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "Projects/Zettel.md") {
		t.Fatalf("trash list (Obsidian's .trash/ is not cairn's):\n%s", list)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	if git(t, v, "ls-files", ".cairn/trash/"+id) == "" {
		t.Fatal("the deleted note is not in .cairn/trash/")
	}
	run(t, true, "trash", "restore", "--vault", v, id)
	sameAsBefore(t, v, before, "Projects/Zettel.md", ".obsidian/workspace.json")
	if data, _ := os.ReadFile(filepath.Join(v, "Projects/Zettel.md")); string(data) != before["Projects/Zettel.md"][0] {
		t.Fatalf("restored note: %q", data)
	}
	if st := git(t, v, "status", "--porcelain"); st != "" {
		t.Fatalf("status after restore: %q", st)
	}
	git(t, v, "fsck", "--strict")
}
