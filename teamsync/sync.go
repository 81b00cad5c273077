package teamsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// Options for Sync.
type Options struct {
	Remote string `json:"remote,omitempty"` // default origin
	// Branch is the remote's branch to sync with; default the branch the
	// vault has checked out (main when HEAD is detached).
	Branch string `json:"branch,omitempty"`
	// Retries bounds the pushes tried when each is rejected because
	// someone pushed first, integrating what they pushed in between, with
	// a growing random pause (default 5).
	Retries int `json:"retries,omitempty"`
	// Timeout bounds the whole sync (default DefaultTimeout): git's own
	// limits catch a stalled HTTP or SSH connection sooner, this catches
	// anything else (git://, a server trickling bytes).
	Timeout time.Duration `json:"timeout,omitempty"`
}

// DefaultTimeout bounds a sync unless Options.Timeout says otherwise.
const DefaultTimeout = 10 * time.Minute

// Report says what one sync did.
type Report struct {
	Fetched   string     `json:"fetched,omitempty"`   // the remote commit integrated ("" when the remote branch is empty)
	Incoming  []string   `json:"incoming,omitempty"`  // paths changed by what came in
	Merge     string     `json:"merge,omitempty"`     // the merge commit, when histories had diverged
	Pushed    bool       `json:"pushed"`              // the remote branch now holds this vault's HEAD
	Outgoing  []string   `json:"outgoing,omitempty"`  // paths the push changed on the remote (every file of a first push)
	UpToDate  bool       `json:"upToDate,omitempty"`  // it did already: nothing was sent
	Conflicts []Conflict `json:"conflicts,omitempty"` // conflicts resolved (nothing lost)
	// Settings are the incoming commits that changed access or the
	// server's settings, applied (settings.go): "path: hash author: subject".
	Settings []string `json:"settings,omitempty"`
	// Settling are notes still being saved when the sync began (changed
	// on disk again and again past the quiet period): the next sync takes
	// them.
	Settling []string `json:"settling,omitempty"`
	// Refused are files that came from the remote and belong to one
	// machine (another member's .cairn/local.yaml or secrets): left out of
	// the vault, and out of the shared branch by the push.
	Refused []string `json:"refused,omitempty"`
	// Skipped are files changed here that are never shared: "path: why"
	// (over vault.MaxSharedFileBytes, a symbolic link, this machine's own).
	Skipped []string `json:"skipped,omitempty"`
	// IDs are notes whose file repeated another note's id (see repairIDs).
	IDs []vault.IDCopy `json:"ids,omitempty"`
}

// Conflict is one path changed both ways that could not merge line by line.
type Conflict struct {
	Path string `json:"path"`           // kept in place: this side's version
	Copy string `json:"copy,omitempty"` // the other side's version, whole ("" when none was needed)
	Why  string `json:"why"`
}

