package vault

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
)

// Activity is one recently changed note: who changed it (principal, agent
// or human), how (the tool, or an editor, or git), where and when.
type Activity struct {
	Path   string `json:"path"`
	ID     string `json:"id,omitempty"`
	Title  string `json:"title,omitempty"`
	Change string `json:"change"`         // added, modified, deleted, renamed, conflict
	From   string `json:"from,omitempty"` // the old path of a renamed note
	// ConflictCopy is, for a sync conflict, where the other side's version
	// of the note is kept whole ("" when there is none: an edit against a
	// deletion, the edit kept).
	ConflictCopy string    `json:"conflictCopy,omitempty"`
	By           string    `json:"by"`
	Actor        string    `json:"actor"`
	Tool         string    `json:"tool"`
	At           time.Time `json:"at"`
	Commit       string    `json:"commit"`
}

// ChangeConflict is the change of a note a sync found changed on both
// sides: the merge kept one version in place and the other whole in a
// conflict copy note (docs/conflicts-and-trash.md, "Syncing").
const ChangeConflict = "conflict"

// ActivityPage is one page of recent_activity.
type ActivityPage struct {
	Activity   []Activity `json:"activity"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// Defaults and bounds of recent_activity.
const (
	DefaultActivityLimit = 20
	MaxActivityLimit     = 100
	// maxActivityCommits bounds the history one call reads, so that a
	// filter matching little never reads all of it.
	maxActivityCommits = 5000
)

// RecentActivity lists the notes changed most recently, newest first, one
// entry per note (its latest change), from git history and its trailers,
// as far as c may see. since is a date (2026-11-01) or an RFC 3339 time.
func (v *Vault) RecentActivity(c access.Caller, project, since string, limit int, cursor string) (*ActivityPage, error) {
	if limit == 0 {
		limit = DefaultActivityLimit
	}
	if limit < 1 || limit > MaxActivityLimit {
		return nil, argErr("limit", "must be between 1 and %d", MaxActivityLimit)
	}
	var after time.Time
	if since != "" {
		t, err := time.Parse(time.RFC3339, since)
		if err != nil {
			if t, err = time.Parse("2006-01-02", since); err != nil {
				return nil, argErr("since", "%q is not a date (2026-11-01) or an RFC 3339 time", since)
			}
		}
		after = t
	}
	dir := ""
	if project != "" {
		pr, _, err := v.project(c, "project", project)
		if err != nil {
			return nil, err
		}
		dir = pr.Dir
	}
	if err := v.syncHead(); err != nil {
		return nil, err
	}
	// The cursor holds the commit the first page started from, so every
	// page reads the same history, and the filters it was made with.
	filters := project + "\x00" + since
	anchor, skip := "", 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		parts := strings.SplitN(string(b), "\x01", 3)
		if err != nil || len(parts) != 3 || !isHex40(parts[0]) || parts[2] != filters {
			return nil, argErr("cursor", "is not a cursor this server gave for these arguments")
		}
		if skip, err = strconv.Atoi(parts[1]); err != nil || skip < 0 {
			return nil, argErr("cursor", "is not a cursor this server gave for these arguments")
		}
		anchor = parts[0]
	} else if head, err := v.store.Head(); err == nil {
		anchor = head
	}
	readable := map[string]bool{}
	canSee := func(p string) bool {
		ok, seen := readable[p]
		if !seen {
			ok = isNotePath(p) && v.roleAt(c, p) >= access.RoleRead && (dir == "" || strings.HasPrefix(p, dir+"/"))
			readable[p] = ok
		}
		return ok
	}
	fold := newHistoryFold(canSee, false)
	page := &ActivityPage{Activity: []Activity{}}
	err := v.store.WalkFrom(anchor, maxActivityCommits, func(info gitstore.CommitInfo, changes []gitstore.FileChange) bool {
		if !after.IsZero() && info.Committed.Before(after) {
			return false // committer dates only grow along the branch
		}
		fold.commit(info, changes)
		return len(fold.entries) <= skip+limit
	})
	if err != nil {
		return nil, err
	}
	if len(fold.entries) > skip+limit {
		page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(anchor + "\x01" + strconv.Itoa(skip+limit) + "\x01" + filters))
	}
	for i := skip; i < len(fold.entries) && i < skip+limit; i++ {
		a := fold.entries[i]
		if e := v.entry(a.Path, false); e != nil {
			a.ID, a.Title = e.ID, e.Title
		}
		page.Activity = append(page.Activity, a)
	}
	return page, nil
}
