package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/bench/mcpproc"
)

// runShallow checks what cairn does with a shallow clone (git clone
// --depth 1) and a partial one (--filter=blob:none); cairn clone has
// neither option. Each is set up with cairn init, served, written to and
// synced after the remote moved on; each step prints ok or its error, for
// docs/scaling.md to report what happens rather than claim it works.
func runShallow(c config, tmp, bin string) error {
	remote := filepath.Join(tmp, "remote.git")
	if err := git(tmp, "init", "-q", "--bare", "-b", "main", remote); err != nil {
		return err
	}
	// What git hosts do (GitHub, GitLab): serve partial clones.
	if err := git(remote, "config", "uploadpack.allowFilter", "true"); err != nil {
		return err
	}
	if err := initAndPush(c.sample, filepath.Join(tmp, "seed"), remote); err != nil {
		return err
	}
	full := filepath.Join(tmp, "full")
	fmt.Println("The remote: the sample vault, then writes of another member (new notes, Welcome appended to).")
	step("cairn clone (full) of the remote", cairnRun(bin, "clone", remote, full))
	old, err := writeAndSync(bin, full, "full", 3)
	step("3 notes written and Welcome appended to in the full clone, pushed (cairn serve; cairn sync)", err)
	for _, kind := range []struct {
		name string
		args []string
	}{
		{"shallow", []string{"--depth", "1"}},
		{"partial", []string{"--filter=blob:none"}},
	} {
		dir := filepath.Join(tmp, kind.name)
		fmt.Printf("\nA %s clone (git clone %s file://…):\n\n", kind.name, strings.Join(kind.args, " "))
		args := append(append([]string{"clone", "-q"}, kind.args...), "file://"+remote, dir)
		step("git clone "+strings.Join(kind.args, " "), git(tmp, args...))
		missing, _ := gitOut(dir, "rev-list", "--objects", "--all", "--missing=print")
		fmt.Printf("  (objects it lacks: %d; shallow boundary: %v)\n", strings.Count(missing, "\n?")+boolInt(strings.HasPrefix(missing, "?")), fileExists(filepath.Join(dir, ".git", "shallow")))
		step("cairn init on it", cairnRun(bin, "init", dir))
		serveSteps(bin, dir, kind.name, old)
		_, err := writeAndSync(bin, full, "full, after the "+kind.name+" clone", 1)
		step("1 more note written in the full clone and pushed", err)
		step("cairn sync of the "+kind.name+" clone", cairnRun(bin, "sync", "--vault", dir))
		step("cairn sync of the full clone (brings what the "+kind.name+" clone wrote)", cairnRun(bin, "sync", "--vault", full))
		step("git fsck of the "+kind.name+" clone", git(dir, "fsck", "--no-progress"))
		step("cairn doctor on it", cairnRun(bin, "doctor", "--vault", dir))
	}
	step("git fsck of the remote", git(remote, "fsck", "--no-progress"))
	return nil
}

// serveSteps serves dir and makes the calls that read history.
func serveSteps(bin, dir, name, old string) {
	p, err := mcpproc.Start(bin, dir, name)
	step("cairn serve on it", err)
	if err != nil {
		return
	}
	for _, call := range []struct {
		what string
		tool string
		args map[string]any
	}{
		{"whoami", "whoami", nil},
		{"get_note detailed (provenance: a history walk)", "get_note", map[string]any{"ref": "Welcome", "detailed": true}},
		{"get_note of Welcome's revision before the other member's append", "get_note", map[string]any{"ref": "Welcome", "revision": old}},
		{"recent_activity (from git history)", "recent_activity", map[string]any{"limit": 50}},
		{"start_session acme (a delta from history)", "start_session", map[string]any{"project": "acme"}},
		{"search", "search", map[string]any{"query": "deploy runbook"}},
		{"create_note", "create_note", map[string]any{"project": project, "body": "# Written in the " + name + " clone\n\nHello.\n"}},
	} {
		step(call.what, p.Call(call.tool, call.args, nil))
	}
	step("cairn serve stops", p.Close())
}

func step(what string, err error) {
	if err != nil {
		fmt.Printf("- %s: FAILED: %s\n", what, oneLine(err.Error()))
	} else {
		fmt.Printf("- %s: ok\n", what)
	}
}

func cairnRun(bin string, args ...string) error {
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

// writeAndSync creates n notes in dir through cairn serve and appends to
// Welcome, then syncs. It returns Welcome's versionToken before the
// append.
func writeAndSync(bin, dir, who string, n int) (string, error) {
	p, err := mcpproc.Start(bin, dir, who)
	if err != nil {
		return "", err
	}
	defer p.Close()
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("# Note %d by %s\n\nWritten before the sync.\n", i, who)
		if err := p.Call("create_note", map[string]any{"project": project, "body": body}, nil); err != nil {
			return "", err
		}
	}
	var note struct {
		VersionToken string `json:"versionToken"`
	}
	if err := p.Call("get_note", map[string]any{"ref": "Welcome"}, &note); err != nil {
		return "", err
	}
	args := map[string]any{"ref": "Welcome", "versionToken": note.VersionToken, "operation": "append", "content": "Appended by " + who + "."}
	if err := p.Call("edit_note", args, nil); err != nil {
		return "", err
	}
	if err := p.Close(); err != nil {
		return "", err
	}
	return note.VersionToken, cairnRun(bin, "sync", "--vault", dir)
}

// oneLine shortens an error for a list.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
