package vault

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
)

// Activity is one recently changed note: who changed it (principal, agent
// or human), how (the tool, or an editor, or git), where and when.
type Activity struct {
	Path   string    `json:"path"`
	ID     string    `json:"id,omitempty"`
	Title  string    `json:"title,omitempty"`
	Change string    `json:"change"`         // added, modified, deleted, renamed
	From   string    `json:"from,omitempty"` // the old path of a renamed note
	By     string    `json:"by"`
	Actor  string    `json:"actor"`
	Tool   string    `json:"tool"`
	At     time.Time `json:"at"`
	Commit string    `json:"commit"`
}

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
func (v *Vault) RecentActivity(c Caller, project, since string, limit int, cursor string) (*ActivityPage, error) {
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
	skip := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 {
			return nil, argErr("cursor", "is not a cursor this server gave")
		}
		skip = n
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
	readable := map[string]bool{}
	canSee := func(p string) bool {
		ok, seen := readable[p]
		if !seen {
			ok = isNotePath(p) && v.roleAt(c, p) >= RoleRead && (dir == "" || strings.HasPrefix(p, dir+"/"))
			readable[p] = ok
		}
		return ok
	}
	page := &ActivityPage{Activity: []Activity{}}
	seen := map[string]bool{}
	matched := 0
	err := v.store.Walk(maxActivityCommits, func(info gitstore.CommitInfo, changes []gitstore.FileChange) bool {
		if !after.IsZero() && info.When.Before(after) {
			return false
		}
		prov := provenanceOf(info)
		for _, ch := range changes {
			if seen[ch.Path] || !canSee(ch.Path) {
				continue
			}
			seen[ch.Path] = true
			if ch.Kind == gitstore.Renamed {
				seen[ch.From] = true // one entry per note: its older path is the same note
			}
			matched++
			if matched <= skip {
				continue
			}
			if len(page.Activity) == limit {
				page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(skip + limit)))
				return false
			}
			a := Activity{Path: ch.Path, Change: ch.Kind, From: ch.From, By: prov.UpdatedBy, Actor: prov.Actor, Tool: prov.Tool, At: prov.UpdatedAt, Commit: info.Hash}
			if e := v.entry(ch.Path, false); e != nil {
				a.ID, a.Title = e.ID, e.Title
			}
			page.Activity = append(page.Activity, a)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}
