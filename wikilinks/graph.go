package wikilinks

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Note is a note as the graph knows it.
type Note struct {
	ID      string
	Path    string // vault path, with .md
	Title   string
	Aliases []string
	Links   []Link // body links, then typed links
}

// How a target resolved. Name and path are Obsidian's own resolution; the
// others are cairn's extra ways of finding a note, used only for a link
// Obsidian resolves to nothing.
const (
	ByName  = "name" // the file name (Obsidian)
	ByPath  = "path" // a path: full, a trailing part, relative (Obsidian)
	ByID    = "id"
	ByTitle = "title"
	ByAlias = "alias"
	ByFold  = "folded" // title or alias, case and accents ignored
)

// Resolution statuses.
const (
	Resolved   = "resolved"
	Unresolved = "unresolved" // a forward reference
	Ambiguous  = "ambiguous"
)

// What Obsidian makes of a link, beside cairn's resolution.
const (
	// ObsidianSame: Obsidian opens the target cairn names (always the
	// case when Obsidian resolves the link: cairn resolves as it does).
	ObsidianSame = "same"
	// ObsidianUnresolved: Obsidian resolves the link to nothing. For a
	// link cairn resolves (by id, title, alias, folded name), the link is
	// broken for whoever reads the vault in Obsidian.
	ObsidianUnresolved = "unresolved"
	// ObsidianAmbiguous: Obsidian opens one of the candidates, which one
	// depending on the order it loaded the files (paths of equal length).
	ObsidianAmbiguous = "ambiguous"
)

// Resolution is what a target names.
type Resolution struct {
	Status string `json:"status"`
	ID     string `json:"id,omitempty"`   // the note; "" for a file that is not a note
	Path   string `json:"path,omitempty"` // the file, a note's or an attachment's
	How    string `json:"how,omitempty"`
	// Candidates are the notes' ids, and Files the other files' paths,
	// when ambiguous.
	Candidates []string `json:"candidates,omitempty"`
	Files      []string `json:"files,omitempty"`
	Obsidian   string   `json:"obsidian,omitempty"`
}

// Edge is a resolved link of one note.
type Edge struct {
	From string `json:"from"`
	Link
	Resolution
}

// Graph holds every note's names and links, and the vault's other files
// (attachments), which links may name too. Safe for concurrent use.
type Graph struct {
	mu    sync.RWMutex
	notes map[string]*Note
	names map[nameKey]set          // cairn's names: title, alias, folded (see nameKeys) → ids
	files map[string]small[string] // lower-cased file name → path → note id ("" for another file)
	refs  map[string]set           // link key (see linkKeys) → ids of notes with such a link
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{notes: map[string]*Note{}, names: map[nameKey]set{},
		files: map[string]small[string]{}, refs: map[string]set{}}
}

// Reserve makes an empty graph's tables room for about n notes, so that
// filling it does not grow them step by step (with the catalog's tables,
// 6-10 % of a 100,000-note open's CPU).
func (g *Graph) Reserve(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.notes) > 0 || n <= 0 {
		return
	}
	g.notes = make(map[string]*Note, n)
	g.names = make(map[nameKey]set, 2*n)
	g.files = make(map[string]small[string], n)
}

// Fold lower-cases s and removes its accents: "École" → "ecole".
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii { // nothing to strip: most titles and targets
		return strings.ToLower(strings.TrimSpace(s))
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(strings.TrimSpace(out))
}

// nameKey is a key under which cairn's own ways find a note: a title, an
// alias, or either folded (how says which: ByTitle, ByAlias, ByFold). The
// text is the note's own string, or its folding (the same string when
// folding changes nothing), not a copy with a prefix: at 100,000 notes
// those copies were 100,000 more objects for the collector to mark on
// every cycle of a build.
type nameKey struct {
	how  string
	text string
}

