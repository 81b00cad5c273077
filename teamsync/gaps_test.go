package teamsync

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// remoteOf is the bare repository a vault made by team syncs with.
func remoteOf(t *testing.T, v *vault.Vault) string {
	t.Helper()
	return gitT(t, v.Root(), "remote", "get-url", "origin")
}

// treeOf lists the files of the remote's main branch.
func treeOf(t *testing.T, remote string) []string {
	t.Helper()
	return strings.Split(gitT(t, remote, "ls-tree", "-r", "--name-only", "main"), "\n")
}

// Aliases added on both sides merge as a union, as tags do.
func TestFrontmatterAliasesMergeAsAUnion(t *testing.T) {
	a, b := team(t)
	before := note.Parse(cdn, []byte(read(t, a, cdn))).Aliases
	add := func(alias string) func(string) string {
		return func(s string) string {
			n := note.Parse(cdn, []byte(s))
			n.SetKey("aliases", note.ListNode(append(append([]string{}, n.Aliases...), alias)))
			return string(n.Render())
		}
	}
	edit(t, a, cdn, add("Alice's CDN name"))
	edit(t, b, cdn, add("Bob's CDN name"))
	sync(t, a)
	if rep := sync(t, b); len(rep.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	want := append(append(append([]string{}, before...), "Bob's CDN name"), "Alice's CDN name")
	for _, v := range []*vault.Vault{a, b} {
		if got := note.Parse(cdn, []byte(read(t, v, cdn))).Aliases; !slices.Equal(got, want) {
			t.Fatalf("%s: aliases %q, want %q", v.Root(), got, want)
		}
		owner := access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "human", Tool: "test"}
		for _, alias := range []string{"Alice's CDN name", "Bob's CDN name"} {
			if n, err := v.GetNote(owner, alias, false, ""); err != nil || n.Path != cdn {
				t.Fatalf("%s: get_note by the alias %q: %+v %v", v.Root(), alias, n, err)
			}
		}
	}
}

// Both sides create a note with the same title in different folders
// (through the vault, as an agent would): both notes stay, each with its
// own id, each read and found by path.
func TestTheSameTitleInDifferentFoldersKeepsBoth(t *testing.T) {
	a, b := team(t)
	create := func(v *vault.Vault, project, body string) string {
		owner := access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "agent", Tool: "create_note"}
		w, err := v.CreateNote(owner, vault.CreateArgs{Project: project, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return w.Path
	}
	pa := create(a, "acme/platform", "# Rollout plan\n\nAlice plans the ocelot rollout.\n")
	pb := create(b, "acme/launch", "# Rollout plan\n\nBob plans the pangolin rollout.\n")
	if pa == pb || path.Base(pa) != path.Base(pb) {
		t.Fatalf("want the same file name in two folders: %s and %s", pa, pb)
	}
	sync(t, a)
	if rep := sync(t, b); len(rep.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		owner := access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "human", Tool: "test"}
		na, err := v.GetNote(owner, pa, false, "")
		if err != nil || !strings.Contains(na.Content, "ocelot") {
			t.Fatalf("%s: %s: %+v %v", v.Root(), pa, na, err)
		}
		nb, err := v.GetNote(owner, pb, false, "")
		if err != nil || !strings.Contains(nb.Content, "pangolin") {
			t.Fatalf("%s: %s: %+v %v", v.Root(), pb, nb, err)
		}
		if na.ID == "" || na.ID == nb.ID {
			t.Fatalf("%s: the two notes' ids: %q and %q", v.Root(), na.ID, nb.ID)
		}
		for word, p := range map[string]string{"ocelot": pa, "pangolin": pb} {
			res, err := v.Search(context.Background(), owner, vault.SearchArgs{Query: word, Mode: "lexical", Limit: 5})
			if err != nil || len(res.Results) == 0 || res.Results[0].Path != p {
				t.Fatalf("%s: search %q: %+v %v", v.Root(), word, res, err)
			}
		}
	}
}

