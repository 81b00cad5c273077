package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
)

// Moving and renaming folders: every note below moves in one commit, and
// every link to them is rewritten in its own style (upkeep.go).

// folderNotes lists every file under a folder (notes and others).
func (v *Vault) folderFiles(dir string) ([]string, error) {
	var out []string
	ign := v.ignoreMatcher()
	err := filepath.WalkDir(v.abs(dir), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(v.root, p); ignored(ign, filepath.ToSlash(rel), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // git ignores it: it stays where it is
		}
		if d.Type()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link; cairn does not move those", p)
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(v.root, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

// MoveFolder moves a folder (with everything in it) under another parent in
// the same project; every note keeps its id, a project folder its handle.
func (v *Vault) MoveFolder(c access.Caller, project, path, toParent string) (*Moved, error) {
	return v.relocateFolder(c, project, path, "toParent", toParent, "")
}

// RenameFolder renames a folder in place.
func (v *Vault) RenameFolder(c access.Caller, project, path, name string) (*Moved, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".md") {
		return nil, argErr("name", "%q must be a single folder name (no slashes, not starting with '.', not ending in .md)", name)
	}
	if _, err := cleanRel("name", name); err != nil {
		return nil, err
	}
	if err := safeNewName(name); err != nil {
		return nil, argErr("name", "%v", err)
	}
	return v.relocateFolder(c, project, path, "", "", name)
}

// relocateFolder moves the folder at path under toParent (parentArg names
// that argument) or, with newName, renames it in place: every file in one
// commit, every link that would stop naming one of them followed.
func (v *Vault) relocateFolder(c access.Caller, project, path, parentArg, toParent, newName string) (*Moved, error) {
	dir, err := v.folderArg(c, project, path)
	if err != nil {
		return nil, err
	}
	isProject := v.projectSet().byDir[dir] != nil
	dest, err := v.folderDest(c, dir, path, parentArg, toParent, newName, isProject)
	if err != nil {
		return nil, err
	}
	if err := v.checkDest(orDefault(parentArg, "name"), dest, dir); err != nil {
		return nil, err
	}
	e, others, notes, err := v.planFolderMove(c, dir, dest)
	if err != nil {
		return nil, err
	}
	instead := "parent folder"
	if newName != "" {
		instead = "name"
	}
	if err := e.guard(orDefault(parentArg, "name"), "this move", instead, nil, true); err != nil {
		return nil, err
	}
	changes := append(e.changes(), others...)
	if len(changes) == 0 {
		return nil, argErr("path", "%q holds nothing git tracks; there is nothing to move", path)
	}
	verb := "Move"
	if newName != "" {
		verb = "Rename"
	}
	h, err := v.commit(c, fmt.Sprintf("%s folder %s to %s", verb, dir, dest), "", changes, e.trailers()...)
	if err != nil {
		var ce *gitstore.ConflictError
		var de *gitstore.DirtyError
		if errors.As(err, &ce) || errors.As(err, &de) {
			return nil, &ConflictError{Reason: "a note in the folder was changed at the same moment; try again"}
		}
		return nil, err
	}
	if isProject {
		v.rescan()
	}
	return &Moved{From: dir, To: dest, Commit: h, Notes: notes, Rewritten: e.rewritten()}, nil
}

// folderDest is where the folder dir goes: renamed in place to newName, or
// into the folder toParent, which must be in the scope the folder belongs
// to (its project, or for a project's own folder, the project it sits in).
func (v *Vault) folderDest(c access.Caller, dir, path, parentArg, toParent, newName string, isProject bool) (string, error) {
	scope := v.scope(dir + "/x.md")
	if isProject && parentDir(dir) != "" && v.roleAt(c, parentDir(dir)+"/x.md") < access.RoleWrite {
		// Renaming or moving a sub-project's folder changes its parent.
		return "", fmt.Errorf("%w: the folder sits in a project you cannot change", ErrForbidden)
	}
	if isProject {
		if parentDir(dir) == "" {
			if newName == "" {
				return "", argErr("path", "%q is a space's root project; it can be renamed, not moved", path)
			}
			scope = ""
		} else {
			scope = v.scope(parentDir(dir) + "/x.md")
		}
	}
	var dest string
	if newName != "" {
		dest = strings.TrimPrefix(parentDir(dir)+"/"+newName, "/")
		if top, _, _ := strings.Cut(dest, "/"); top == PeopleDir || top == BanksDir {
			return "", argErr("name", "%q is reserved", newName)
		}
	} else {
		parent, err := v.destFolder(c, parentArg, toParent, scope)
		if err != nil {
			return "", err
		}
		dest = strings.TrimPrefix(parent+"/"+baseName(dir), "/")
		if parent == dir || strings.HasPrefix(parent+"/", dir+"/") {
			return "", argErr(parentArg, "%q is inside the folder being moved", toParent)
		}
	}
	if dest == dir {
		return "", argErr("path", "the folder is already at %q", dest)
	}
	return dest, nil
}

// planFolderMove loads the move of every file under dir to dest: notes
// into the edits (their ids saved, the links to them followed), other
// tracked files (markers, attachments) as they are, into others; files git
// does not track (an editor's .DS_Store, ignored build output) stay put.
func (v *Vault) planFolderMove(c access.Caller, dir, dest string) (e *edits, others []gitstore.Change, notes int, err error) {
	files, err := v.folderFiles(dir)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, f := range files {
		if v.roleAt(c, f) < access.RoleWrite && isNotePath(f) {
			return nil, nil, 0, argErr("path", "the folder holds notes you cannot change")
		}
	}
	e = v.newEdits(c)
	for _, f := range files {
		to := dest + strings.TrimPrefix(f, dir)
		if isNotePath(f) {
			if err := e.move(f, to); err != nil {
				return nil, nil, 0, err
			}
			notes++
			continue
		}
		if _, tracked, _ := v.store.Version(f); !tracked {
			continue
		}
		data, err := os.ReadFile(v.abs(f))
		if err != nil {
			return nil, nil, 0, err
		}
		others = append(others, gitstore.Change{Path: f, Delete: true}, gitstore.Change{Path: to, Content: data, CheckVersion: true, ExpectVersion: ""})
		e.files[f] = to
	}
	if err := e.follow(); err != nil {
		return nil, nil, 0, err
	}
	return e, others, notes, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// folderArg resolves a folder argument (vault path, or relative to the
// project's folder) that c may write.
func (v *Vault) folderArg(c access.Caller, project, path string) (string, error) {
	dir, err := cleanRel("path", path)
	if err != nil {
		return "", err
	}
	if dir == "" {
		return "", argErr("path", "is required: the folder to move or rename")
	}
	if project != "" {
		pr, _, err := v.project(c, "project", project)
		if err != nil {
			return "", err
		}
		if !pr.holds(dir) {
			if dir, err = cleanRel("path", pr.within(dir)); err != nil {
				return "", err
			}
		}
	}
	if err := v.noSymlinks("path", dir); err != nil {
		return "", err
	}
	fi, err := os.Lstat(v.abs(dir))
	if err != nil || !fi.IsDir() || v.roleAt(c, dir+"/x.md") == access.RoleNone {
		return "", notFound("path", fmt.Sprintf("no folder %q is accessible", path))
	}
	if top, _, _ := strings.Cut(dir, "/"); top == PeopleDir || top == BanksDir {
		return "", argErr("path", "%q is private memory; these tools reorganize shared notes", path)
	}
	if v.roleAt(c, dir+"/x.md") < access.RoleWrite {
		return "", fmt.Errorf("%w: your access to %q is read-only", ErrForbidden, path)
	}
	return dir, nil
}