// nameKeys are the keys under which cairn's own ways find a note: its
// title, its aliases, both folded (so [[pricing]] still finds a note
// renamed from "Pricing"). Paths and file names are Obsidian's, in files.
func nameKeys(n *Note) []nameKey {
	keys := []nameKey{{ByTitle, n.Title}, {ByFold, Fold(n.Title)}}
	for _, a := range n.Aliases {
		keys = append(keys, nameKey{ByAlias, a}, nameKey{ByFold, Fold(a)})
	}
	return keys
}

// noteKeys are the keys of every link that may name n: its file name
// without .md, its id, title and aliases, all folded (see linkKeys).
func noteKeys(n *Note) []string {
	seg := fileName(n.Path)
	if len(seg) > 3 && strings.EqualFold(seg[len(seg)-3:], ".md") {
		seg = seg[:len(seg)-3]
	}
	out := []string{Fold(seg), Fold(n.ID), Fold(n.Title)}
	for _, a := range n.Aliases {
		out = append(out, Fold(a))
	}
	return out
}

// linkKeys are the keys a link is indexed by, so that the links that may
// name a note are found without resolving every link of the vault: its
// last segment without .md, folded (what Obsidian looks a file up by,
// case and accents aside), and, when it differs, its whole text folded
// (what cairn's own ways compare with an id, a title or an alias). A key
// matching a note's is a candidate only: the link is then resolved.
func linkKeys(target string) ([2]string, int) {
	seg := fileName(target)
	if len(seg) > 3 && strings.EqualFold(seg[len(seg)-3:], ".md") {
		seg = seg[:len(seg)-3]
	}
	name, whole := Fold(seg), Fold(target)
	if whole == name {
		return [2]string{name}, 1
	}
	return [2]string{name, whole}, 2
}

func add[K comparable](m map[K]set, k K, id string) { put(m, k, id, struct{}{}) }

func del[K comparable](m map[K]set, k K, id string) { drop(m, k, id) }

func addFile(m map[string]small[string], path, id string) { put(m, fileKey(path), path, id) }

func delFile(m map[string]small[string], path, id string) {
	k := fileKey(path)
	if s, ok := m[k]; ok {
		if cur, ok := s.get(path); ok && cur == id {
			drop(m, k, path)
		}
	}
}

// Set adds or replaces a note.
func (g *Graph) Set(n Note) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeLocked(n.ID)
	nn := n
	g.notes[n.ID] = &nn
	for _, k := range nameKeys(&nn) {
		add(g.names, k, n.ID)
	}
	addFile(g.files, nn.Path, n.ID)
	for _, l := range nn.Links {
		if l.Target != "" {
			keys, nk := linkKeys(l.Target)
			for _, k := range keys[:nk] {
				add(g.refs, k, n.ID)
			}
		}
	}
}

// Remove drops a note (its incoming links become forward references).
func (g *Graph) Remove(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeLocked(id)
}

func (g *Graph) removeLocked(id string) {
	old := g.notes[id]
	if old == nil {
		return
	}
	for _, k := range nameKeys(old) {
		del(g.names, k, id)
	}
	delFile(g.files, old.Path, id)
	for _, l := range old.Links {
		if l.Target != "" {
			keys, nk := linkKeys(l.Target)
			for _, k := range keys[:nk] {
				del(g.refs, k, id)
			}
		}
	}
	delete(g.notes, id)
}

// SetFile adds a file of the vault that is not a note (an attachment:
// pic.png, a.pdf), so that links resolve to it as in Obsidian.
func (g *Graph) SetFile(path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	addFile(g.files, path, "")
}

// RemoveFile drops a file SetFile added.
func (g *Graph) RemoveFile(path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delFile(g.files, path, "")
}

// Note returns a note by id.
func (g *Graph) Note(id string) (Note, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.notes[id]
	if !ok {
		return Note{}, false
	}
	return *n, true
}

// Len is the number of notes.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.notes)
}

// Visible says whether a note (id, path) may be seen by whoever asks; a
// graph query made with one treats every other note as absent. A file
// that is not a note is asked with an empty id. It is called with the
// graph's lock held: it must not call the graph.
type Visible func(id, path string) bool

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