// This machine's own files (.cairn/secrets/, .cairn/local.yaml) never
// leave it, even when the vault's .gitignore and .git/info/exclude no
// longer name them: the sync names them as skipped and the remote never
// gets them.
func TestSecretsAndLocalSettingsNeverLeaveEvenUnignored(t *testing.T) {
	a, b := team(t)
	gitignore := read(t, a, ".gitignore")
	var kept []string
	for _, l := range strings.Split(gitignore, "\n") {
		if !strings.Contains(l, ".cairn/") {
			kept = append(kept, l)
		}
	}
	if strings.Join(kept, "\n") == gitignore {
		t.Fatalf("the vault's .gitignore does not name .cairn's local files:\n%s", gitignore)
	}
	writeByHand(t, a, ".gitignore", []byte(strings.Join(kept, "\n")))
	writeByHand(t, a, ".git/info/exclude", nil)
	secrets := map[string]string{
		".cairn/secrets/tokens.json": `{"agent":"s3cr3t-t0ken"}`,
		".cairn/local.yaml":          "owner: alice\nembedder:\n  url: http://127.0.0.1:9/\n  key_env: S3CR3T_KEY\n",
	}
	if old, err := os.ReadFile(filepath.Join(a.Root(), vault.LocalFile)); err == nil {
		secrets[vault.LocalFile] = string(old) + "# s3cr3t local line\n"
	}
	for p, c := range secrets {
		writeByHand(t, a, p, []byte(c))
	}
	if st := gitT(t, a.Root(), "status", "--porcelain", "--untracked-files=all"); !strings.Contains(st, "tokens.json") || !strings.Contains(st, "local.yaml") {
		t.Fatalf("git should see the unignored files now:\n%s", st)
	}
	rep := sync(t, a)
	for p := range secrets {
		if !slices.ContainsFunc(rep.Skipped, func(s string) bool { return strings.HasPrefix(s, p+": ") }) {
			t.Errorf("the report's Skipped does not name %s: %q", p, rep.Skipped)
		}
	}
	// Not settled(): with the ignore lines gone, a's work tree shows its
	// own files as untracked, and must keep doing so.
	sync(t, b)
	sync(t, a)
	if ha, hb := gitT(t, a.Root(), "rev-parse", "HEAD"), gitT(t, b.Root(), "rev-parse", "HEAD"); ha != hb {
		t.Fatalf("the clones differ: %s and %s", ha, hb)
	}
	gitT(t, a.Root(), "fsck", "--strict", "--no-progress")
	remote := remoteOf(t, a)
	for _, f := range treeOf(t, remote) {
		if strings.HasPrefix(f, ".cairn/secrets/") || f == vault.LocalFile || strings.HasPrefix(f, vault.CacheDir+"/") {
			t.Errorf("%s reached the remote", f)
		}
	}
	if out, _ := exec.Command("git", "-C", remote, "grep", "-l", "s3cr3t", "main").Output(); len(out) > 0 {
		t.Fatalf("a secret reached the remote:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(b.Root(), ".cairn/secrets/tokens.json")); err == nil {
		t.Fatal("a's token file is on b")
	}
	if got, _ := os.ReadFile(filepath.Join(b.Root(), vault.LocalFile)); strings.Contains(string(got), "s3cr3t") {
		t.Fatalf("a's local settings are on b:\n%s", got)
	}
}

// After a sync that brought additions, edits, a deletion and a rename
// (merged with b's own writes), b's catalog, link graph, version map and
// search index equal those of a fresh open of the same files.
func TestAfterASyncTheVaultEqualsAFreshOpen(t *testing.T) {
	a, b := team(t)
	owner := func(v *vault.Vault) access.Caller {
		return access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "human", Tool: "test"}
	}
	// b has read, listed and searched before anything arrives: what it
	// keeps must follow the sync.
	mdFiles := func(v *vault.Vault) []string {
		return strings.Split(gitT(t, v.Root(), "-c", "core.quotePath=false", "ls-files", "--", "*.md"), "\n")
	}
	for _, p := range mdFiles(b) {
		b.GetNote(owner(b), p, true, "") // another principal's memory is not readable: same on both
	}
	if _, err := b.Search(context.Background(), owner(b), vault.SearchArgs{Query: "provider", Mode: "lexical"}); err != nil {
		t.Fatal(err)
	}

	// a: two new notes linking to the CDN decision and to each other, an
	// edit adding a word and a link, a deletion, and a rename.
	files := mdFiles(a)
	var gone, moved string
	for _, p := range files {
		if p != cdn && strings.HasPrefix(p, "acme/") && gone == "" {
			gone = p
		} else if p != cdn && strings.HasPrefix(p, "acme/") && moved == "" {
			moved = p
		}
	}
	if gone == "" || moved == "" {
		t.Fatalf("the sample vault has too few notes: %v", files)
	}
	// The rename and the deletion through the vault (links to the renamed
	// note rewritten), the rest as commits of other writers.
	owA := owner(a)
	mv, err := a.RenameNote(owA, moved, "Wapiti roadmap", "", true)
	if err != nil {
		t.Fatalf("rename %s: %v", moved, err)
	}
	if _, err := a.DeleteNote(owA, gone, ""); err != nil {
		t.Fatalf("delete %s: %v", gone, err)
	}
	commitFiles(t, a, map[string]string{
		"acme/infra/Okapi rollout.md": "# Okapi rollout\n\nThe okapi rollout depends on [[Decision CDN provider]] and [[Okapi runbook]].\n",
		"acme/infra/Okapi runbook.md": "# Okapi runbook\n\nSteps for the okapi rollout; see [[Okapi rollout]].\n",
	})
	edit(t, a, cdn, func(s string) string { return s + "\nThe narwhal clause: see [[Okapi runbook]].\n" })
	// b: writes of its own, so the sync is a merge.
	if _, err := b.CreateNote(owner(b), vault.CreateArgs{Project: "acme/platform", Body: "# Bob's quokka\n\nquokka notes, linking [[Decision CDN provider]] and [[Okapi rollout]].\n"}); err != nil {
		t.Fatal(err)
	}
	wallaby := "Bob's wallaby line."
	po, err := b.GetNote(owner(b), "acme/infra/Platform overview.md", false, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.EditNote(owner(b), vault.EditArgs{Ref: po.Path, VersionToken: po.VersionToken, Operation: "append", Content: &wallaby}); err != nil {
		t.Fatal(err)
	}
	sync(t, a)
	rep := sync(t, b)
	if rep.Merge == "" || len(rep.Conflicts) != 0 {
		t.Fatalf("b's sync: %+v", rep)
	}
	for _, p := range []string{"acme/infra/Okapi rollout.md", cdn, gone, moved, mv.To} {
		if !slices.Contains(rep.Incoming, p) {
			t.Fatalf("%s not among the incoming %v (the move: %+v)", p, rep.Incoming, mv)
		}
	}

	// A fresh open of a copy of b's files, its cache removed.
	fresh := filepath.Join(t.TempDir(), "fresh")
	if out, err := exec.Command("cp", "-a", b.Root(), fresh).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(fresh, vault.CacheDir)); err != nil {
		t.Fatal(err)
	}
	f := open(t, fresh)
	if f.NoteCount() != b.NoteCount() {
		t.Errorf("notes: %d after the sync, %d on a fresh open", b.NoteCount(), f.NoteCount())
	}
	view := func(v *vault.Vault, p string) string {
		n, err := v.GetNote(owner(v), p, true, "")
		if err != nil {
			return "error: " + err.Error()
		}
		j, _ := json.MarshalIndent(n, "", " ")
		return string(j)
	}
	all := mdFiles(b)
	if !slices.Equal(all, mdFiles(f)) {
		t.Fatal("the copy has other files")
	}
	for _, p := range append(all, gone, moved) {
		if got, want := view(b, p), view(f, p); got != want {
			t.Errorf("%s after the sync:\n%s\non a fresh open:\n%s", p, got, want)
		}
	}
	for _, q := range []string{"okapi", "narwhal", "quokka", "rollout runbook", "provider", "wapiti roadmap", "wallaby"} {
		hits := func(v *vault.Vault) string {
			res, err := v.Search(context.Background(), owner(v), vault.SearchArgs{Query: q, Mode: "lexical", Limit: 20})
			if err != nil {
				return "error: " + err.Error()
			}
			var out []string
			for _, h := range res.Results {
				out = append(out, h.Path)
			}
			return strings.Join(out, "\n")
		}
		got, want := hits(b), hits(f)
		if got != want {
			t.Errorf("search %q after the sync:\n%s\non a fresh open:\n%s", q, got, want)
		}
		if q == "okapi" && !strings.Contains(got, "Okapi rollout") {
			t.Errorf("search %q does not find the incoming notes:\n%s", q, got)
		}
	}
}

