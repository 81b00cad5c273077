package vault

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
)

// A write cairn acknowledged that a git operation left off the vault's
// branch (gitstore.Stranded: a reset, a rebase --abort, a write that went
// to another branch before cairn refused to write there) is reported by
// cairn doctor and brought back by cairn doctor --fix: each, oldest first,
// as a new commit on the vault's branch, by the principal who made it,
// with a Cairn-Restored trailer naming the commit it restores. A file
// changed since on the branch keeps its change; the stranded version is
// then kept whole beside it as a conflict copy, linked from it (as a sync
// keeps the other side of a true conflict). Nothing is lost either way.

func quoteAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = gitstore.QuotePath(p)
	}
	return out
}

// restoreStranded brings each stranded write back (doctor --fix) and
// says what it did.
func (v *Vault) restoreStranded() ([]string, error) {
	list, err := v.store.Stranded()
	if err != nil {
		return nil, err
	}
	var did []string
	for _, st := range list {
		line, err := v.restoreOne(st)
		if err != nil {
			return did, fmt.Errorf("bring back %s: %w", short(st.Commit), err)
		}
		did = append(did, line)
	}
	return did, nil
}

// restoreOne commits st's change again on the branch.
func (v *Vault) restoreOne(st gitstore.Stranded) (string, error) {
	head, err := v.store.Head()
	if err != nil {
		return "", err
	}
	stamp := time.Now().UTC().Format("2006-01-02 150405")
	var changes []gitstore.Change
	var copies []string
	for _, p := range st.Paths {
		ch, copyCh, err := v.restoreChange(st, head, p, stamp)
		if err != nil {
			return "", err
		}
		changes = append(changes, ch...)
		if copyCh != nil {
			changes = append(changes, *copyCh)
			copies = append(copies, copyCh.Path)
		}
	}
	if len(changes) == 0 {
		return fmt.Sprintf("restored nothing of %s: the branch holds its change already", short(st.Commit)), nil
	}
	tr := gitstore.ParseTrailers(st.Message)
	c := access.Caller{Principal: tr["Cairn-Principal"], Actor: tr["Cairn-Actor"], Tool: "cairn doctor --fix"}
	if c.Principal == "" {
		c.Principal = v.Owner()
	}
	msg := fmt.Sprintf("Restore %s\n\n%s was left off the branch by a git operation (found in the %s reflog); restored by cairn doctor --fix.", st.Subject, st.Commit, st.Reflog)
	if _, err := v.commit(c, msg, tr["Cairn-Note"], changes, gitstore.Trailer{Key: "Cairn-Restored", Value: st.Commit}); err != nil {
		return "", err
	}
	line := fmt.Sprintf("restored %s (%q)", short(st.Commit), st.Subject)
	if len(copies) > 0 {
		line += "; changed since on the branch, so its version is kept beside: " + strings.Join(quoteAll(copies), ", ")
	}
	return line, nil
}

// restoreChange is what restoring path p of st changes: st's version when
// the branch still has the version st started from, nothing when the
// branch has st's, else the branch's kept and st's version as a conflict
// copy beside it (copy), the note linking to it.
func (v *Vault) restoreChange(st gitstore.Stranded, head, p, stamp string) (changes []gitstore.Change, copyCh *gitstore.Change, err error) {
	base, baseOK, err := v.store.FileAt(st.Parent, p)
	if err != nil {
		return nil, nil, err
	}
	theirs, theirsOK, err := v.store.FileAt(st.Commit, p)
	if err != nil {
		return nil, nil, err
	}
	ours, oursOK, err := v.store.FileAt(head, p)
	if err != nil {
		return nil, nil, err
	}
	same := func(a []byte, aOK bool, b []byte, bOK bool) bool { return aOK == bOK && bytes.Equal(a, b) }
	switch {
	case same(ours, oursOK, theirs, theirsOK):
		return nil, nil, nil
	case same(ours, oursOK, base, baseOK):
		return []gitstore.Change{{Path: p, Content: theirs, Delete: !theirsOK, RequireClean: true}}, nil, nil
	case !theirsOK:
		return nil, nil, nil // deleted there, changed here since: the change stays
	}
	name := v.freeCopyName(p, stamp)
	data := theirs
	if strings.HasSuffix(p, ".md") {
		data = ConflictCopy(theirs, st.Commit)
	}
	copyCh = &gitstore.Change{Path: name, Content: data, CheckVersion: true, RequireClean: true}
	if oursOK {
		if linked, ok := LinkConflictCopy(ours, name); ok {
			changes = append(changes, gitstore.Change{Path: p, Content: linked, RequireClean: true})
		}
	}
	return changes, copyCh, nil
}

// freeCopyName is the first ConflictCopyName of p that no file holds.
func (v *Vault) freeCopyName(p, stamp string) string {
	for n := 1; ; n++ {
		name := ConflictCopyName(p, stamp, n)
		if _, err := os.Lstat(v.abs(name)); gitstore.Missing(err) {
			if _, tracked, _ := v.store.Version(name); !tracked {
				return name
			}
		}
	}
}

// short is a commit hash cut to 10 characters.
func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}
