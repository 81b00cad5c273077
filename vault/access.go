package vault

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/vault/access"
)

// ReadAccess reads the vault's access file as this machine sees it (the
// owner from .cairn/local.yaml when it names one).
func ReadAccess(root string) (*access.Access, error) { return effectiveAccess(root) }

func loadAccess(root string) (*access.Access, error) {
	data, err := os.ReadFile(filepath.Join(root, AccessFile))
	if errors.Is(err, os.ErrNotExist) {
		return &access.Access{Owner: "owner"}, nil
	}
	if err != nil {
		return nil, err
	}
	return access.Parse(data)
}

// role is the principal's membership role in a project (before the token's
// ceiling): the owner writes everywhere; members have what is listed for
// the project's handle or one of its aliases (an alias counts only while
// it names this project, never when another project holds that handle).
func roleOf(a *access.Access, principal string, p *Project, ps *projectSet) access.Role {
	if principal == a.Owner {
		return access.RoleWrite
	}
	m := a.Members[principal]
	best := access.RoleNone
	for _, h := range p.names(ps) {
		if r, err := access.ParseRole(m[h]); err == nil && r > best {
			best = r
		}
	}
	return best
}

// ReadOwner is the owner principal of the vault at root on this machine
// (the access file's, or the local settings' when they name one), without
// opening the vault (a front end attached to the process hosting it has no
// vault of its own).
func ReadOwner(root string) (string, error) {
	a, err := effectiveAccess(root)
	if err != nil {
		return "", err
	}
	return a.Owner, nil
}

// loadLocal reads the local settings (none when the file is absent;
// access.ParseLocal checks them).
func loadLocal(root string) (*access.Local, error) {
	data, err := os.ReadFile(filepath.Join(root, LocalFile))
	if errors.Is(err, os.ErrNotExist) {
		return &access.Local{}, nil
	}
	if err != nil {
		return nil, err
	}
	return access.ParseLocal(data)
}

// effectiveAccess is the access file as it applies on this machine: the
// committed rules, with the local owner in place of the committed one.
// Writers of the access file use loadAccess, so a local owner is never
// committed.
func effectiveAccess(root string) (*access.Access, error) {
	a, err := loadAccess(root)
	if err != nil {
		return nil, err
	}
	l, err := loadLocal(root)
	if err != nil {
		return nil, err
	}
	if l.Owner != "" {
		a.Owner = l.Owner
	}
	return a, nil
}
