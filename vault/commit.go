package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/indexing"
)

// commit records changes as one commit authored by the caller, with
// provenance trailers (and extra ones, e.g. the link guard's), and
// refreshes the catalog for the touched paths.
func (v *Vault) commit(c access.Caller, msg string, noteID string, changes []gitstore.Change, extra ...gitstore.Trailer) (string, error) {
	trailers := []gitstore.Trailer{
		{Key: "Cairn-Tool", Value: c.Tool},
		{Key: "Cairn-Principal", Value: c.Principal},
		{Key: "Cairn-Actor", Value: actorOf(c)},
	}
	if c.Client != "" {
		trailers = append(trailers, gitstore.Trailer{Key: "Cairn-Client", Value: c.Client})
	}
	if noteID != "" {
		trailers = append(trailers, gitstore.Trailer{Key: "Cairn-Note", Value: noteID})
	}
	trailers = append(trailers, extra...)
	author := gitstore.Signature{Name: c.Principal, Email: c.Principal + "@cairn.local"}
	if actorOf(c) == "human" {
		author = v.humanIdentity(c.Principal)
	}
	hash, err := v.commitWaiting(gitstore.CommitRequest{Author: author, Message: msg, Trailers: trailers, Changes: changes})
	if err != nil {
		return "", err
	}
	if w := v.store.IndexWarning(); w != "" {
		fmt.Fprintln(os.Stderr, "cairn:", w)
	}
	if reps := v.takeStoreRecoveries(); len(reps) > 0 {
		v.mu.Lock()
		v.recoveries = append(v.recoveries, reps...)
		v.mu.Unlock()
	}
	paths := make([]string, len(changes))
	for i, ch := range changes {
		paths[i] = ch.Path
	}
	// The commit stands even if the projects' rescan fails: the next
	// rescan catches up.
	v.noteHead(hash, paths)
	return hash, nil
}

func actorOf(c access.Caller) string {
	if c.Actor == "" {
		return "agent"
	}
	return c.Actor
}

// humanIdentity is the vault's git identity (user.name and user.email as
// `git config` in the vault sees them), falling back to the principal.
func (v *Vault) humanIdentity(principal string) gitstore.Signature {
	get := func(key string) string {
		out, err := exec.Command("git", "-C", v.root, "config", "--get", key).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	sig := gitstore.Signature{Name: get("user.name"), Email: get("user.email")}
	if sig.Name == "" {
		sig.Name = principal
		if sig.Name == "" {
			sig.Name = "human"
		}
	}
	if sig.Email == "" {
		sig.Email = sig.Name + "@localhost"
	}
	return sig
}

// flushHuman commits an edit made on disk (in an editor) and not yet
// committed, as the human's, before an agent reads or writes the note. After
// it, the file on disk is what HEAD holds, so the versionToken names it. A
// file saved within the quiet period is waited for (waitQuiet): a save in
// progress is never committed half-written nor written over.
func (v *Vault) flushHuman(p string) error {
	dirty, err := v.store.Dirty(p)
	if err != nil {
		return fmt.Errorf("check %s: %w", p, err)
	}
	if !dirty {
		return nil
	}
	if err := v.waitQuiet(p); err != nil {
		return err
	}
	data, rerr := readFileNoFollow(v.abs(p))
	ch := gitstore.Change{Path: p, Content: data, OnDisk: true}
	switch {
	case gitstore.Missing(rerr):
		ch = gitstore.Change{Path: p, Delete: true, Absent: true} // deleted by hand
	case rerr != nil:
		// Too large, a link, unreadable: never take it for a deletion.
		return fmt.Errorf("%s was changed on disk and cairn cannot read it (%v); commit or fix it by hand", p, rerr)
	case len(data) > MaxNoteBytes:
		return fmt.Errorf("%s was changed on disk and is now %d bytes, over the %d bytes cairn serves; commit it by hand", p, len(data), MaxNoteBytes)
	}
	human := access.Caller{Principal: v.Owner(), Actor: "human", Tool: "editor"}
	_, err = v.commit(human, "Edit by hand: "+p, "", []gitstore.Change{ch})
	if errors.Is(err, gitstore.ErrNothingToCommit) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("commit the edit made on disk to %s: %w", p, err)
	}
	return nil
}

// noteHead records a HEAD this vault moved to (its own commit, or a sync's
// advance) and the paths that changed on the way: syncHead can tell it
// from others' commits, the catalog and link graph re-read those paths
// only, the projects are rescanned when a project marker is among them,
// and the search index follows.
func (v *Vault) noteHead(hash string, paths []string) error {
	v.mu.Lock()
	v.knownHead = hash
	v.mu.Unlock()
	v.catalog.refresh(v.root, paths)
	markers := slices.ContainsFunc(paths, func(p string) bool { return baseName(p) == ProjectMarker })
	var err error
	if markers {
		err = v.rescan()
	}
	v.index.Soon()
	return err
}

