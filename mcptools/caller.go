package mcptools

import (
	"context"
	"slices"

	"github.com/cairn-dev/cairn/vault/access"
)

// Caller is who a request acts for: set once per request by the
// transport (the bearer token over HTTP, the local owner over stdio) and
// read by the tool filter and every handler. One word across the layers:
// a principal is a member's name in access.yaml; a caller is a principal
// acting now, through a token (its ceiling, toolsets, projects); the
// vault sees the same caller as a vault.Caller (Env.Caller).
type Caller struct {
	Principal string
	Ceiling   access.Role
	Toolsets  []string
	Projects  []string // nil: all the principal's projects
	Banks     []string // nil: all granted banks
	TokenID   string   // "" for the local owner over stdio
	Client    string   // the OAuth client a grant was made to ("" otherwise)
}

type callerKey struct{}

// WithCaller puts a caller in a context.
func WithCaller(ctx context.Context, id Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, id)
}

// callerSource answers the caller anew at each use (stdio, where one
// context serves the whole session).
type callerSource func() (Caller, error)

// WithCallerSource puts a source of the caller in a context: asked at every
// tool listing and call, so a revoked token stops working at once.
func WithCallerSource(ctx context.Context, who func() (Caller, error)) context.Context {
	return context.WithValue(ctx, callerKey{}, callerSource(who))
}

// CallerFrom reads it back.
func CallerFrom(ctx context.Context) (Caller, bool) {
	switch v := ctx.Value(callerKey{}).(type) {
	case Caller:
		return v, true
	case callerSource:
		id, err := v()
		return id, err == nil
	}
	return Caller{}, false
}

// CallerOf turns a verified token into a caller.
func CallerOf(r TokenRecord) Caller {
	ceiling := access.RoleRead
	if r.Scope == "write" {
		ceiling = access.RoleWrite
	}
	return Caller{Principal: r.Principal, Ceiling: ceiling, Toolsets: r.Toolsets, Projects: r.Projects, Banks: r.Banks, TokenID: r.ID, Client: r.ClientName}
}

// OwnerCaller is the local owner with every toolset (stdio without token),
// narrowed to the given toolsets when some are named.
func OwnerCaller(owner string, toolsets []string) Caller {
	if len(toolsets) == 0 {
		toolsets = AllToolsets
	}
	return Caller{Principal: owner, Ceiling: access.RoleWrite, Toolsets: toolsets}
}

// allows reports whether the caller may see and call a tool.
func (id Caller) allows(t *Tool) bool {
	if !slices.Contains(id.Toolsets, t.Toolset) {
		return false
	}
	return t.ReadOnly || id.Ceiling >= access.RoleWrite
}

func (id Caller) caller(tool string) access.Caller {
	return access.Caller{Principal: id.Principal, Ceiling: id.Ceiling, Projects: id.Projects, Banks: id.Banks, Actor: "agent", Tool: tool, Client: id.Client}
}

// Claim is what a front end tells the process hosting the vault about who
// a call is for: a token, by its id, or the local owner (no id), and the
// toolsets the front end narrowed it to. The host makes the caller
// itself, from its own reading of the token file (ResolveClaim): a front
// end cannot widen what a token may do.
type Claim struct {
	TokenID  string   `json:"tokenId,omitempty"`
	Toolsets []string `json:"toolsets"`
}

// Claim is the claim a front end sends for this caller.
func (id Caller) Claim() Claim {
	return Claim{TokenID: id.TokenID, Toolsets: slices.Clone(id.Toolsets)}
}

// ResolveClaim makes the caller a claim stands for: the token's record
// as the token file holds it now (a revoked token fails), or the owner,
// narrowed to the claim's toolsets.
func ResolveClaim(tokens *TokenStore, owner string, c Claim) (Caller, error) {
	var id Caller
	if c.TokenID == "" {
		id = OwnerCaller(owner, nil)
	} else {
		rec, err := tokens.Lookup(c.TokenID)
		if err != nil {
			return Caller{}, err
		}
		id = CallerOf(rec)
	}
	id.Toolsets = slices.DeleteFunc(slices.Clone(id.Toolsets), func(t string) bool { return !slices.Contains(c.Toolsets, t) })
	return id, nil
}
