package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestServeRefusesABadSyncPeriod(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", v)
	for bad, says := range map[string]string{"-1s": "negative", "500ms": "under 1s"} {
		_, errOut := run(t, false, "serve", "--vault", v, "--sync-every", bad)
		if !strings.Contains(errOut, "--sync-every: "+bad) || !strings.Contains(errOut, says) {
			t.Fatalf("--sync-every %s: %s", bad, errOut)
		}
	}
}

// syncTeam is two clones of one bare remote, each served by its own
// `cairn serve` with an MCP client.
type syncTeam struct {
	*cluster
	remote string
	dirs   [2]string
	nodes  [2]*stdioNode
}

// serveBoth (re)starts both servers with the given flags.
func (tm *syncTeam) serveBoth(flags ...string) {
	for i, d := range tm.dirs {
		if tm.nodes[i] != nil {
			tm.nodes[i].c.Close() // stdin closed: the server hands over and exits
		}
		tm.nodes[i] = startNode(tm.t, d, fmt.Sprintf("%s%d", string(rune('a'+i)), tm.born), flags...)
		tm.cluster.nodes = append(tm.cluster.nodes, tm.nodes[i])
	}
	tm.born++
}

// settle waits until both clones and the remote hold the same commit. The
// deadline only turns a hang into a failure.
func (tm *syncTeam) settle(what string) string {
	tm.t.Helper()
	head := func(args ...string) string {
		out, _ := exec.Command("git", args...).Output()
		return strings.TrimSpace(string(out))
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		a, b := head("-C", tm.dirs[0], "rev-parse", "HEAD"), head("-C", tm.dirs[1], "rev-parse", "HEAD")
		r := head("--git-dir", tm.remote, "rev-parse", "main")
		if a != "" && a == b && b == r {
			return a
		}
		if time.Now().After(deadline) {
			tm.fatalf(false, "%s: the clones never settled (a %s, b %s, remote %s)", what, a, b, r)
		}
	}
}

// sound checks what every settled team must show on both clones: clean
// work trees, git fsck clean, no conflict marker anywhere.
func (tm *syncTeam) sound() {
	tm.t.Helper()
	for _, d := range tm.dirs {
		if st := git(tm.t, d, "--no-optional-locks", "status", "--porcelain"); st != "" {
			tm.fatalf(false, "%s is not clean:\n%s", d, st)
		}
		git(tm.t, d, "fsck", "--strict", "--no-progress")
		if out, _ := exec.Command("git", "-C", d, "grep", "-l", "-e", "^<<<<<<< ", "-e", "^>>>>>>> ", "-e", "^=======$", "HEAD").Output(); len(out) > 0 {
			tm.fatalf(false, "conflict markers in %s:\n%s", d, out)
		}
	}
}

func (tm *syncTeam) doctor(i int) string {
	out, _ := run(tm.t, true, "doctor", "--vault", tm.dirs[i])
	return out
}