// syncHead rescans the vault when HEAD moved without this vault writing
// (a person's commit, the command line, a pull): project markers and notes
// may have changed, and access decisions must see them.
func (v *Vault) syncHead() error {
	h, err := v.store.Head()
	if err != nil {
		return err
	}
	v.mu.Lock()
	known := v.knownHead
	v.mu.Unlock()
	if h == known || v.ownSince(h, known) {
		// This vault's own commits (one of them may still be on its way to
		// noteHead): it records their changes itself.
		return nil
	}
	v.mu.Lock()
	v.knownHead = h
	v.mu.Unlock()
	return v.rescan()
}

// ownSince reports whether every commit from known up to head was made by
// this vault's store: then HEAD moved only by writes this vault records
// itself, and a rescan would only slow a busy vault down (with several
// clients writing, HEAD is often one commit ahead of noteHead).
func (v *Vault) ownSince(head, known string) bool {
	for i := 0; i < 64 && known != ""; i++ {
		parent, ok := v.store.OwnParent(head)
		if !ok {
			return false
		}
		if parent == known {
			return true
		}
		head = parent
	}
	return false
}

// Maintain runs until ctx ends: every interval it notices commits made
// outside the server and rescans for notes and project markers written by
// hand (not committed), so they are seen within that time even with the
// watcher off (the watcher sees them at once); every persistEvery it saves
// the derived state so a restart is warm (the catalog once a tenth of it
// changed: a start re-reads the notes changed since its file). Each tick
// it also sets the collector for the live heap (followHeap). Problems go
// to report.
func (v *Vault) Maintain(ctx context.Context, every, persistEvery time.Duration, report func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			indexing.FollowHeap()
			for _, r := range v.Recoveries() {
				report(fmt.Errorf("recovered: %s", r))
			}
			if err := v.syncHead(); err != nil {
				report(err)
			}
			if err := v.rescanIfStale(every); err != nil {
				report(err)
			}
			if time.Since(last) >= persistEvery {
				last = time.Now()
				if err := v.persist(false); err != nil {
					report(fmt.Errorf("save derived state: %w", err))
				}
			}
		}
	}
}

// GitWait bounds how long a write waits for a git operation a person runs
// in the vault (a pull, a rebase, a checkout of another branch) before it
// is answered gitstore.GitBusyError: most end within it.
const GitWait = 3 * time.Second

// commitWaiting commits req: again when a commit landed in between
// (ErrHeadMoved, at most three times), and, while git is busy in the vault
// (gitstore.GitBusyError: nothing was written), every 100 ms for GitWait.
func (v *Vault) commitWaiting(req gitstore.CommitRequest) (string, error) {
	deadline := time.Now().Add(GitWait)
	moved := 0
	for {
		hash, err := v.store.Commit(req)
		var busy *gitstore.GitBusyError
		switch {
		case errors.Is(err, gitstore.ErrHeadMoved) && moved < 2:
			moved++
		case errors.As(err, &busy) && time.Now().Before(deadline):
			time.Sleep(100 * time.Millisecond)
		default:
			return hash, err
		}
	}
}

// HumanIdentity is how the owner signs commits made by hand through cairn
// (git's user.name and user.email of the vault, else the owner principal).
func (v *Vault) HumanIdentity() gitstore.Signature { return v.humanIdentity(v.Owner()) }

// Advance moves the vault to to, a commit descending from HEAD that a sync
// fetched or made (gitstore.Store.Advance: only the files that differ are
// written), and brings what the vault knows up to date for the changed
// paths only: the catalog and link graph re-read them, project markers
// among them rescan the projects, the search index follows. It returns the
// changed paths.
func (v *Vault) Advance(to string) ([]string, error) {
	paths, err := v.store.Advance(to)
	if err != nil || len(paths) == 0 {
		return paths, err
	}
	return paths, v.noteHead(to, paths)
}

// AdvanceWith is Advance to the commit next chooses from HEAD, chosen
// under the store's write lock (gitstore.Store.AdvanceWith): a sync makes
// its merge on the HEAD it moves from, and writes wait meanwhile instead
// of making it merge again. next must not call the vault. It returns the
// commit moved to ("" when next chose to stay) and the changed paths.
func (v *Vault) AdvanceWith(next func(head string) (string, error)) (string, []string, error) {
	to, paths, err := v.store.AdvanceWith(next)
	if err != nil || len(paths) == 0 {
		return to, paths, err
	}
	return to, paths, v.noteHead(to, paths)
}
