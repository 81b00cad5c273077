package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

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

// Caller is who acts, as far as the vault is concerned: a principal, the
// ceiling of the token it came with, an optional narrowing to some
// projects, and what the commit trailers say (actor and tool).
type Caller struct {
	Principal string
	Ceiling   Role
	Projects  []string // nil: every project the principal is a member of
	Banks     []string // nil: every memory bank the principal is granted
	Actor     string   // "agent" or "human"
	Tool      string   // the MCP tool or command
	Client    string   // the OAuth client acting for the principal, named in the commit ("" for none)
}

// Access is the committed .cairn/access.yaml: the owner and the members.
type Access struct {
	Owner   string                       `yaml:"owner"`
	Members map[string]map[string]string `yaml:"members,omitempty"` // principal → project handle → role
	Banks   map[string][]string          `yaml:"banks,omitempty"`   // principal → bank ids
	// SignIn maps the people a team's identity provider signs in to
	// principals (cairn serve --oidc-issuer; docs/oauth.md).
	SignIn *SignInMap `yaml:"signin,omitempty"`
}

// SignInMap says which claim of an identity provider's answer names a
// person (email unless set), and the principal each value is.
type SignInMap struct {
	Claim      string            `yaml:"claim,omitempty"`
	Principals map[string]string `yaml:"principals,omitempty"` // claim value → principal
}

// DefaultSignInClaim is the claim read when the map names none.
const DefaultSignInClaim = "email"

// PrincipalFor is the principal a signed-in person's claim value maps to
// (compared without regard to case: an email's is not its own), "" when
// none does.
func (a *Access) PrincipalFor(value string) string {
	if a.SignIn == nil || value == "" {
		return ""
	}
	if p, ok := a.SignIn.Principals[value]; ok {
		return p
	}
	for k, p := range a.SignIn.Principals {
		if strings.EqualFold(k, value) {
			return p
		}
	}
	return ""
}

// SignInClaim is the claim the map reads.
func (a *Access) SignInClaim() string {
	if a.SignIn == nil || a.SignIn.Claim == "" {
		return DefaultSignInClaim
	}
	return a.SignIn.Claim
}

// ReadAccess reads the vault's access file as this machine sees it (the
// owner from .cairn/local.yaml when it names one).
func ReadAccess(root string) (*Access, error) { return effectiveAccess(root) }

func loadAccess(root string) (*Access, error) {
	data, err := os.ReadFile(filepath.Join(root, AccessFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Access{Owner: "owner"}, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseAccess(data)
}

// ParseAccess reads the content of an access file, checked.
func ParseAccess(data []byte) (*Access, error) {
	var a Access
	if err := yaml.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", AccessFile, err)
	}
	if a.Owner == "" {
		return nil, fmt.Errorf("%s: no owner", AccessFile)
	}
	if err := a.checkPrincipals(); err != nil {
		return nil, fmt.Errorf("%s: %w", AccessFile, err)
	}
	return &a, nil
}

// checkPrincipals refuses a name that is not a principal. The file is
// shared and arrives by sync, and the owner it names becomes the caller
// of a server's stdio and hand edits, whose own folder is
// people/<owner>/: an owner such as "../../x" would make start_session
// read a profile.md outside the vault. Members and bank grantees are
// checked alike, so a misspelt name is an error rather than a grant
// that silently matches no one.
func (a *Access) checkPrincipals() error {
	if err := ValidPrincipal(a.Owner); err != nil {
		return fmt.Errorf("owner: %w", err)
	}
	for _, m := range slices.Sorted(maps.Keys(a.Members)) {
		if err := ValidPrincipal(m); err != nil {
			return fmt.Errorf("members: %w", err)
		}
	}
	for _, b := range slices.Sorted(maps.Keys(a.Banks)) {
		if err := ValidPrincipal(b); err != nil {
			return fmt.Errorf("banks: %w", err)
		}
	}
	if a.SignIn != nil {
		for _, v := range slices.Sorted(maps.Keys(a.SignIn.Principals)) {
			if err := ValidPrincipal(a.SignIn.Principals[v]); err != nil {
				return fmt.Errorf("signin: %q: %w", v, err)
			}
		}
	}
	return nil
}

// Marshal renders the access file with a header comment for people.
func (a *Access) Marshal() ([]byte, error) {
	body, err := yaml.Marshal(a)
	if err != nil {
		return nil, err
	}
	head := "# Who may do what in this vault (cairn). The owner may do everything.\n" +
		"# members: principal -> project handle -> read | write. Edit with `cairn access grant`.\n"
	return append([]byte(head), body...), nil
}

// role is the principal's membership role in a project (before the token's
// ceiling): the owner writes everywhere; members have what is listed for
// the project's handle or one of its aliases (an alias counts only while
// it names this project, never when another project holds that handle).
func (a *Access) role(principal string, p *Project, ps *projectSet) Role {
	if principal == a.Owner {
		return RoleWrite
	}
	m := a.Members[principal]
	best := RoleNone
	for _, h := range p.names(ps) {
		if r, err := ParseRole(m[h]); err == nil && r > best {
			best = r
		}
	}
	return best
}

// Principals lists everyone access.yaml names.
func (a *Access) Principals() []string {
	set := map[string]bool{a.Owner: true}
	for p := range a.Members {
		set[p] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
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

// Local is .cairn/local.yaml: this machine's settings, never committed
// (git ignores the file). A team shares one access file, whose owner is
// one person; each member's clone names its own owner here, so every
// machine serves its person as the owner without a commit that would
// collide with the other members' settings.
//
// It also holds where this machine's embedder sends note text and which
// environment variable's value it sends as a key: choices each machine
// makes for itself, since the shared config.yaml may not make them
// (ChooseEmbedder). The section is read by ChooseEmbedder, which checks
// it; here it is only kept, so a mistake in it turns semantic search off
// (said by every search and by doctor) rather than stopping the vault.
type Local struct {
	Owner    string    `yaml:"owner,omitempty"`    // overrides the access file's owner on this machine
	Embedder yaml.Node `yaml:"embedder,omitempty"` // this machine's embedder (ChooseEmbedder), wins whole over config.yaml's
}

// loadLocal reads the local settings (none when the file is absent). A
// key cairn does not know is refused rather than ignored: a misspelt
// owner would otherwise serve the wrong principal without a word.
func loadLocal(root string) (*Local, error) {
	data, err := os.ReadFile(filepath.Join(root, LocalFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Local{}, nil
	}
	if err != nil {
		return nil, err
	}
	var l Local
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", LocalFile, err)
	}
	if l.Owner != "" {
		if err := ValidPrincipal(l.Owner); err != nil {
			return nil, fmt.Errorf("%s: owner: %w", LocalFile, err)
		}
	}
	return &l, nil
}

// Marshal renders the local settings with a header comment for people.
func (l *Local) Marshal() ([]byte, error) {
	body, err := yaml.Marshal(l)
	if err != nil {
		return nil, err
	}
	head := "# This machine's cairn settings: never committed (git ignores this file).\n" +
		"# owner: the principal served as the vault owner here, instead of .cairn/access.yaml's.\n" +
		"# embedder: this machine's embedding server and key variable, instead of .cairn/config.yaml's.\n"
	return append([]byte(head), body...), nil
}

// effectiveAccess is the access file as it applies on this machine: the
// committed rules, with the local owner in place of the committed one.
// Writers of the access file use loadAccess, so a local owner is never
// committed.
func effectiveAccess(root string) (*Access, error) {
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
