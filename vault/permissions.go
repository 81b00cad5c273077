package vault

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/vault/access"
)

// roleAt is what c may do at a vault path: its own personal domain is its
// alone; a project's notes follow the membership; notes outside every
// project belong to the owner; hidden places and banks are never reachable
// through these operations. The token's ceiling caps everything.
func (v *Vault) roleAt(c access.Caller, p string) access.Role {
	if hiddenSegment(p) {
		return access.RoleNone
	}
	if owner, _, ok := personalPath(p); ok {
		if owner == c.Principal && owner != "" {
			return min(access.RoleWrite, c.Ceiling)
		}
		return access.RoleNone
	}
	if p == BanksDir || len(p) > len(BanksDir) && p[:len(BanksDir)+1] == BanksDir+"/" {
		return access.RoleNone
	}
	a, err := v.accessNow()
	if err != nil {
		return access.RoleNone
	}
	pr := v.projectSet().of(p)
	if pr == nil {
		if c.Principal == a.Owner && c.Projects == nil {
			return c.Ceiling
		}
		return access.RoleNone
	}
	return v.projectRole(c, a, pr)
}

func (v *Vault) projectRole(c access.Caller, a *access.Access, pr *Project) access.Role {
	ps := v.projectSet()
	if c.Projects != nil && !slices.ContainsFunc(pr.names(ps), func(h string) bool { return slices.Contains(c.Projects, h) }) {
		return access.RoleNone
	}
	return min(roleOf(a, c.Principal, pr, ps), c.Ceiling)
}

// ProjectAccess is one project a caller can reach.
type ProjectAccess struct {
	Handle  string   `json:"handle"`
	Name    string   `json:"name"`
	Access  string   `json:"access"`
	Folder  string   `json:"folder"`
	Aliases []string `json:"aliases,omitempty"`
	Notes   int      `json:"noteCount"`
}

// Projects lists the projects c can read, with its access and note count.
func (v *Vault) Projects(c access.Caller) ([]ProjectAccess, error) {
	if err := v.syncHead(); err != nil {
		return nil, err
	}
	a, err := v.accessNow()
	if err != nil {
		return nil, err
	}
	ps := v.projectSet()
	counts := map[*Project]int{}
	for d, n := range v.catalog.noteCounts("") {
		if pr := ps.of(d); pr != nil {
			counts[pr] += n
		}
	}
	var out []ProjectAccess
	for _, pr := range ps.list {
		r := v.projectRole(c, a, pr)
		if r == access.RoleNone {
			continue
		}
		out = append(out, ProjectAccess{Handle: pr.Handle, Name: pr.Name, Access: r.String(), Folder: pr.Dir, Aliases: pr.Aliases, Notes: counts[pr]})
	}
	return out, nil
}

// project resolves a handle (or alias) the caller can read; an unknown
// handle and a forbidden one get the same answer.
func (v *Vault) project(c access.Caller, arg, handle string) (*Project, access.Role, error) {
	if err := validText(arg, handle); err != nil {
		return nil, access.RoleNone, err
	}
	if err := v.syncHead(); err != nil {
		return nil, access.RoleNone, err
	}
	pr := v.projectSet().byHandle[handle]
	if pr == nil {
		// A marker written by hand a moment ago: look again once.
		if err := v.rescan(); err != nil {
			return nil, access.RoleNone, err
		}
		pr = v.projectSet().byHandle[handle]
	}
	if pr == nil {
		return nil, access.RoleNone, argErr(arg, "no project %q is accessible (get_my_projects lists yours)", handle)
	}
	a, err := v.accessNow()
	if err != nil {
		return nil, access.RoleNone, err
	}
	r := v.projectRole(c, a, pr)
	if r == access.RoleNone {
		return nil, access.RoleNone, argErr(arg, "no project %q is accessible (get_my_projects lists yours)", handle)
	}
	return pr, r, nil
}

// WhyNothing says in words why c can reach no project, and the command
// that changes it; "" when c reaches one, or is the owner reading a vault
// that has projects. A token for a principal nobody granted anything
// works, and its agent saw empty lists with nothing to say why
// (whoami and start_session say this; cairn token create warns with it).
func (v *Vault) WhyNothing(c access.Caller) (string, error) {
	a, err := v.accessNow()
	if err != nil {
		return "", err
	}
	ps := v.projectSet()
	// A role in one project is enough (Projects would also count notes).
	for _, pr := range ps.list {
		if v.projectRole(c, a, pr) > access.RoleNone {
			return "", nil
		}
	}
	switch {
	case len(ps.list) == 0:
		if c.Principal != a.Owner {
			return fmt.Sprintf("the vault has no project yet, so %s reaches nothing but people/%s/: the owner runs cairn project create HANDLE --folder . (the whole vault) and cairn access grant --principal %s --project HANDLE --role read|write", c.Principal, c.Principal, c.Principal), nil
		}
		return "the vault has no project, so agents read every note but write none: cairn project create HANDLE --folder . makes the whole vault one (or --folder F a part of it)", nil
	case c.Projects != nil:
		return fmt.Sprintf("this token is narrowed to %s, and %s may read none of them: cairn access grant --principal %s --project HANDLE --role read|write, or a token without --projects", strings.Join(c.Projects, ", "), c.Principal, c.Principal), nil
	case c.Principal == a.Owner:
		return "", nil
	default:
		return fmt.Sprintf("no project is granted to %s, so it reaches nothing but people/%s/: cairn access grant --principal %s --project HANDLE --role read|write (cairn project list shows the projects)", c.Principal, c.Principal, c.Principal), nil
	}
}
