package mcptools

import (
	"context"
	"slices"

	"github.com/cairn-dev/cairn/vault"
)

// Identity is who a request acts for: set once per request by the
// transport (the bearer token over HTTP, the local owner over stdio) and
// read by the tool filter and every handler.
type Identity struct {
	Principal string
	Ceiling   vault.Role
	Toolsets  []string
	Projects  []string // nil: all the principal's projects
	Banks     []string // nil: all granted banks
	TokenID   string   // "" for the local owner over stdio
	Client    string   // the OAuth client a grant was made to ("" otherwise)
}

type identityKey struct{}

// WithIdentity puts an identity in a context.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// identitySource answers the identity anew at each use (stdio, where one
// context serves the whole session).
type identitySource func() (Identity, error)

// WithIdentitySource puts a source of identity in a context: asked at every
// tool listing and call, so a revoked token stops working at once.
func WithIdentitySource(ctx context.Context, who func() (Identity, error)) context.Context {
	return context.WithValue(ctx, identityKey{}, identitySource(who))
}

// IdentityFrom reads it back.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	switch v := ctx.Value(identityKey{}).(type) {
	case Identity:
		return v, true
	case identitySource:
		id, err := v()
		return id, err == nil
	}
	return Identity{}, false
}

// IdentityOf turns a verified token into an identity.
func IdentityOf(r TokenRecord) Identity {
	ceiling := vault.RoleRead
	if r.Scope == "write" {
		ceiling = vault.RoleWrite
	}
	return Identity{Principal: r.Principal, Ceiling: ceiling, Toolsets: r.Toolsets, Projects: r.Projects, Banks: r.Banks, TokenID: r.ID, Client: r.ClientName}
}

// OwnerIdentity is the local owner with every toolset (stdio without token),
// narrowed to the given toolsets when some are named.
func OwnerIdentity(owner string, toolsets []string) Identity {
	if len(toolsets) == 0 {
		toolsets = AllToolsets
	}
	return Identity{Principal: owner, Ceiling: vault.RoleWrite, Toolsets: toolsets}
}

// allows reports whether the identity may see and call a tool.
func (id Identity) allows(t *Tool) bool {
	if !slices.Contains(id.Toolsets, t.Toolset) {
		return false
	}
	return t.ReadOnly || id.Ceiling >= vault.RoleWrite
}

func (id Identity) caller(tool string) vault.Caller {
	return vault.Caller{Principal: id.Principal, Ceiling: id.Ceiling, Projects: id.Projects, Banks: id.Banks, Actor: "agent", Tool: tool, Client: id.Client}
}

// Claim is what a front end tells the process hosting the vault about who
// a call is for: a token, by its id, or the local owner (no id), and the
// toolsets the front end narrowed it to. The host makes the identity
// itself, from its own reading of the token file (ResolveClaim): a front
// end cannot widen what a token may do.
type Claim struct {
	TokenID  string   `json:"tokenId,omitempty"`
	Toolsets []string `json:"toolsets"`
}

// Claim is the claim a front end sends for this identity.
func (id Identity) Claim() Claim {
	return Claim{TokenID: id.TokenID, Toolsets: slices.Clone(id.Toolsets)}
}

// ResolveClaim makes the identity a claim stands for: the token's record
// as the token file holds it now (a revoked token fails), or the owner,
// narrowed to the claim's toolsets.
func ResolveClaim(tokens *TokenStore, owner string, c Claim) (Identity, error) {
	var id Identity
	if c.TokenID == "" {
		id = OwnerIdentity(owner, nil)
	} else {
		rec, err := tokens.Lookup(c.TokenID)
		if err != nil {
			return Identity{}, err
		}
		id = IdentityOf(rec)
	}
	id.Toolsets = slices.DeleteFunc(slices.Clone(id.Toolsets), func(t string) bool { return !slices.Contains(c.Toolsets, t) })
	return id, nil
}
