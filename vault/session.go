package vault

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// SessionStart is what start_session answers: who the user is (their
// profile, always), what they can reach, and for a project a compact
// index, its pinned notes, the values in use, and what changed since this
// principal last looked.
type SessionStart struct {
	Principal string          `json:"principal"`
	Profile   *ProfileView    `json:"profile"`
	Projects  []ProjectAccess `json:"projects"`
	Project   *ProjectSession `json:"project,omitempty"`
	// Notice says why the caller reaches no project, and what changes it.
	Notice string `json:"notice,omitempty"`
}

// ProfileView is the user's profile note: its observations, and the rest
// of its body in Content (each observation is said once: listing them in
// both doubled what an agent paid for the profile).
type ProfileView struct {
	ID           string        `json:"id"`
	Path         string        `json:"path"`
	Observations []Observation `json:"observations"`
	Content      string        `json:"content"`
	Truncated    bool          `json:"truncated,omitempty"`
}

// ProjectSession is start_session's view of one project.
type ProjectSession struct {
	Handle      string       `json:"handle"`
	Name        string       `json:"name"`
	NoteCount   int          `json:"noteCount"`
	Folders     []string     `json:"folders"`
	KnownValues KnownValues  `json:"knownValues"`
	Pinned      []PinnedNote `json:"pinned"`
	Delta       Delta        `json:"delta"`
}

// KnownValues are the tags, types and categories in use, with counts.
type KnownValues struct {
	Tags       map[string]int `json:"tags"`
	Types      map[string]int `json:"types"`
	Categories map[string]int `json:"categories"`
}