// Sync fetches the remote branch, integrates it into the vault (a
// fast-forward, or a three-way merge that never leaves a conflict marker),
// and pushes, once. The caller holds the vault (the process hosting it).
// Edits not yet committed are committed, as the person's, once the fetch
// has succeeded and before anything is integrated.
func Sync(ctx context.Context, v *vault.Vault, o Options) (*Report, error) {
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if o.Branch == "" {
		o.Branch = CurrentBranch(ctx, v.Root())
	}
	if o.Retries <= 0 {
		o.Retries = 5
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	rep, err := syncOnce(ctx, v, o)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Killed mid-way, a fetch or push leaves nothing half-done (git
		// updates a ref last); what landed here stays.
		return rep, fmt.Errorf("sync: stopped after %s (the remote %q or the network stopped answering); the vault is sound and the next sync takes up from here: %w", o.Timeout, o.Remote, err)
	}
	return rep, err
}

// crashPoint, when a test sets it, is called at each step of a sync; a
// test process exits there, as a SIGKILL would leave it (the commit's own
// steps are gitstore's: gitstore.SetCrashPoint).
var crashPoint = func(step string) {}

// syncOnce is Sync within its deadline.
func syncOnce(ctx context.Context, v *vault.Vault, o Options) (*Report, error) {
	g, err := dial(ctx, v.Root(), o)
	if err != nil {
		return nil, err
	}
	// The remote is asked first: a sync that cannot reach it, or is
	// refused, has changed nothing here, not even committed hand edits.
	rep := &Report{}
	theirs, err := fetch(ctx, g, o, rep)
	if err != nil {
		return nil, err
	}
	crashPoint("fetched")
	if err := commitHandEdits(ctx, v, gitIn(v.Root()), rep); err != nil {
		return nil, err
	}
	crashPoint("committed hand edits")
	if err := repairIDs(v, rep); err != nil {
		return rep, err
	}
	before, err := g.out(ctx, "rev-parse", "HEAD")
	if err != nil {
		return rep, fmt.Errorf("sync: %w", err)
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if theirs, err = fetch(ctx, g, o, rep); err != nil {
				return rep, err
			}
		}
		if err := integrate(ctx, v, g, theirs, rep); err != nil {
			return rep, err
		}
		if err := repairIDs(v, rep); err != nil {
			return rep, err
		}
		rep.Settings = settingsChanged(ctx, g, before, rep.Incoming)
		if head, err := g.out(ctx, "rev-parse", "HEAD"); err == nil && head == theirs {
			// The remote already holds HEAD (nothing was written here, or
			// a fast-forward): no push, one round trip fewer per idle sync.
			rep.Pushed, rep.UpToDate = true, true
			return rep, nil
		}
		out, outErr := outgoing(ctx, g, theirs)
		crashPoint("pushing")
		err = g.run(ctx, nil, "push", "--porcelain", o.Remote, "HEAD:refs/heads/"+o.Branch)
		crashPoint("pushed")
		if err == nil {
			rep.Pushed = true
			if outErr == nil {
				rep.Outgoing = out
			}
			return rep, nil
		}
		if !rejected(err) {
			return rep, g.remoteErr(ctx, "push", o.Remote, true, here(rep, true), err)
		}
		if attempt+1 >= o.Retries {
			return rep, fmt.Errorf("sync: push to %s: rejected %d times (others pushed first each time); %s: %w", o.Remote, o.Retries, here(rep, true), err)
		}
		// Someone pushed first: integrate that too, then push again, after
		// a random pause that grows with each try, so clones that keep
		// racing for the remote spread out instead of colliding again.
		if err := backoff(ctx, attempt); err != nil {
			return rep, fmt.Errorf("sync: push to %s: %w; %s", o.Remote, err, here(rep, true))
		}
	}
}