// Another machine's own files pushed by mistake (git add -f of its
// .cairn/local.yaml and secrets) are never taken in: this machine keeps
// its owner and settings, the files are named, and the push takes them
// out of the shared branch.
func TestAnotherMachinesFilesAreRefused(t *testing.T) {
	a, b := team(t)
	if err := os.WriteFile(filepath.Join(b.Root(), vault.LocalFile), []byte("owner: bob\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	remote := gitT(t, a.Root(), "remote", "get-url", "origin")
	c := filepath.Join(t.TempDir(), "c")
	gitT(t, filepath.Dir(c), "clone", "-q", remote, c)
	// Pushed twice: first b syncs it (b has a local.yaml of its own), then
	// a (which has none).
	for round, v := range []*vault.Vault{b, a} {
		gitT(t, c, "pull", "-q", "origin", "main")
		os.MkdirAll(filepath.Join(c, ".cairn", "secrets"), 0o755)
		os.WriteFile(filepath.Join(c, vault.LocalFile), []byte(fmt.Sprintf("owner: mallory\nembedder:\n  url: https://evil.example/v%d\n  apiKeyEnv: AWS_SECRET_ACCESS_KEY\n", round)), 0o644)
		os.WriteFile(filepath.Join(c, ".cairn", "secrets", "tokens.json"), []byte(fmt.Sprintf(`{"x":"%d"}`, round)), 0o644)
		note := fmt.Sprintf("From c %d.md", round)
		os.WriteFile(filepath.Join(c, note), []byte("# From c\n"), 0o644)
		gitT(t, c, "add", "-f", vault.LocalFile, ".cairn/secrets/tokens.json", note)
		gitT(t, c, "commit", "-qm", "oops")
		gitT(t, c, "push", "-q", "origin", "main")

		rep := sync(t, v)
		if strings.Join(rep.Refused, ",") != ".cairn/local.yaml,.cairn/secrets/tokens.json" {
			t.Fatalf("%s: refused %v", v.Root(), rep.Refused)
		}
		read(t, v, note)
		if _, err := os.Stat(filepath.Join(v.Root(), ".cairn", "secrets", "tokens.json")); err == nil {
			t.Fatalf("%s: the other machine's tokens came in", v.Root())
		}
		if out := gitT(t, remote, "ls-tree", "-r", "--name-only", "main", "--", ".cairn"); strings.Contains(out, "local.yaml") || strings.Contains(out, "secrets") {
			t.Fatalf("still on the shared branch:\n%s", out)
		}
	}
	if got := read(t, b, vault.LocalFile); got != "owner: bob\n" || b.Owner() != "bob" {
		t.Fatalf("b's own settings changed: %q, owner %s", got, b.Owner())
	}
	if _, err := os.Stat(filepath.Join(a.Root(), vault.LocalFile)); err == nil || a.Owner() == "mallory" {
		t.Fatalf("a took the other machine's settings (owner %s)", a.Owner())
	}
	settled(t, a, b)
}