// PinnedNote is a pinned note, with the start of its content.
type PinnedNote struct {
	NoteRef
	Excerpt   string `json:"excerpt"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Delta is what changed in the project since the principal's last visit.
type Delta struct {
	FirstVisit bool           `json:"firstVisit"`
	Since      string         `json:"since,omitempty"` // the commit of the last visit
	Changes    []Activity     `json:"changes"`
	Counts     map[string]int `json:"counts"`              // by kind, complete even when changes is cut
	Truncated  bool           `json:"truncated,omitempty"` // more changes than listed
}

// Bounds of start_session's answer.
const (
	maxDeltaChanges   = 100
	firstVisitChanges = 10
	maxPinned         = 10
	pinnedExcerpt     = 1500
	profileMax        = 8000
)

// The last-visit marks (principal → project handle → commit) live in
// .cairn/cache/visits.json: derived state, whose loss only makes the next
// visit a first visit.
func (v *Vault) visitsFile() string { return filepath.Join(v.root, CacheDir, "visits.json") }

// visitLock serialises the updates of the last-visit marks: start_session's
// state, attached to the open vault (Attached) like the families', so the
// Vault type holds none of it.
type visitLock struct{ sync.Mutex }

type visitLockKey struct{}

func (v *Vault) visitLock() *visitLock {
	return Attached(v, visitLockKey{}, func() *visitLock { return &visitLock{} })
}

func (v *Vault) loadVisits() map[string]map[string]string {
	m := map[string]map[string]string{}
	if data, err := os.ReadFile(v.visitsFile()); err == nil {
		if json.Unmarshal(data, &m) != nil {
			// Damaged: keep it aside for a person to look at; every
			// principal's next visit is then a first visit.
			os.Rename(v.visitsFile(), v.visitsFile()+".damaged")
			m = map[string]map[string]string{}
		}
	}
	return m
}

// StartSession answers start_session and moves the caller's last-visit mark
// of the project to now (its only effect).
func (v *Vault) StartSession(c access.Caller, project string) (*SessionStart, error) {
	out := &SessionStart{Principal: c.Principal}
	ps, err := v.Projects(c)
	if err != nil {
		return nil, err
	}
	if ps == nil {
		ps = []ProjectAccess{}
	}
	out.Projects = ps
	if len(ps) == 0 {
		if out.Notice, err = v.WhyNothing(c); err != nil {
			return nil, err
		}
	}
	out.Profile = v.profile(c)
	if project == "" {
		return out, nil
	}
	pr, _, err := v.project(c, "project", project)
	if err != nil {
		return nil, err
	}
	s := &ProjectSession{Handle: pr.Handle, Name: pr.Name, Folders: []string{}, Pinned: []PinnedNote{},
		KnownValues: KnownValues{Tags: map[string]int{}, Types: map[string]int{}, Categories: map[string]int{}}}
	v.projectIndex(c, pr, s)
	marksMu := v.visitLock()
	marksMu.Lock()
	defer marksMu.Unlock()
	head, err := v.store.Head() // under the lock: a mark never moves backwards
	if err != nil {
		return nil, err
	}
	marks := v.loadVisits()
	last := marks[c.Principal][pr.Handle]
	s.Delta, err = v.delta(c, pr, last, head)
	if err != nil {
		return nil, err
	}
	if marks[c.Principal] == nil {
		marks[c.Principal] = map[string]string{}
	}
	marks[c.Principal][pr.Handle] = head
	if data, err := json.Marshal(marks); err == nil {
		gitstore.WriteFileAtomic(v.visitsFile(), data, 0o644)
	}
	out.Project = s
	return out, nil
}

func (v *Vault) profile(c access.Caller) *ProfileView {
	p := PeopleDir + "/" + c.Principal + "/" + ProfileFile
	data, err := readFileNoFollow(v.abs(p))
	if err != nil {
		return nil
	}
	n := note.Parse(p, data)
	v.adoptID(n)
	pv := &ProfileView{ID: n.ID, Path: p, Observations: ParseObservations(n.Body), Content: withoutObservations(string(n.Body))}
	if pv.Observations == nil {
		pv.Observations = []Observation{}
	}
	if len(pv.Content) > profileMax {
		pv.Content, pv.Truncated = cut(pv.Content, profileMax), true
	}
	return pv
}

// withoutObservations is a profile's body without the lines
// ParseObservations reads (so every one is in exactly one of the two), a
// heading left with nothing under it, or runs of blank lines.
func withoutObservations(body string) string {
	lines := strings.Split(body, "\n")
	var kept []string
	heading := -1    // index in kept of the current section's heading
	removed := false // observations were taken from that section
	content := false // something else is left in it
	dropEmpty := func() {
		if heading >= 0 && removed && !content {
			kept = kept[:heading]
		}
	}
	for _, l := range lines {
		trimmed := strings.TrimRight(l, "\r")
		switch {
		case observationRE.MatchString(trimmed):
			removed = true
			continue
		case atxHeadingRE.MatchString(trimmed):
			dropEmpty()
			heading, removed, content = len(kept), false, false
		case strings.TrimSpace(trimmed) != "":
			content = true
		}
		if strings.TrimSpace(trimmed) == "" && len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
			continue
		}
		kept = append(kept, l)
	}
	dropEmpty()
	if out := strings.TrimSpace(strings.Join(kept, "\n")); out != "" {
		return out + "\n"
	}
	return ""
}

var atxHeadingRE = regexp.MustCompile(`^ {0,3}#{1,6}(\s|$)`)

// cut shortens s to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// projectIndex fills the note count, top-level folders, known values and
// pinned notes of a project, as c may see them.
func (v *Vault) projectIndex(c access.Caller, pr *Project, s *ProjectSession) {
	folders := map[string]bool{}
	var pinned []string
	ps := v.projectSet()
	for d, t := range v.catalog.tallies(pr.Dir) {
		if ps.of(d) != pr { // a sub-project's folder
			continue
		}
		s.NoteCount += t.notes
		if d != pr.Dir {
			top, _, _ := strings.Cut(strings.TrimPrefix(d[len(pr.Dir):], "/"), "/")
			folders[pr.within(top)] = true
		}
		addCounts(s.KnownValues.Tags, t.tags)
		addCounts(s.KnownValues.Types, t.types)
		addCounts(s.KnownValues.Categories, t.categories)
		for p := range t.pinned {
			pinned = append(pinned, p)
		}
	}
	for f := range folders {
		s.Folders = append(s.Folders, f)
	}
	sort.Strings(s.Folders)
	for _, ref := range pr.Pins {
		if p, err := v.resolve(c, "pins", ref); err == nil {
			pinned = append(pinned, p)
		}
	}
	sort.Strings(pinned)
	seen := map[string]bool{}
	for _, p := range pinned {
		if seen[p] || len(s.Pinned) == maxPinned || v.roleAt(c, p) < access.RoleRead {
			continue
		}
		seen[p] = true
		data, err := readFileNoFollow(v.abs(p))
		if err != nil {
			continue
		}
		n := note.Parse(p, data)
		v.adoptID(n)
		pn := PinnedNote{NoteRef: NoteRef{ID: n.ID, Path: p, Title: n.Title}, Excerpt: string(n.Body)}
		if len(pn.Excerpt) > pinnedExcerpt {
			pn.Excerpt, pn.Truncated = cut(pn.Excerpt, pinnedExcerpt), true
		}
		s.Pinned = append(s.Pinned, pn)
	}
}

func addCounts(to, from map[string]int) {
	for k, n := range from {
		to[k] += n
	}
}

// delta lists the project's changes since the commit last (one entry per
// note, its latest change), or, on a first visit, its latest few changes.
func (v *Vault) delta(c access.Caller, pr *Project, last, head string) (Delta, error) {
	d := Delta{Changes: []Activity{}, Counts: map[string]int{}}
	if last == "" {
		d.FirstVisit = true
		page, err := v.RecentActivity(c, pr.Handle, "", firstVisitChanges, "")
		if err != nil {
			return d, err
		}
		d.Changes = page.Activity
		d.Truncated = page.NextCursor != ""
		for _, a := range d.Changes {
			d.Counts[a.Change]++
		}
		return d, nil
	}
	d.Since = last
	readable := map[string]bool{}
	canSee := func(p string) bool {
		ok, known := readable[p]
		if !known {
			ok = isNotePath(p) && pr.holds(parentDir(p)) && v.roleAt(c, p) >= access.RoleRead
			readable[p] = ok
		}
		return ok
	}
	fold := newHistoryFold(canSee, true)
	found := false
	seen := newAncestry(v.store, last, maxActivityCommits)
	err := v.store.WalkFrom(head, maxActivityCommits, func(info gitstore.CommitInfo, changes []gitstore.FileChange) bool {
		if seen.has(info) {
			found = true
			return false
		}
		fold.commit(info, changes)
		return true
	})
	if err != nil {
		return d, err
	}
	d.Counts = fold.counts()
	for i, a := range fold.entries {
		if i == maxDeltaChanges {
			d.Truncated = true
			break
		}
		if e := v.entry(a.Path, false); e != nil {
			a.ID, a.Title = e.ID, e.Title
		}
		d.Changes = append(d.Changes, a)
	}
	if !found {
		// The mark is not on the branch any more (history rewritten) or is
		// very old: what was listed is the recent part.
		d.Truncated = true
	}
	return d, nil
}
