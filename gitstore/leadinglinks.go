package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
)

// noLinkOnTheWay refuses to write or remove path p (relative, slashes)
// when a folder on the way to it is a symbolic link, as git's checkout
// does (has_symlink_leading_path): the link could lead the write out of
// the work tree. A vault holds such a link only if someone made it (git
// clone makes the links a remote's tree holds), never by a sync. Folders
// are looked at from the top, so each Lstat goes through real folders
// only; real remembers them for the next paths.
func (s *Store) noLinkOnTheWay(p string, real map[string]bool) error {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		dir := p[:i]
		if real[dir] {
			continue
		}
		fi, err := os.Lstat(filepath.Join(s.dir, filepath.FromSlash(dir)))
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			return &PathError{Path: p, Why: fmt.Sprintf("goes through %s, a symbolic link (cairn writes nothing through links)", QuotePath(dir))}
		case err == nil && fi.IsDir():
			real[dir] = true
		case err == nil, Missing(err):
			// A file where a folder should be fails the write by itself;
			// a missing folder is made as a real one, and so is every
			// folder below it.
			return nil
		default:
			return fmt.Errorf("check %s: %w", QuotePath(dir), err)
		}
	}
	return nil
}
