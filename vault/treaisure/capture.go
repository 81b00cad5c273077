package treaisure

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"gopkg.in/yaml.v3"
)

// Thoughts is the captured thoughts of one open vault, with the state
// their operations share: one per vault (Of), whoever calls.
type Thoughts struct {
	v *vault.Vault

	mu sync.Mutex // serialises captures (the duplicate check, then the commit)
}

// stateKey is the key of a vault's Thoughts (vault.Attached).
type stateKey struct{}

// Of is the captured thoughts of v. They are attached to the vault rather
// than made by whoever opens it: a server's MCP sessions and the tests
// each reach the same one through the vault they share, and none of them
// has to make it or carry it beside the vault.
func Of(v *vault.Vault) *Thoughts {
	return vault.Attached(v, stateKey{}, func() *Thoughts { return &Thoughts{v: v} })
}

// Spaces and kinds of thoughts.
var (
	Spaces = []string{"personal", "professional"}
	Kinds  = []string{"thought", "memory", "experience"}
)

// Statuses of a capture.
const (
	CapturePending  = "pending_confirmation"
	CaptureCreated  = "created"
	CaptureExists   = "already_exists"
	CaptureRejected = "rejected"
)

// Bounds of a thought's text, in characters.
const (
	minThoughtChars = 3
	maxThoughtChars = 10_000
)

// CaptureArgs are treaisure_capture_thought's arguments.
type CaptureArgs struct {
	Text       string
	Space      string
	Kind       string
	OccurredAt string
	Confirmed  bool
}

// Proposal is a thought exactly as it is (or would be) stored.
type Proposal struct {
	Text        string `json:"text"`
	Space       string `json:"space"`
	ThoughtKind string `json:"thought_kind"`
	OccurredAt  string `json:"occurred_at,omitempty"`
}

// Capture is what a capture did.
type Capture struct {
	Status   string    `json:"status"`
	ID       string    `json:"id,omitempty"`
	Path     string    `json:"path,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Proposal *Proposal `json:"proposal,omitempty"`
	Message  string    `json:"message"`
}

func rejected(reason string) *Capture {
	return &Capture{Status: CaptureRejected, Reason: reason, Message: "Nothing was saved: " + reason}
}

// thoughtsDir is where c's thoughts of one space live.
func thoughtsDir(principal, space string) string {
	return vault.PeopleDir + "/" + principal + "/" + vault.ThoughtsDir + "/" + space
}

// Capture stores the user's own words, verbatim, after they confirmed.
// Without confirmation it writes nothing and returns the proposal.
// Nothing is written unless the status is created.
func (t *Thoughts) Capture(c access.Caller, a CaptureArgs) (*Capture, error) {
	if err := vault.ValidText("text", a.Text); err != nil {
		return rejected(err.Error()), nil
	}
	text := strings.TrimSpace(a.Text)
	n := utf8.RuneCountInString(text)
	switch {
	case n < minThoughtChars || n > maxThoughtChars:
		return rejected(fmt.Sprintf("argument text: must be %d to %d characters (it has %d)", minThoughtChars, maxThoughtChars, n)), nil
	case !slices.Contains(Spaces, a.Space):
		return rejected(fmt.Sprintf("argument space: unknown space %q (personal or professional)", a.Space)), nil
	}
	kind := a.Kind
	if kind == "" {
		kind = "thought"
	}
	if !slices.Contains(Kinds, kind) {
		return rejected(fmt.Sprintf("argument thought_kind: %q is not thought, memory or experience", kind)), nil
	}
	occurred := ""
	if a.OccurredAt != "" {
		at, ok := vault.ParseDate(a.OccurredAt)
		switch {
		case !ok:
			return rejected(fmt.Sprintf("argument occurred_at: %q is not an ISO 8601 date or time", a.OccurredAt)), nil
		case at.After(time.Now().Add(14 * time.Hour)): // a day east of UTC is not the future
			return rejected(fmt.Sprintf("argument occurred_at: %s is in the future", a.OccurredAt)), nil
		}
		occurred = note.PropertyDate(a.OccurredAt, at)
	}
	if c.Principal == "" || c.Ceiling < access.RoleWrite {
		return rejected("this token may not write"), nil
	}
	prop := &Proposal{Text: text, Space: a.Space, ThoughtKind: kind, OccurredAt: occurred}
	// One capture at a time: two identical ones at once must give one
	// created and one already_exists.
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, p := t.sameThought(c.Principal, a.Space, text); id != "" {
		return &Capture{Status: CaptureExists, ID: id, Path: p, Proposal: prop, Message: "These words are already saved in this space."}, nil
	}
	if !a.Confirmed {
		return &Capture{Status: CapturePending, Proposal: prop, Message: "Nothing is saved yet: show the proposal to the user, then call again with confirmed: true."}, nil
	}
	id := note.NewID()
	p := thoughtsDir(c.Principal, a.Space) + "/" + vault.FileNameFrom(text, id)
	if err := t.v.NoSymlinks("space", p); err != nil {
		return rejected(err.Error()), nil
	}
	fm := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	set := func(k, val string) {
		fm.Content = append(fm.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val})
	}
	set("id", id)
	set("type", "thought")
	set("thought_kind", kind)
	set("space", a.Space)
	if occurred != "" {
		set("occurred_at", occurred)
	}
	set("captured_at", time.Now().UTC().Format(note.DateTimeLayout))
	head, err := yaml.Marshal(fm)
	if err != nil {
		return nil, err
	}
	data := []byte("---\n" + string(head) + "---\n" + text + "\n")
	if _, err := t.v.Commit(c, "Capture a thought", id, []gitstore.Change{{Path: p, Content: data, CheckVersion: true, ExpectVersion: "", RequireClean: true}}); err != nil {
		return nil, err
	}
	return &Capture{Status: CaptureCreated, ID: id, Path: p, Proposal: prop, Message: "Saved."}, nil
}

// normWords is text for duplicate detection: case and spacing do not count.
func normWords(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// sameThought finds a thought of that space with the same words.
func (t *Thoughts) sameThought(principal, space, text string) (id, path string) {
	dir := thoughtsDir(principal, space) + "/"
	want := normWords(text)
	for _, p := range slices.Sorted(maps.Keys(t.v.IDsUnder(dir))) {
		data, err := t.v.ReadNoteFile(p)
		if err != nil {
			continue
		}
		n := note.Parse(p, data)
		if normWords(string(n.Body)) == want {
			if id, ok := t.v.NoteID(p); ok {
				return id, p
			}
			return n.ID, p
		}
	}
	return "", ""
}
