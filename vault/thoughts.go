package vault

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
	"gopkg.in/yaml.v3"
)

// Thoughts (the treaisure toolset): the user's own words, captured
// verbatim into their personal domain, one note per thought, under one of
// two spaces that are never searched together.

// Spaces and kinds of thoughts.
var (
	ThoughtSpaces = []string{"personal", "professional"}
	ThoughtKinds  = []string{"thought", "memory", "experience"}
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
	return PeopleDir + "/" + principal + "/" + ThoughtsDir + "/" + space
}

// CaptureThought stores the user's own words, verbatim, after they
// confirmed. Without confirmation it writes nothing and returns the
// proposal. Nothing is written unless the status is created.
func (v *Vault) CaptureThought(c access.Caller, a CaptureArgs) (*Capture, error) {
	if err := validText("text", a.Text); err != nil {
		return rejected(err.Error()), nil
	}
	text := strings.TrimSpace(a.Text)
	n := utf8.RuneCountInString(text)
	switch {
	case n < minThoughtChars || n > maxThoughtChars:
		return rejected(fmt.Sprintf("argument text: must be %d to %d characters (it has %d)", minThoughtChars, maxThoughtChars, n)), nil
	case !slices.Contains(ThoughtSpaces, a.Space):
		return rejected(fmt.Sprintf("argument space: unknown space %q (personal or professional)", a.Space)), nil
	}
	kind := a.Kind
	if kind == "" {
		kind = "thought"
	}
	if !slices.Contains(ThoughtKinds, kind) {
		return rejected(fmt.Sprintf("argument thought_kind: %q is not thought, memory or experience", kind)), nil
	}
	occurred := ""
	if a.OccurredAt != "" {
		t, ok := ParseDate(a.OccurredAt)
		switch {
		case !ok:
			return rejected(fmt.Sprintf("argument occurred_at: %q is not an ISO 8601 date or time", a.OccurredAt)), nil
		case t.After(time.Now().Add(14 * time.Hour)): // a day east of UTC is not the future
			return rejected(fmt.Sprintf("argument occurred_at: %s is in the future", a.OccurredAt)), nil
		}
		occurred = note.PropertyDate(a.OccurredAt, t)
	}
	if c.Principal == "" || c.Ceiling < access.RoleWrite {
		return rejected("this token may not write"), nil
	}
	prop := &Proposal{Text: text, Space: a.Space, ThoughtKind: kind, OccurredAt: occurred}
	// One capture at a time: two identical ones at once must give one
	// created and one already_exists.
	v.thoughtMu.Lock()
	defer v.thoughtMu.Unlock()
	if id, p := v.sameThought(c.Principal, a.Space, text); id != "" {
		return &Capture{Status: CaptureExists, ID: id, Path: p, Proposal: prop, Message: "These words are already saved in this space."}, nil
	}
	if !a.Confirmed {
		return &Capture{Status: CapturePending, Proposal: prop, Message: "Nothing is saved yet: show the proposal to the user, then call again with confirmed: true."}, nil
	}
	id := note.NewID()
	p := thoughtsDir(c.Principal, a.Space) + "/" + FileNameFrom(text, id)
	if err := v.noSymlinks("space", p); err != nil {
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
	if _, err := v.commit(c, "Capture a thought", id, []gitstore.Change{{Path: p, Content: data, CheckVersion: true, ExpectVersion: "", RequireClean: true}}); err != nil {
		return nil, err
	}
	return &Capture{Status: CaptureCreated, ID: id, Path: p, Proposal: prop, Message: "Saved."}, nil
}

// normWords is text for duplicate detection: case and spacing do not count.
func normWords(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// sameThought finds a thought of that space with the same words.
func (v *Vault) sameThought(principal, space, text string) (id, path string) {
	dir := thoughtsDir(principal, space) + "/"
	want := normWords(text)
	for _, p := range v.catalog.pathsUnder(dir) {
		data, err := readFileNoFollow(v.abs(p))
		if err != nil {
			continue
		}
		n := note.Parse(p, data)
		if normWords(string(n.Body)) == want {
			if e := v.entry(p, false); e != nil {
				return e.ID, p
			}
			return n.ID, p
		}
	}
	return "", ""
}

// Topics and entities of a thought, from what the vault knows and a light
// deterministic extraction (docs/families.md, "treaisure"):
//   - entities: the notes it links to ([[...]]), then runs of capitalised
//     words that do not start a sentence (names, places, products);
//   - topics: its tags, then its three most frequent words of five letters
//     or more that are not stop words (ties: alphabetical).
var capRun = regexp.MustCompile(`\p{Lu}[\p{L}\p{N}'’-]*(?:\s+\p{Lu}[\p{L}\p{N}'’-]*)*`)

func thoughtEntities(n *note.Note) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
	}
	for _, l := range wikilinks.Parse(n.Body) {
		add(l.Target)
	}
	body := string(n.Body)
	for _, loc := range capRun.FindAllStringIndex(body, -1) {
		if sentenceStart(body, loc[0]) {
			// "Nous lançons..." is not a name; "Paris" after it would be.
			rest := strings.Fields(body[loc[0]:loc[1]])
			if len(rest) < 2 {
				continue
			}
			add(strings.Join(rest[1:], " "))
			continue
		}
		add(body[loc[0]:loc[1]])
	}
	return out
}

