package access

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