// Two `cairn serve --sync-every 1s` on two clones of one bare remote. A
// conflict made while neither synced (the same line changed on both) is
// resolved without a marker and is visible on both sides: recent_activity,
// the next start_session delta, cairn doctor. Then agents write on both
// at once (new notes, and appends to one shared note, which conflict as
// the syncs interleave): once the clones settle, every acknowledged write
// is in HEAD on both, the clones are identical and sound, and each side
// finds the other's notes by search. Deleting the conflict copies
// resolves the conflicts for cairn doctor on both sides.
func TestTwoServersSyncThroughOneRemoteWhileAgentsWrite(t *testing.T) {
	base := t.TempDir()
	tm := &syncTeam{cluster: &cluster{t: t}, remote: filepath.Join(base, "remote.git"),
		dirs: [2]string{filepath.Join(base, "a"), filepath.Join(base, "b")}}
	git(t, base, "init", "-q", "--bare", "-b", "main", tm.remote)
	run(t, true, "init", "--from", "../../sample-vault", tm.dirs[0])
	git(t, tm.dirs[0], "remote", "add", "origin", tm.remote)
	run(t, true, "sync", "--vault", tm.dirs[0])
	git(t, base, "clone", "-q", tm.remote, tm.dirs[1])

	// Sync off: both visit the project, then change the same line.
	tm.serveBoth("--sync-every", "0")
	const cdn = "acme/infra/decisions/Decision CDN provider.md"
	const log = "acme/Team log.md"
	tm.mustCall(tm.nodes[0], "create_note", map[string]any{"project": "acme", "body": "# Team log\n\nWhat each side did:\n"})
	for i, n := range tm.nodes {
		tm.mustCall(n, "start_session", map[string]any{"project": "acme/platform"})
		var got struct{ VersionToken string }
		tm.mustCall(n, "get_note", map[string]any{"ref": cdn}).decode(t, &got)
		tm.mustCall(n, "edit_note", map[string]any{"ref": cdn, "versionToken": got.VersionToken, "operation": "findReplace",
			"find": "# Decision CDN provider", "content": fmt.Sprintf("# Decision CDN provider\n\nStatus: side %d decides.", i)})
	}

	tm.serveBoth("--sync-every", "1s")
	tm.settle("after the conflicting edits")
	tm.sound()
	for i := range tm.nodes {
		tm.conflictVisible(i, cdn)
	}

	// Agents write on both sides at once.
	const perSide = 12
	var wg sync.WaitGroup
	acked := [2][]string{}
	errs := [2]error{}
	for i, n := range tm.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acked[i], errs[i] = teamWrites(n, i, perSide, log)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			tm.fatalf(hung(err), "side %d's agent: %v", i, err)
		}
	}
	tm.settle("after the agents wrote")
	tm.sound()
	tm.allInHead(acked)
	t.Logf("%d writes acknowledged on each side; conflict copies in the end: %q", 2*perSide, conflictCopies(t, tm.dirs[0]))
	tm.eachFindsTheOthers(acked)

	// Resolved: every copy deleted on side 0.
	for _, p := range conflictCopies(t, tm.dirs[0]) {
		tm.mustCall(tm.nodes[0], "delete_note", map[string]any{"ref": p})
	}
	tm.settle("after the copies were deleted")
	tm.sound()
	for i := range tm.dirs {
		if out := tm.doctor(i); strings.Contains(out, "is the other version of") {
			tm.fatalf(false, "side %d: resolved conflicts still reported:\n%s", i, out)
		}
	}
}

// conflictVisible checks that side i shows the sync conflict on p: in
// recent_activity (naming a copy that is in the clone), in the next
// start_session delta, in cairn doctor, and that a server said it.
func (tm *syncTeam) conflictVisible(i int, p string) {
	tm.t.Helper()
	n := tm.nodes[i]
	var act struct {
		Activity []struct{ Path, Change, ConflictCopy string }
	}
	tm.mustCall(n, "recent_activity", map[string]any{"limit": 50}).decode(tm.t, &act)
	copyPath := ""
	for _, a := range act.Activity {
		if a.Path == p && a.Change == "conflict" {
			copyPath = a.ConflictCopy
		}
	}
	if copyPath == "" || !strings.Contains(git(tm.t, tm.dirs[i], "ls-files"), copyPath) {
		tm.fatalf(false, "side %d: no conflict entry naming a copy of %s in recent_activity: %+v", i, p, act.Activity)
	}
	var s struct {
		Project struct {
			Delta struct {
				FirstVisit bool
				Changes    []struct{ Path, Change, ConflictCopy string }
			}
		}
	}
	tm.mustCall(n, "start_session", map[string]any{"project": "acme/platform"}).decode(tm.t, &s)
	inDelta := false
	for _, c := range s.Project.Delta.Changes {
		inDelta = inDelta || (c.Path == p && c.Change == "conflict" && c.ConflictCopy == copyPath)
	}
	if s.Project.Delta.FirstVisit || !inDelta {
		tm.fatalf(false, "side %d: the next start_session delta does not tell of the conflict: %+v", i, s.Project.Delta)
	}
	if out := tm.doctor(i); !strings.Contains(out, copyPath+" is the other version of "+p) {
		tm.fatalf(false, "side %d: cairn doctor does not name %s and %s:\n%s", i, copyPath, p, out)
	}
	said := "sync conflict: " + p + ": "
	if !strings.Contains(tm.nodes[0].stderr.String()+tm.nodes[1].stderr.String(), said) {
		tm.fatalf(false, "neither server said %q on stderr", said)
	}
}

