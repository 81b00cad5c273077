package vault

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// Observations are kept as a plain list a person reads and edits in any
// editor, under an "## Observations" heading:
//
//	- [category] observation text (2026-11-29)
//
// and parsed back from the same lines.

// Observation is one remembered fact.
type Observation struct {
	Category string `json:"category"`
	Text     string `json:"observation"`
	Date     string `json:"date,omitempty"`
}

var (
	observationRE = regexp.MustCompile(`^\s*[-*]\s+\[([^\]]+)\]\s+(.*?)(?:\s+\((\d{4}-\d{2}-\d{2})\))?\s*$`)
	categoryRE    = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} _-]{0,39}$`)
)

const observationsHeading = "Observations"

// ParseObservations reads the observation lines of a body (anywhere; the
// heading is where new ones go).
func ParseObservations(body []byte) []Observation {
	var out []Observation
	for _, line := range strings.Split(string(body), "\n") {
		if m := observationRE.FindStringSubmatch(strings.TrimRight(line, "\r")); m != nil {
			out = append(out, Observation{Category: strings.TrimSpace(m[1]), Text: m[2], Date: m[3]})
		}
	}
	return out
}

func (o Observation) line() string {
	return fmt.Sprintf("- [%s] %s (%s)", o.Category, o.Text, o.Date)
}

// sameFact compares two observations ignoring case, spacing and the
// punctuation that ends a word or a sentence: "Prefers short answers." ≈
// "prefers  short answers", but "Likes C#" ≠ "Likes C++" and
// "Uses Go 1.21" ≠ "Uses Go 1 21".
func sameFact(a, b string) bool { return factKey(a) == factKey(b) }

func factKey(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		words[i] = strings.TrimRight(w, ".,;:!?")
	}
	return strings.Join(words, " ")
}

// Remembered is what the remember tools return.
type Remembered struct {
	Status       string      `json:"status"` // added, or already_known (nothing written)
	ID           string      `json:"id"`
	Path         string      `json:"path"`
	VersionToken string      `json:"versionToken"`
	Observation  Observation `json:"observation"`
}

func checkObservation(category, text string) (Observation, error) {
	category = strings.TrimSpace(category)
	text = strings.Join(strings.Fields(text), " ")
	if err := validText("category", category); err != nil {
		return Observation{}, err
	}
	if err := validText("observation", text); err != nil {
		return Observation{}, err
	}
	if !categoryRE.MatchString(category) {
		return Observation{}, argErr("category", "%q must be a short label (letters, digits, spaces, '-', '_'; at most 40)", category)
	}
	if len(text) < 3 || len(text) > 1000 {
		return Observation{}, argErr("observation", "must be 3 to 1,000 characters (it has %d)", len(text))
	}
	if strings.ContainsAny(text, "[]") && strings.HasPrefix(text, "[") {
		return Observation{}, argErr("observation", "must not start with a [bracket]")
	}
	return Observation{Category: category, Text: text, Date: time.Now().UTC().Format("2006-01-02")}, nil
}

// RememberAboutUser adds a durable fact about the caller's user to their
// profile (people/<principal>/profile.md, class user-profile), unless the
// same fact is already there.
func (v *Vault) RememberAboutUser(c access.Caller, category, observation string) (*Remembered, error) {
	o, err := checkObservation(category, observation)
	if err != nil {
		return nil, err
	}
	p := PeopleDir + "/" + c.Principal + "/" + ProfileFile
	return v.remember(c, p, "# Profile\n\nWhat agents have learnt about this user. Private to them.\n", "profile", "", o)
}

// RememberAboutProject adds a fact about a project to the caller's private
// memory (class agent-memory): never shared, never in list_notes.
func (v *Vault) RememberAboutProject(c access.Caller, project, category, observation string) (*Remembered, error) {
	if strings.TrimSpace(category) == "" {
		category = "general"
	}
	o, err := checkObservation(category, observation)
	if err != nil {
		return nil, err
	}
	pr, _, err := v.project(c, "project", project)
	if err != nil {
		return nil, err
	}
	title := "Memory about " + pr.Handle
	name, err := FileName(title)
	if err != nil {
		return nil, fmt.Errorf("memory file for %s: %w", pr.Handle, err)
	}
	p := PeopleDir + "/" + c.Principal + "/memory/" + name
	return v.remember(c, p, "# "+title+"\n\nWhat the agent remembers about project "+pr.Name+". Private to "+c.Principal+".\n", "memory", pr.Handle, o)
}

func (v *Vault) remember(c access.Caller, p, newBody, typ, project string, o Observation) (*Remembered, error) {
	if c.Ceiling < access.RoleWrite || v.roleAt(c, p) < access.RoleWrite {
		return nil, fmt.Errorf("%w: this token may not write", ErrForbidden)
	}
	if err := v.flushHuman(p); err != nil {
		return nil, err
	}
	cur, exists, err := v.store.Version(p)
	if err != nil {
		return nil, err
	}
	var n *note.Note
	if exists {
		data, err := readFileNoFollow(v.abs(p))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		n = note.Parse(p, data)
		if err := n.FrontmatterError(); err != nil {
			return nil, fmt.Errorf("%s: the frontmatter is not valid YAML (%v); fix it in an editor first", p, err)
		}
		v.adoptID(n)
		for _, old := range ParseObservations(n.Body) {
			if strings.EqualFold(old.Category, o.Category) && sameFact(old.Text, o.Text) {
				return &Remembered{Status: "already_known", ID: n.ID, Path: p, VersionToken: cur, Observation: old}, nil
			}
		}
	} else {
		if _, err := os.Lstat(v.abs(p)); err == nil {
			return nil, fmt.Errorf("%s exists but is not committed; commit it first", p)
		}
		n = &note.Note{Path: p, ID: note.NewID(), Body: []byte(newBody)}
		n.SetKey("id", note.StrNode(n.ID))
		n.SetKey("type", note.StrNode(typ))
		if project != "" {
			n.SetKey("project", note.StrNode(project))
		}
	}
	n.MigrateLinks()
	n.Body = []byte(addObservation(string(n.Body), o))
	if err := n.EnsureID(); err != nil {
		return nil, err
	}
	changes := []gitstore.Change{{Path: p, Content: n.Render(), CheckVersion: true, ExpectVersion: cur, RequireClean: true}}
	e := v.newEdits(c)
	if !exists {
		// A new profile or memory note brings a title and a path: links
		// elsewhere it would take over are kept naming their notes (the
		// caller does not choose these names, so nothing is refused).
		n.Title = note.TitleOf(n.Body)
		if err := e.guard("observation", "", "", []wikilinks.Note{n.GraphNote()}, false); err != nil {
			return nil, err
		}
		changes = append(changes, e.changes()...)
	}
	h, err := v.commit(c, fmt.Sprintf("Remember [%s] in %s", o.Category, p), n.ID, changes, e.trailers()...)
	if oe := otherConflict(err, p); oe != nil {
		return nil, oe
	}
	if err != nil {
		return nil, v.writeErr(p, p, err)
	}
	return &Remembered{Status: "added", ID: n.ID, Path: p, VersionToken: h, Observation: o}, nil
}

// addObservation appends the line at the end of the Observations section,
// creating the section at the end of the body when there is none. Headings
// inside fenced code are not headings; a CRLF file stays CRLF.
func addObservation(body string, o Observation) string {
	nl := "\n"
	if strings.Contains(body, "\r\n") {
		nl = "\r\n"
	}
	lines := strings.SplitAfter(body, "\n")
	inFence := make([]bool, len(lines))
	fence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			inFence[i] = true
			continue
		}
		inFence[i] = fence
	}
	start := -1
	for i, l := range lines {
		if h, ok := atxHeading(l); ok && !inFence[i] && h.level == 2 && strings.EqualFold(h.text, observationsHeading) {
			start = i
			break
		}
	}
	if start < 0 {
		body = strings.TrimRight(body, "\r\n") + nl + nl + "## " + observationsHeading + nl + nl
		return body + o.line() + nl
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if h, ok := atxHeading(lines[i]); ok && !inFence[i] && h.level <= 2 {
			end = i
			break
		}
	}
	// After the last non-blank line of the section.
	last := start
	for i := start + 1; i < end; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			last = i
		}
	}
	head := strings.Join(lines[:last+1], "")
	if !strings.HasSuffix(head, "\n") {
		head += nl
	}
	if last == start {
		head += nl
	}
	tail := strings.Join(lines[last+1:], "")
	return head + o.line() + nl + tail
}

type heading struct {
	level int
	text  string
}

func atxHeading(line string) (heading, bool) {
	t := strings.TrimRight(line, "\r\n")
	trim := strings.TrimLeft(t, " ")
	if len(t)-len(trim) > 3 {
		return heading{}, false
	}
	n := 0
	for n < len(trim) && trim[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(trim) && trim[n] != ' ' && trim[n] != '\t') {
		return heading{}, false
	}
	return heading{level: n, text: strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trim[n:]), "#"))}, true
}
