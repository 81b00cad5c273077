package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// errMarkerFound ends the walk for project markers at the first one.
var errMarkerFound = errors.New("a project marker")

// planRootProject is the project the whole folder at dir becomes (the
// notes' source: the template when there is one; name is the vault's
// folder name, the handle's default), or nil: when it holds a
// project marker already, or o does not ask for one. It writes nothing, so
// Init refuses a bad --project before it changes anything. Without a
// project an adopted folder of notes could be read but not written by any
// agent (create_note needs a project), and a person had to learn projects
// before their agent could save a line.
func planRootProject(dir, name string, o InitOptions) (*Project, error) {
	if !o.RootProject && o.Project == "" {
		return nil, nil
	}
	handle := o.Project
	if handle == "" {
		handle = handleFromName(name)
	} else if err := ValidHandle(handle); err != nil {
		return nil, &ArgError{Arg: "project", Msg: err.Error()}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return nil // a new vault's folder, made by Init
			}
			return err
		}
		if d.IsDir() && p != dir && (d.Name() == ".git" || d.Name() == ".cairn") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == ProjectMarker {
			return errMarkerFound
		}
		return nil
	})
	switch {
	case errors.Is(err, errMarkerFound):
		if o.Project != "" {
			return nil, &ArgError{Arg: "project", Msg: "this folder has projects already (cairn project create HANDLE --folder . makes the whole vault one)"}
		}
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("look for project markers: %w", err)
	}
	return &Project{Handle: handle, Name: handle}, nil
}

// writeRootMarker writes p's marker at the vault's root.
func writeRootMarker(abs string, p *Project) error {
	data, err := p.marker()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(abs, ProjectMarker), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", ProjectMarker, err)
	}
	return nil
}

var notHandle = regexp.MustCompile(`[^a-z0-9._-]+`)

// handleFromName is a project handle made of a folder's name: "My
// Obsidian Vault" gives my-obsidian-vault, "Été" ete; a name with nothing usable
// gives "notes".
func handleFromName(name string) string {
	// Accents go (Été gives ete): NFD splits a letter from its marks.
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(name)) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	h := notHandle.ReplaceAllString(b.String(), "-")
	h = strings.TrimLeft(strings.Trim(h, "-"), "._-")
	if len(h) > 64 {
		h = strings.TrimRight(h[:64], "-._")
	}
	if ValidHandle(h) != nil {
		return "notes"
	}
	return h
}
