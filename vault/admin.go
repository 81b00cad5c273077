package vault

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
)

// CreateProject writes a project marker (people make projects; no agent
// tool does) in one commit. folder defaults to the handle's path.
func (v *Vault) CreateProject(c access.Caller, handle, name, folder string) (*Project, error) {
	if err := ValidHandle(handle); err != nil {
		return nil, &ArgError{Arg: "handle", Msg: err.Error()}
	}
	if v.Owner() != c.Principal {
		return nil, fmt.Errorf("%w: only the vault owner creates projects", ErrForbidden)
	}
	if folder == "" {
		folder = handle
	}
	dir, err := cleanRel("folder", folder)
	if err != nil {
		return nil, err
	}
	// "." is the vault's root: the whole vault one project (an adopted
	// folder of notes), people/ and banks/ staying private.
	if top, _, _ := strings.Cut(dir, "/"); top == PeopleDir || top == BanksDir {
		return nil, argErr("folder", "%q cannot hold a project: %s/ is private memory", folder, top)
	}
	if err := v.checkNewFolder("folder", dir); err != nil {
		return nil, err
	}
	if err := v.rescan(); err != nil {
		return nil, err
	}
	ps := v.projectSet()
	if p := ps.byHandle[handle]; p != nil {
		return nil, argErr("handle", "%s is already the handle (or an alias) of the project in %s", handle, p.Dir)
	}
	where := dir
	if where == "" {
		where = "the vault's root"
	}
	if p := ps.byDir[dir]; p != nil {
		return nil, argErr("folder", "%s is already project %s", where, p.Handle)
	}
	if name == "" {
		name = handle
	}
	p := &Project{Handle: handle, Name: name, Dir: dir}
	data, err := p.marker()
	if err != nil {
		return nil, err
	}
	if _, err := v.commit(c, fmt.Sprintf("Create project %s in %s", handle, where), "", []gitstore.Change{
		{Path: p.within(ProjectMarker), Content: data, CheckVersion: true, ExpectVersion: ""},
	}); err != nil {
		return nil, fmt.Errorf("create project: %w", err)
	}
	if err := v.rescan(); err != nil {
		return nil, err
	}
	return p, nil
}

// Grant sets (or with RoleNone removes) a principal's role in a project, in
// .cairn/access.yaml, in one commit.
func (v *Vault) Grant(c access.Caller, principal, handle string, role access.Role) error {
	if err := access.ValidPrincipal(principal); err != nil {
		return &ArgError{Arg: "principal", Msg: err.Error()}
	}
	if v.Owner() != c.Principal {
		return fmt.Errorf("%w: only the vault owner grants access", ErrForbidden)
	}
	if err := v.rescan(); err != nil {
		return err
	}
	p := v.projectSet().byHandle[handle]
	if p == nil {
		return argErr("project", "no project %q (cairn project list shows them)", handle)
	}
	a, err := loadAccess(v.root)
	if err != nil {
		return err
	}
	if principal == a.Owner {
		return argErr("principal", "%s owns the vault and may already do everything", principal)
	}
	if a.Members == nil {
		a.Members = map[string]map[string]string{}
	}
	if role == access.RoleNone {
		// The grant may be stored under an old handle: remove them all.
		for _, h := range append([]string{p.Handle}, p.Aliases...) {
			delete(a.Members[principal], h)
		}
		if len(a.Members[principal]) == 0 {
			delete(a.Members, principal)
		}
	} else {
		if a.Members[principal] == nil {
			a.Members[principal] = map[string]string{}
		}
		a.Members[principal][p.Handle] = role.String()
	}
	data, err := a.Marshal()
	if err != nil {
		return err
	}
	_, err = v.commit(c, fmt.Sprintf("Grant %s %s on %s", principal, role, p.Handle), "", []gitstore.Change{{Path: AccessFile, Content: data}})
	if err == gitstore.ErrNothingToCommit {
		return nil
	}
	return err
}

// ProjectList is every project, for people (the command line).
func (v *Vault) ProjectList() ([]*Project, []string, error) {
	if err := v.rescan(); err != nil {
		return nil, nil, err
	}
	ps := v.projectSet()
	return ps.list, ps.problems, nil
}

// AccessConfig returns access.yaml as it applies on this machine now (the
// local owner, if .cairn/local.yaml names one, in place of the committed).
func (v *Vault) AccessConfig() (*access.Access, error) { return v.accessNow() }