func sentenceStart(s string, i int) bool {
	j := i - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t' || s[j] == '"' || s[j] == '(' || s[j] == '\'' || s[j] == '*') {
		j--
	}
	return j < 0 || s[j] == '.' || s[j] == '!' || s[j] == '?' || s[j] == '\n' || s[j] == ':'
}

func thoughtTopics(n *note.Note) []string {
	out := append([]string{}, n.Tags...)
	counts := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(string(n.Body)), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if utf8.RuneCountInString(w) >= 5 && !topicStop[w] {
			counts[w]++
		}
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	return append(out, words[:min(3, len(words))]...)
}

// topicStop are frequent long words that say nothing of a topic.
var topicStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about above after again against because been before being below between could doing during every having other ought should their theirs there these they'd those through under until where which while would yours yourself
	aussi autre autres avant avec avoir cette comme depuis encore entre était êtes étions faire leurs mêmes notre nous parce pendant peut plus pour quand quelle quelque sans selon sont sous toujours tous toute toutes très votre vous`) {
		topicStop[w] = true
	}
}

// Evidence levels.
const (
	LevelDirect   = "direct"
	LevelRelated  = "related"
	LevelSemantic = "semantic"
)

// Evidence is one item of a dossier.
type Evidence struct {
	ID       string   `json:"id"`
	Path     string   `json:"path"`
	Excerpt  string   `json:"excerpt"`
	Date     string   `json:"date"` // occurred_at, else captured_at
	Topics   []string `json:"topics"`
	Entities []string `json:"entities"`
	Score    float64  `json:"score"`
	Level    string   `json:"level"`
	// Explicit is true only for direct evidence: the user's own words
	// matching the question. Related and semantic items are context.
	Explicit bool   `json:"explicit"`
	Why      string `json:"why"`
}

// Dossier is treaisure_search_memory's answer.
type Dossier struct {
	Question string     `json:"question"`
	Space    string     `json:"space"`
	Items    []Evidence `json:"items"`
	Note     string     `json:"note"`
	Mode     string     `json:"mode"`
}

const dossierNote = "Only items with level \"direct\" (explicit: true) hold the user's own captured words matching the question. \"related\" items were reached from a direct item through a link, a shared entity or a shared topic, and \"semantic\" items only resemble the question in meaning: never present either as something the user said about this."

// Default and most evidence items of treaisure_search_memory (the seed's
// "limit integer, 1-12, default 8").
const (
	DefaultMemoryItems = 8
	MaxMemoryItems     = 12
)

// SearchMemory searches one space of c's captured thoughts, never both.
func (v *Vault) SearchMemory(ctx context.Context, c access.Caller, question, space string, limit int) (*Dossier, error) {
	limit, err := checkMemoryQuestion(question, space, limit)
	if err != nil {
		return nil, err
	}
	out := &Dossier{Question: question, Space: space, Items: []Evidence{}, Note: dossierNote}
	if c.Principal == "" {
		return out, nil
	}
	dir := thoughtsDir(c.Principal, space) + "/"
	ix, res, err := v.runSearch(ctx, search.Query{Text: question, Mode: search.Hybrid, Limit: MaxSearchLimit,
		Filter: search.Filter{Scopes: []string{"u:" + c.Principal}, PathPrefix: dir}})
	if err != nil {
		return nil, err
	}
	out.Mode = string(res.Mode)
	direct, other := v.directEvidence(ix, res.Hits, dir, question)
	keys, linked := v.aroundDirect(direct)
	related, semantic := relatedEvidence(other, keys, linked)
	related = append(related, v.linkedEvidence(ix, dir, question, linked, direct, related)...)
	for _, group := range [][]Evidence{direct, related, semantic} {
		for _, ev := range group {
			if len(out.Items) < limit {
				out.Items = append(out.Items, ev)
			}
		}
	}
	return out, nil
}

// checkMemoryQuestion checks SearchMemory's arguments and returns the
// limit to use.
func checkMemoryQuestion(question, space string, limit int) (int, error) {
	if err := validText("question", question); err != nil {
		return 0, err
	}
	switch {
	case strings.TrimSpace(question) == "":
		return 0, argErr("question", "is empty")
	case len(question) > 4000:
		return 0, argErr("question", "is longer than 4,000 bytes")
	case !slices.Contains(ThoughtSpaces, space):
		return 0, argErr("space", "unknown space %q (personal or professional; one at a time)", space)
	}
	if limit == 0 {
		limit = DefaultMemoryItems
	}
	if limit < 1 || limit > MaxMemoryItems {
		return 0, argErr("limit", "must be between 1 and %d", MaxMemoryItems)
	}
	return limit, nil
}

// readThought reads a thought's note (nil when it cannot be read).
func (v *Vault) readThought(p string) *note.Note {
	data, err := readFileNoFollow(v.abs(p))
	if err != nil {
		return nil
	}
	return note.Parse(p, data)
}

// directEvidence sorts the hits in dir: direct when the user's own words
// match the question's content words, else other (resembling it in
// meaning, or sharing only common words).
func (v *Vault) directEvidence(ix *search.Index, hits []search.Hit, dir, question string) (direct, other []Evidence) {
	content := search.ContentWords(question)
	for _, h := range hits {
		if !strings.HasPrefix(h.Path, dir) {
			continue // never the other space, whatever the index says
		}
		n := v.readThought(h.Path)
		if n == nil {
			continue
		}
		ev := v.evidence(ix, h.Path, n, question, h)
		if h.Lexical != nil && content != "" && ix.MatchesIn(string(n.Body), content) {
			ev.Level, ev.Explicit, ev.Why = LevelDirect, true, "the user's own words match the question"
			direct = append(direct, ev)
		} else if h.Semantic != nil || h.Lexical != nil {
			// A match on stop words alone is no evidence of what the user said.
			ev.Level, ev.Why = LevelSemantic, "similar in meaning only"
			if h.Semantic == nil {
				ev.Why = "shares only common words with the question"
			}
			other = append(other, ev)
		}
	}
	return direct, other
}

// aroundDirect is what the first direct items reach: their entities and
// topics (lower-cased → as written) and the notes linked to or from them
// (path → the direct item's id).
func (v *Vault) aroundDirect(direct []Evidence) (keys, linked map[string]string) {
	keys, linked = map[string]string{}, map[string]string{}
	for _, d := range direct[:min(len(direct), 5)] {
		for _, k := range append(append([]string{}, d.Entities...), d.Topics...) {
			if _, ok := keys[strings.ToLower(k)]; !ok {
				keys[strings.ToLower(k)] = k
			}
		}
		if e := v.entry(d.Path, false); e != nil {
			for _, ed := range v.graph().Outgoing(e.ID, nil) {
				if ed.Status == wikilinks.Resolved {
					linked[v.pathOf(ed.ID)] = d.ID
				}
			}
			for _, ed := range v.graph().Incoming(e.ID, nil) {
				linked[v.pathOf(ed.From)] = d.ID
			}
		}
	}
	return keys, linked
}

// relatedEvidence sorts the other hits: related when linked to a direct
// item or sharing an entity or topic with one, else semantic.
func relatedEvidence(other []Evidence, keys, linked map[string]string) (related, semantic []Evidence) {
	for _, o := range other {
		why := ""
		if _, ok := linked[o.Path]; ok {
			why = "linked to a direct item"
		}
		for _, k := range append(append([]string{}, o.Entities...), o.Topics...) {
			if orig, ok := keys[strings.ToLower(k)]; ok && why == "" {
				why = fmt.Sprintf("shares %q with a direct item", orig)
			}
		}
		if why != "" {
			o.Level, o.Why = LevelRelated, why
			related = append(related, o)
		} else {
			semantic = append(semantic, o)
		}
	}
	return related, semantic
}

// linkedEvidence is the thoughts in dir linked to a direct item that no
// list holds yet: related too.
func (v *Vault) linkedEvidence(ix *search.Index, dir, question string, linked map[string]string, direct, related []Evidence) []Evidence {
	seen := map[string]bool{}
	for _, group := range [][]Evidence{direct, related} {
		for _, ev := range group {
			seen[ev.Path] = true
		}
	}
	var out []Evidence
	for _, p := range slices.Sorted(maps.Keys(linked)) {
		if seen[p] || !strings.HasPrefix(p, dir) {
			continue
		}
		if n := v.readThought(p); n != nil {
			ev := v.evidence(ix, p, n, question, search.Hit{Path: p})
			ev.Level, ev.Why = LevelRelated, "linked to a direct item"
			out = append(out, ev)
		}
	}
	return out
}

func (v *Vault) evidence(ix *search.Index, p string, n *note.Note, question string, h search.Hit) Evidence {
	ev := Evidence{ID: n.ID, Path: p, Score: h.Score, Topics: thoughtTopics(n), Entities: thoughtEntities(n)}
	if e := v.entry(p, false); e != nil {
		ev.ID = e.ID
	}
	ev.Excerpt = ix.Snippet(string(n.Body), question, h.Chunk)
	if ev.Date = n.Scalar("occurred_at"); ev.Date == "" {
		ev.Date = n.Scalar("captured_at")
	}
	if ev.Topics == nil {
		ev.Topics = []string{}
	}
	if ev.Entities == nil {
		ev.Entities = []string{}
	}
	return ev
}