// commitHandEdits commits what changed on disk, as the person's: the
// notes, and the other files git would see (attachments, Obsidian's
// settings), so that they travel too and one changed on both sides merges
// instead of blocking the sync. A file saved less than the quiet period
// ago is waited for (a person who saves and syncs at once expects the save
// to go out), at most the quiet period and 2 s more; one still being
// written then is left for the next sync and named in the report, never
// silently left behind.
func commitHandEdits(ctx context.Context, v *vault.Vault, g git, rep *Report) error {
	deadline := time.Now().Add(v.Quiet() + 2*time.Second)
	for {
		_, settling, err := v.CommitStrayEdits()
		if err != nil {
			return fmt.Errorf("sync: commit the edits made by hand first: %w", err)
		}
		changed, err := g.changedFiles(ctx)
		if err != nil {
			return err
		}
		other, err := v.CommitOtherFiles(changed)
		if err != nil {
			return fmt.Errorf("sync: %w", err)
		}
		rep.Skipped = other.Skipped
		settling = append(settling, other.Settling...)
		if len(settling) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			rep.Settling = settling
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sync: wait for files being saved: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// changedFiles lists the files git sees changed, added or deleted in the
// work tree (ignored files left out). It takes no lock (cairn's own
// commits write git's index).
func (g git) changedFiles(ctx context.Context) ([]string, error) {
	c := g.cmd(ctx, []string{"GIT_OPTIONAL_LOCKS=0"}, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output() // untrimmed: each entry starts with its two status letters
	if err != nil {
		return nil, fmt.Errorf("sync: list the files changed by hand: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var paths []string
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) > 3 {
			paths = append(paths, e[3:])
		}
	}
	return paths, nil
}

// fetch gets the remote branch and returns its commit: "" when the
// remote has no such branch yet (the push creates it).
func fetch(ctx context.Context, g git, o Options, rep *Report) (string, error) {
	if err := g.run(ctx, nil, "fetch", "--quiet", o.Remote, o.Branch); err != nil {
		if strings.Contains(err.Error(), "couldn't find remote ref") {
			return "", noSuchBranch(ctx, g, o)
		}
		return "", g.remoteErr(ctx, "fetch", o.Remote, false, here(rep, false), err)
	}
	theirs, err := g.out(ctx, "rev-parse", "FETCH_HEAD")
	if err != nil {
		return "", err
	}
	rep.Fetched = theirs
	return theirs, nil
}

// backoff waits a random time under 250 ms × 2^attempt (capped at 4 s).
func backoff(ctx context.Context, attempt int) error {
	limit := min(250*time.Millisecond<<attempt, 4*time.Second)
	select {
	case <-time.After(time.Duration(rand.Int64N(int64(limit)))):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// outgoing lists the paths HEAD changes from the remote's commit theirs
// ("" for a remote with no branch yet: every file).
func outgoing(ctx context.Context, g git, theirs string) ([]string, error) {
	args := []string{"diff", "--name-only", "--no-renames", "-z", theirs, "HEAD"}
	if theirs == "" {
		args = []string{"ls-tree", "-r", "--name-only", "-z", "HEAD"}
	}
	out, err := g.out(ctx, args...)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// noSuchBranch is nil when the remote has no branch at all (an empty
// repository: the push creates the branch), and an error naming the
// branches it has otherwise: a mistyped --branch or sync.branch would
// push a branch of its own that nobody else syncs, and report success.
func noSuchBranch(ctx context.Context, g git, o Options) error {
	out, err := g.out(ctx, "ls-remote", "--heads", o.Remote)
	if err != nil || out == "" {
		return nil
	}
	var heads []string
	for _, l := range strings.Split(out, "\n") {
		if _, ref, ok := strings.Cut(l, "\trefs/heads/"); ok {
			heads = append(heads, ref)
		}
	}
	return fmt.Errorf("sync: branch %q: the remote %q has no such branch (it has %s); give --branch (or sync.branch in %s), or push it once with git push %s %s; nothing changed here",
		o.Branch, o.Remote, strings.Join(heads, ", "), vault.ConfigFile, o.Remote, o.Branch)
}

// integrate brings the remote's commits (theirs, fetched) into the vault:
// a fast-forward, or a merge made on the HEAD it moves from, under the
// store's write lock (vault.AdvanceWith), so a write landing meanwhile
// cannot make the merge stale; writes wait for it instead.
func integrate(ctx context.Context, v *vault.Vault, g git, theirs string, rep *Report) error {
	if theirs == "" {
		return nil // an empty remote
	}
	sign := mergeSignature{who: v.HumanIdentity(), owner: v.Owner()}
	var merged, final string
	var conflicts []Conflict
	var refused []string
	to, paths, err := v.AdvanceWith(func(ours string) (string, error) {
		merged, final, conflicts, refused = "", "", nil, nil
		target := theirs
		switch {
		case ours == "": // an empty vault: take the remote's
		case ours == theirs || g.isAncestor(ctx, theirs, ours):
			return "", nil // nothing came in
		case g.isAncestor(ctx, ours, theirs):
		default:
			var err error
			if merged, conflicts, err = merge(ctx, g, sign, ours, theirs); err != nil {
				return "", err
			}
			crashPoint("merged")
			target = merged
		}
		var err error
		final, refused, err = keepOut(ctx, g, sign, target)
		return final, err
	})
	if err != nil {
		return fmt.Errorf("sync: bring %s into the vault: %w", short(theirs), err)
	}
	if to == "" || to != final {
		return nil
	}
	// Only a merge that landed is reported: one made again after a failed
	// move would list its conflicts twice.
	if merged != "" {
		rep.Merge = merged
		rep.Conflicts = append(rep.Conflicts, conflicts...)
	}
	rep.Refused = append(rep.Refused, refused...)
	for _, p := range paths {
		if !slices.Contains(rep.Incoming, p) {
			rep.Incoming = append(rep.Incoming, p)
		}
	}
	return nil
}

// keepOut returns commit, or when it holds files that belong to one
// machine (vault.MachineOnlyPaths: someone's `git add -f` of their
// .cairn/local.yaml or secrets), a commit on top of it without them, and
// those paths. Taking them would make another member's owner, embedder
// settings and tokens this machine's; the commit without them is pushed,
// which takes them out of the shared branch too.
func keepOut(ctx context.Context, g git, sign mergeSignature, commit string) (string, []string, error) {
	out, err := g.out(ctx, append([]string{"ls-tree", "-r", "--name-only", "-z", commit, "--"}, vault.MachineOnlyPaths()...)...)
	if err != nil {
		return "", nil, fmt.Errorf("sync: list %s: %w", short(commit), err)
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return commit, nil, nil
	}
	idx, err := os.CreateTemp("", "cairn-sync-index-")
	if err != nil {
		return "", nil, err
	}
	idx.Close()
	defer os.Remove(idx.Name())
	gi := g
	gi.env = append(gi.env[:len(gi.env):len(gi.env)], "GIT_INDEX_FILE="+idx.Name())
	if err := gi.run(ctx, nil, "read-tree", commit); err != nil {
		return "", nil, err
	}
	if err := gi.run(ctx, nil, append([]string{"update-index", "--force-remove", "--"}, paths...)...); err != nil {
		return "", nil, err
	}
	tree, err := gi.out(ctx, "write-tree")
	if err != nil {
		return "", nil, err
	}
	who := sign.who
	env := []string{"GIT_AUTHOR_NAME=" + who.Name, "GIT_AUTHOR_EMAIL=" + who.Email, "GIT_COMMITTER_NAME=" + who.Name, "GIT_COMMITTER_EMAIL=" + who.Email}
	msg := fmt.Sprintf("Sync: keep one machine's files out of the shared vault\n\n%s came in from the remote; they belong to the machine that committed them.\n\nCairn-Tool: cairn sync\nCairn-Principal: %s\nCairn-Actor: human\n",
		strings.Join(paths, ", "), sign.owner)
	clean, err := g.outEnv(ctx, env, []byte(msg), "commit-tree", tree, "-p", commit, "-F", "-")
	if err != nil {
		return "", nil, fmt.Errorf("sync: %w", err)
	}
	return clean, paths, nil
}

// mergeSignature is who a merge commit is by: the owner by hand.
type mergeSignature struct {
	who   gitstore.Signature
	owner string
}

// merge makes the merge commit of ours and theirs: git's own three-way
// merge of the trees (git merge-tree), then each conflicted path resolved
// without a marker (resolve). It returns the commit and the conflicts
// resolved in it.
func merge(ctx context.Context, g git, sign mergeSignature, ours, theirs string) (string, []Conflict, error) {
	base, err := g.out(ctx, "merge-base", ours, theirs)
	if err != nil || base == "" {
		return "", nil, fmt.Errorf("sync: this vault and the remote's branch share no history: it was not cloned from the remote " +
			"(cairn clone URL DIR makes a clone of the team's vault; move these notes into it); nothing was merged")
	}
	out, err := g.outAllowing(ctx, 1, "merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs)
	if err != nil {
		return "", nil, fmt.Errorf("sync: merge: %w", err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	tree := lines[0]
	var conflicted []string
	for _, p := range lines[1:] {
		if p != "" && !slices.Contains(conflicted, p) {
			conflicted = append(conflicted, p)
		}
	}
	var conflicts []Conflict
	if len(conflicted) > 0 {
		if tree, conflicts, err = resolve(ctx, g, tree, base, ours, theirs, conflicted); err != nil {
			return "", nil, err
		}
	}
	who := sign.who
	env := []string{"GIT_AUTHOR_NAME=" + who.Name, "GIT_AUTHOR_EMAIL=" + who.Email, "GIT_COMMITTER_NAME=" + who.Name, "GIT_COMMITTER_EMAIL=" + who.Email}
	msg := fmt.Sprintf("Sync: merge %s\n\nCairn-Tool: cairn sync\nCairn-Principal: %s\nCairn-Actor: human\n", short(theirs), sign.owner)
	for _, c := range conflicts {
		msg += fmt.Sprintf("Cairn-Conflict: %s\n", c.Path)
	}
	commit, err := g.outEnv(ctx, env, []byte(msg), "commit-tree", tree, "-p", ours, "-p", theirs, "-F", "-")
	if err != nil {
		return "", nil, fmt.Errorf("sync: merge: %w", err)
	}
	return commit, conflicts, nil
}

// CurrentBranch is the branch the vault at root has checked out (main
// when HEAD is detached), the branch Sync syncs by default: a clone of a
// repository whose default branch is master syncs master, never a new
// main beside it.
func CurrentBranch(ctx context.Context, root string) string {
	if b, err := gitIn(root).out(ctx, "symbolic-ref", "--short", "-q", "HEAD"); err == nil && b != "" {
		return b
	}
	return "main"
}

// resolve replaces each conflicted path of the merged tree: a note merges
// with MergeNote, keeping ours and a whole copy of theirs on a true
// conflict; an edit against a deletion keeps the edit; any other file
// changed both ways keeps ours and a copy of theirs. It returns the tree
// and the conflicts.
func resolve(ctx context.Context, g git, tree, base, ours, theirs string, paths []string) (string, []Conflict, error) {
	idx, err := os.CreateTemp("", "cairn-sync-index-")
	if err != nil {
		return "", nil, err
	}
	idx.Close()
	defer os.Remove(idx.Name())
	gi := g
	gi.env = append(gi.env, "GIT_INDEX_FILE="+idx.Name())
	if err := gi.run(ctx, nil, "read-tree", tree); err != nil {
		return "", nil, err
	}
	stamp := time.Now().UTC().Format("2006-01-02 150405")
	var conflicts []Conflict
	copies := map[string]bool{}
	for _, p := range paths {
		b, _ := g.blob(ctx, base, p)
		o, oOK := g.blob(ctx, ours, p)
		t, tOK := g.blob(ctx, theirs, p)
		var keep []byte
		copyOf := []byte(nil)
		why := ""
		switch {
		case !oOK && !tOK:
			continue
		case !oOK || !tOK:
			keep = t // an edit against a deletion: the edit stays
			if oOK {
				keep = o
			}
			why = "changed on one side, deleted on the other: the change is kept"
		case p == vault.AccessFile && accessMerges(b, o, t):
			m, said, _ := access.Merge(b, o, t)
			keep = m
			if len(said) > 0 {
				why = "access changed both ways, merged entry by entry, the lesser role kept where they differ: " + strings.Join(said, "; ")
			}
		case strings.HasSuffix(p, ".md"):
			m, err := MergeNote(ctx, p, b, o, t)
			switch {
			case err != nil:
				// Not text git can merge (a NUL byte): both kept whole.
				keep, copyOf, why = o, vault.ConflictCopy(t, theirs), "changed on both sides, and not text that merges line by line"
			case m.Conflict:
				keep, copyOf, why = m.Content, vault.ConflictCopy(t, theirs), m.Why
			default:
				keep = m.Content
			}
		default:
			keep, copyOf, why = o, t, "changed on both sides"
		}
		if err := gi.stage(ctx, p, keep); err != nil {
			return "", nil, err
		}
		if why == "" {
			continue // merged cleanly after all (the frontmatter, key by key)
		}
		c := Conflict{Path: p, Why: why}
		if copyOf != nil {
			c.Copy = freeCopyName(ctx, g, tree, p, stamp, copies)
			if err := gi.stage(ctx, c.Copy, copyOf); err != nil {
				return "", nil, err
			}
			if linked, ok := vault.LinkConflictCopy(keep, c.Copy); ok {
				if err := gi.stage(ctx, p, linked); err != nil {
					return "", nil, err
				}
			}
		}
		conflicts = append(conflicts, c)
	}
	out, err := gi.out(ctx, "write-tree")
	return out, conflicts, err
}

// accessMerges says whether the access file's versions can be merged
// entry by entry (each one an access file).
func accessMerges(base, ours, theirs []byte) bool {
	_, _, err := access.Merge(base, ours, theirs)
	return err == nil
}

func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}

// here says what a sync that failed at the remote left in the vault.
func here(rep *Report, pushing bool) string {
	switch {
	case len(rep.Incoming) > 0:
		return "nothing was pushed; what came in is in the vault"
	case pushing:
		return "nothing was pushed; nothing changed here"
	}
	return "nothing changed here"
}

// rejected says a push failed because the remote moved.
func rejected(err error) bool {
	s := err.Error()
	return strings.Contains(s, "[rejected]") || strings.Contains(s, "non-fast-forward") || strings.Contains(s, "fetch first") ||
		// Another push updating the branch at the same moment.
		strings.Contains(s, "cannot lock ref") || strings.Contains(s, "failed to update ref")
}