// allInHead checks every acknowledged write is in HEAD of both clones: a
// new note in one file, once; an appended line at least once (it may
// also be in a conflict copy of the log).
func (tm *syncTeam) allInHead(acked [2][]string) {
	tm.t.Helper()
	for i := range tm.dirs {
		for side, markers := range acked {
			for _, m := range markers {
				out, _ := exec.Command("git", "-C", tm.dirs[i], "grep", "-c", "-F", m, "HEAD", "--", "*.md").Output()
				files := strings.Split(strings.TrimSpace(string(out)), "\n")
				if len(out) == 0 {
					files = nil
				}
				if len(files) == 0 || strings.HasSuffix(m, "c") && (len(files) != 1 || !strings.HasSuffix(files[0], ":1")) {
					tm.fatalf(false, "side %d: %s, acknowledged on side %d, is in HEAD as %q", i, m, side, out)
				}
			}
		}
	}
}

// eachFindsTheOthers has each side search for the notes the other
// created (indexing follows the sync: polled, with a deadline).
func (tm *syncTeam) eachFindsTheOthers(acked [2][]string) {
	tm.t.Helper()
	for i, n := range tm.nodes {
		for _, m := range acked[1-i] {
			if !strings.HasSuffix(m, "c") {
				continue
			}
			// Found first: its numbered neighbours ("Side 1 note 3" is
			// next to notes 2 and 4) may follow it, through their context.
			var side, k int
			fmt.Sscanf(m, "zzbg%dn%dc", &side, &k)
			want := fmt.Sprintf("acme/Side %d note %d.md", side, k)
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
				var found struct{ Results []struct{ Path string } }
				tm.mustCall(n, "search", map[string]any{"query": m, "mode": "lexical"}).decode(tm.t, &found)
				if len(found.Results) > 0 && found.Results[0].Path == want {
					break
				}
				if time.Now().After(deadline) {
					tm.fatalf(false, "side %d never finds %s, written on the other side: %+v", i, m, found.Results)
				}
			}
		}
	}
}

// teamWrites is one side's agent: count new notes, each followed by an
// append to the shared log (read, append, read again on versionConflict:
// a sync may have changed it). It returns the markers of the acknowledged
// writes: "…c" for a note created, "…a" for a line appended.
func teamWrites(n *stdioNode, side, count int, log string) ([]string, error) {
	var acked []string
	for i := 0; i < count; i++ {
		cm, am := fmt.Sprintf("zzbg%dn%dc", side, i), fmt.Sprintf("zzbg%dn%da", side, i)
		res, err := n.call("create_note", map[string]any{"project": "acme",
			"body": fmt.Sprintf("# Side %d note %d\n\n%s written on side %d\n", side, i, cm, side)})
		if err != nil {
			return acked, err
		}
		if res.isError {
			return acked, fmt.Errorf("%s: create_note: %s", n.name, res.text)
		}
		acked = append(acked, cm)
		for attempt := 1; ; attempt++ {
			got, ok, err := n.readNote(log)
			if err != nil || !ok {
				return acked, fmt.Errorf("%s: read %s: %v", n.name, log, err)
			}
			var cur struct{ VersionToken string }
			json.Unmarshal(got, &cur)
			res, err := n.call("edit_note", map[string]any{"ref": log, "versionToken": cur.VersionToken,
				"operation": "append", "content": "- " + am})
			if err != nil {
				return acked, err
			}
			if !res.isError {
				acked = append(acked, am)
				break
			}
			var e struct{ Error string }
			json.Unmarshal(res.data, &e)
			if e.Error != "versionConflict" || attempt == 50 {
				return acked, fmt.Errorf("%s: append %s (attempt %d): %s", n.name, am, attempt, res.text)
			}
		}
	}
	return acked, nil
}

// conflictCopies are the conflict copy notes in HEAD of a clone.
func conflictCopies(t *testing.T, dir string) []string {
	var out []string
	for _, p := range strings.Split(git(t, dir, "ls-files", "*(conflict *"), "\n") {
		if p != "" && !strings.HasPrefix(p, ".cairn/trash/") && !strings.HasPrefix(p, ".trash/") {
			out = append(out, p)
		}
	}
	return out
}
