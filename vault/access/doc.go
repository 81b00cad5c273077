// Package access is who may do what in a vault, as plain data: roles
// (none, read, write), the Caller an operation acts for, the committed
// access file (.cairn/access.yaml: the owner, members' roles per project
// handle, memory-bank grants, the sign-in map for an identity provider),
// this machine's local settings (.cairn/local.yaml), the rule for a
// principal's name, and the entry-by-entry merge of two versions of the
// access file that a sync makes (failing closed: a revocation is never
// undone by a merge).
//
// It imports nothing of the vault. Deciding a caller's role at a path
// (projects, personal domains, the token's ceiling) is the vault's
// (vault/permissions.go), since it needs where notes live.
//
// Vocabulary, the same across the layers: a principal is a member's name;
// a caller is a principal acting now, with the ceiling and narrowing of
// the token it came with (mcptools.Caller as the transport authenticated
// it, access.Caller as the vault sees it).
package access
