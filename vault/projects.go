package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Project is a folder with a marker file. Its handle is what callers use;
// it is stored in the marker, so renaming the folder keeps it.
type Project struct {
	Handle  string   `yaml:"handle" json:"handle"`
	Name    string   `yaml:"name" json:"name"`
	Aliases []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	Pins    []string `yaml:"pins,omitempty" json:"-"`
	Dir     string   `yaml:"-" json:"-"` // vault-relative folder
}

// names are the project's handle and the aliases that still name it.
func (p *Project) names(ps *projectSet) []string {
	out := []string{p.Handle}
	for _, a := range p.Aliases {
		if ps.byHandle[a] == p {
			out = append(out, a)
		}
	}
	return out
}

// holds says whether dir is the project's folder or a folder below it.
// The vault's root project (Dir "": a vault adopted whole, or made one
// project with cairn project create --folder .) holds every folder.
func (p *Project) holds(dir string) bool {
	return p.Dir == "" || dir == p.Dir || strings.HasPrefix(dir, p.Dir+"/")
}

// within is rel, a path relative to the project's folder, as a vault
// path.
func (p *Project) within(rel string) string {
	if p.Dir == "" || rel == "" {
		return p.Dir + rel
	}
	return p.Dir + "/" + rel
}

// marker is the content of p's marker file: its handle, name and aliases,
// under a line saying what the file is.
func (p *Project) marker() ([]byte, error) {
	data, err := yaml.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]byte("# cairn project marker: the handle stays when the folder is renamed.\n"), data...), nil
}

// Space is the first segment of the project's handle.
func (p *Project) Space() string {
	s, _, _ := strings.Cut(p.Handle, "/")
	return s
}

var handleRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)

// ValidHandle checks a project handle: lower-case segments of letters,
// digits, '.', '_' and '-', separated by '/'.
func ValidHandle(h string) error {
	if !handleRE.MatchString(h) || len(h) > 200 {
		return fmt.Errorf("%q is not a valid handle (lower-case letters, digits, '.', '_', '-', segments joined by '/', like acme/launch)", h)
	}
	return nil
}

// projectSet is every project of the vault, found by their marker files.
type projectSet struct {
	byHandle map[string]*Project // handles and aliases
	byDir    map[string]*Project
	list     []*Project // sorted by handle
	problems []string   // markers that could not be used, said by doctor
	// key names every project's folder and handle: two sets with the same
	// key give every note the same scope (the search index compares it).
	key string
}

func readMarker(root, dir string) (*Project, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), ProjectMarker))
	if err != nil {
		return nil, err
	}
	var p Project
	if err := yaml.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", dir, ProjectMarker, err)
	}
	if err := ValidHandle(p.Handle); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", dir, ProjectMarker, err)
	}
	if p.Name == "" {
		p.Name = p.Handle
	}
	p.Dir = dir
	return &p, nil
}

func newProjectSet(root string, dirs []string) *projectSet {
	ps := &projectSet{byHandle: map[string]*Project{}, byDir: map[string]*Project{}}
	sort.Strings(dirs)
	for _, d := range dirs {
		p, err := readMarker(root, d)
		if err != nil {
			ps.problems = append(ps.problems, err.Error())
			continue
		}
		if other, dup := ps.byHandle[p.Handle]; dup {
			ps.problems = append(ps.problems, fmt.Sprintf("%s and %s both claim handle %s; %s is ignored", other.Dir, d, p.Handle, d))
			continue
		}
		ps.byHandle[p.Handle] = p
		ps.byDir[d] = p
		ps.list = append(ps.list, p)
	}
	for _, p := range ps.list {
		for _, a := range p.Aliases {
			if _, taken := ps.byHandle[a]; !taken {
				ps.byHandle[a] = p
			}
		}
	}
	sort.Slice(ps.list, func(i, j int) bool { return ps.list[i].Handle < ps.list[j].Handle })
	var key strings.Builder
	for _, p := range ps.list {
		fmt.Fprintf(&key, "%q %q\n", p.Dir, p.Handle)
	}
	ps.key = key.String()
	return ps
}

// of returns the project owning a vault path: the nearest folder, the path
// itself included, that holds a marker. nil when none does. The vault's
// root project owns neither people/ nor banks/ (a personal domain and a
// memory bank stay private whatever project holds the folders around
// them) nor a hidden folder at the root (.cairn/, .obsidian/).
func (ps *projectSet) of(p string) *Project {
	p = strings.Trim(p, "/")
	for d := p; ; d = parentDir(d) {
		if d == "" {
			if top, _, _ := strings.Cut(p, "/"); top == PeopleDir || top == BanksDir || strings.HasPrefix(top, ".") {
				return nil
			}
		}
		if pr, ok := ps.byDir[d]; ok {
			return pr
		}
		if d == "" {
			return nil
		}
	}
}
