package access

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// File is the committed access file, relative to the vault.
const File = ".cairn/access.yaml"

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

// Parse reads the content of an access file, checked.
func Parse(data []byte) (*Access, error) {
	var a Access
	if err := yaml.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	if a.Owner == "" {
		return nil, fmt.Errorf("%s: no owner", File)
	}
	if err := a.checkPrincipals(); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
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
