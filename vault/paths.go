package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

const maxPathBytes = 1024

// cleanRel checks a vault-relative path given by a caller and returns it in
// canonical form (slash-separated, no leading or trailing slash). It refuses
// absolute paths, `..`, backslashes, control characters, invisible and bidi
// control characters (see invisible), and anything under a dot-folder (.git,
// .cairn, .trash, .obsidian). "" is the vault root. It accepts names that
// already exist however they are spelt; names a write would create are
// checked further by checkNewFolder and FileName.
func cleanRel(arg, p string) (string, error) {
	if err := validText(arg, p); err != nil {
		return "", err
	}
	if len(p) > maxPathBytes {
		return "", argErr(arg, "is longer than %d bytes", maxPathBytes)
	}
	if strings.Contains(p, "\\") {
		return "", argErr(arg, "%q: use forward slashes", p)
	}
	if strings.HasPrefix(p, "/") || filepath.VolumeName(p) != "" {
		return "", argErr(arg, "%q: must be relative to the vault, not absolute", p)
	}
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return "", nil
	}
	if top, _, _ := strings.Cut(p, "/"); top != PeopleDir && top != BanksDir && (strings.EqualFold(top, PeopleDir) || strings.EqualFold(top, BanksDir)) {
		// On a case-insensitive disk "People/x" would be people/x while
		// access checks compare names exactly.
		return "", argErr(arg, "%q: %q is a reserved name (write it in lower case)", p, top)
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "" || seg == ".":
			return "", argErr(arg, "%q: empty or '.' path segment", p)
		case seg == "..":
			return "", argErr(arg, "%q: '..' is not allowed (paths stay inside the vault)", p)
		case strings.HasPrefix(seg, "."):
			return "", argErr(arg, "%q: %q is a hidden or reserved folder", p, seg)
		case len(seg) > 255:
			return "", argErr(arg, "%q: a segment is longer than 255 bytes", p)
		}
		for _, r := range seg {
			if unicode.IsControl(r) {
				return "", argErr(arg, "%q: contains a control character", p)
			}
			if invisible(r) {
				return "", argErr(arg, "%q: contains U+%04X, an invisible or bidi control character (it would make the path read as another)", p, r)
			}
		}
	}
	return p, nil
}

// noSymlinks refuses a path any existing component of which is a symbolic
// link: a link could lead a write out of the vault.
func (v *Vault) noSymlinks(arg, rel string) error {
	cur := v.root
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" {
			continue
		}
		cur = filepath.Join(cur, seg)
		fi, err := os.Lstat(cur)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", rel, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return argErr(arg, "%q goes through a symbolic link, which cairn does not follow", rel)
		}
	}
	return nil
}
