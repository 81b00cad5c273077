package access

import "fmt"

// Role is what a principal may do in a project.
type Role int

// Roles, ordered: a higher role includes the lower ones.
const (
	RoleNone Role = iota
	RoleRead
	RoleWrite
)

func (r Role) String() string {
	switch r {
	case RoleRead:
		return "read"
	case RoleWrite:
		return "write"
	}
	return "none"
}

// ParseRole reads "read" or "write".
func ParseRole(s string) (Role, error) {
	switch s {
	case "read":
		return RoleRead, nil
	case "write":
		return RoleWrite, nil
	}
	return RoleNone, fmt.Errorf("%q is not a role (read or write)", s)
}
